import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import { Constraint, ConstraintInput, Objective, Question } from "./Constraint.ts"
import { Instant, JobId, JobRevision } from "./JobRef.ts"
import { JobProposal, Outcome } from "./Proposal.ts"

export { Instant, JobId, JobRevision } from "./JobRef.ts"

/** docs/API.md, "Operations". */
export const jobStatuses = [
  "interpreting",
  "awaiting_input",
  "planning",
  "awaiting_approval",
  "executing",
  "verifying",
  "recovering",
  "completed",
  "failed",
  "cancelled"
] as const
export const JobStatus = Schema.Literals(jobStatuses).annotate({ identifier: "JobStatus" })
export type JobStatus = typeof JobStatus.Type

export const isTerminal = (status: JobStatus): boolean =>
  status === "completed" || status === "failed" || status === "cancelled"

export const requestMaxLength = 10_000
export const answerMaxLength = 10_000

const isWellFormed = Schema.makeFilter((s: string) => s.isWellFormed(), { expected: "well-formed Unicode text" })

/** The User's words, kept verbatim as provenance: 1 to 10,000 characters (code points). */
export const RequestText = Schema.String.check(
  isWellFormed,
  Schema.isMinLength(1),
  Schema.isMaxCodePoints(requestMaxLength)
).annotate({ description: "The User's words, verbatim: 1 to 10,000 characters." })

/** An answer to a question: the User's words, 1 to 10,000 characters, not only white space. */
export const AnswerText = Schema.String.check(
  isWellFormed,
  Schema.makeFilter((s: string) => s.trim() !== "", { expected: "an answer that is not empty or only white space" }),
  Schema.isMaxCodePoints(answerMaxLength)
)

/** docs/API.md, "Operations". */
export const Job = Schema.Struct({
  id: JobId,
  jobRevision: JobRevision,
  status: JobStatus,
  request: Schema.String,
  constraints: Schema.Array(Constraint),
  objective: Schema.NullOr(Objective),
  questions: Schema.Array(Question).annotate({ description: "The open questions; empty when none is open." }),
  proposal: Schema.NullOr(JobProposal).annotate({
    description: "The current revision's latest proposal; null while it has none."
  }),
  outcome: Schema.NullOr(Outcome).annotate({ description: "The verified outcome; null until verification succeeds." }),
  createdAt: Instant,
  updatedAt: Instant
}).annotate({ identifier: "Job" })
export type Job = typeof Job.Type

export const JobPage = Schema.Struct({
  data: Schema.Array(Job),
  nextCursor: Schema.NullOr(Schema.String).annotate({
    description: "Pass as `cursor` for the next page; null on the last page."
  })
}).annotate({ identifier: "JobPage" })
export type JobPage = typeof JobPage.Type

export const CreateJobRequest = Schema.Struct({
  request: RequestText,
  constraints: Schema.Array(ConstraintInput).pipe(Schema.withDecodingDefaultKey(Effect.succeed([]))).annotate({
    description: "The caller's constraints; none (`[]`) when left out.",
    default: []
  })
}).annotate({ identifier: "CreateJobRequest" })
export type CreateJobRequest = typeof CreateJobRequest.Type

export const ChangeConstraintsRequest = Schema.Struct({
  jobRevision: JobRevision,
  constraints: Schema.Array(ConstraintInput)
}).annotate({ identifier: "ChangeConstraintsRequest" })
export type ChangeConstraintsRequest = typeof ChangeConstraintsRequest.Type

export const AnswerQuestionsRequest = Schema.Struct({
  jobRevision: JobRevision,
  answers: Schema.Record(Schema.String, AnswerText).check(
    Schema.makeFilter((answers) => Object.keys(answers).length > 0, {
      expected: "at least one answer",
      toJsonSchema: () => ({ minProperties: 1 })
    })
  ).annotate({
    description: "Answers by question id; any subset of the open questions, at least one."
  })
}).annotate({ identifier: "AnswerQuestionsRequest" })
export type AnswerQuestionsRequest = typeof AnswerQuestionsRequest.Type

const constraintTypes = ConstraintInput.members.map((member) => member.fields.type.literal)

const pathText = (path: ReadonlyArray<PropertyKey>) =>
  path.map((key, i) => typeof key === "number" ? `[${key}]` : i === 0 ? String(key) : `.${String(key)}`).join("")

/**
 * Says what is wrong with a request in words a person reads, naming the place (`constraints[0].max`,
 * `limit`). `input` is what was decoded, when the issue does not carry it.
 */
export const describeIssue = (issue: SchemaIssue.Issue): string => {
  if (issue._tag === "InvalidType" && (issue.ast._tag === "Objects" || issue.ast._tag === "Declaration")) {
    return "The body must be a JSON object."
  }
  const [first] = SchemaIssue.makeFormatterStandardSchemaV1()(issue).issues
  if (first === undefined) return "The request is not valid."
  const path = (first.path ?? []).map((segment) => typeof segment === "object" ? segment.key : segment)
  const at = path.length === 0 ? "the document" : pathText(path)
  // A constraint that matches no member of the union: say which `type` values exist, or what the
  // matching member lacks.
  if (path[0] === "constraints" && path.length === 2 && first.message.startsWith("Expected ConstraintInput")) {
    const constraint = inputAt(issue, path)
    const type = typeof constraint === "object" && constraint !== null
      ? (constraint as { type?: unknown }).type
      : undefined
    if (typeof constraint !== "object" || constraint === null || Array.isArray(constraint)) {
      return `${at} must be an object.`
    }
    if (!constraintTypes.includes(type as never)) {
      return `${at}.type must be one of ${constraintTypes.join(", ")}.`
    }
  }
  if (first.message === "Missing key") return `${at} is required.`
  if (first.message === "Expected no excess property" || first.message.startsWith("Unexpected key")) {
    return `${at} is not allowed here.`
  }
  return `${at}: ${first.message.replace(/^Expected /, "expected ")}.`
}

/** The input found at `path` in an issue's tree: the issues nearest the leaves carry it. */
const inputAt = (
  issue: SchemaIssue.Issue,
  path: ReadonlyArray<PropertyKey>,
  at: ReadonlyArray<PropertyKey> = []
): unknown => {
  const here = at.length === path.length && at.every((key, i) => key === path[i])
  if (here && SchemaIssue.hasInput(issue)) return issue.input
  switch (issue._tag) {
    case "Pointer":
      return inputAt(issue.issue, path, [...at, ...issue.path])
    case "Filter":
    case "Encoding":
      return inputAt(issue.issue, path, at)
    case "Composite":
    case "AnyOf":
      for (const inner of issue.issues) {
        const found = inputAt(inner, path, at)
        if (found !== undefined) return found
      }
      return undefined
    default:
      return undefined
  }
}
