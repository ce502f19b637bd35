import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Semaphore from "effect/Semaphore"
import * as SqlClient from "effect/sql/SqlClient"
import * as SqlSchema from "effect/sql/SqlSchema"
import { randomBytes } from "node:crypto"
import type { Principal } from "../../schema/ApiKey.ts"
import { AccountId } from "../../schema/ApiKey.ts"
import type { ApprovalLinkRequest } from "../../schema/ApprovalLink.ts"
import { ApprovalLinkId, tokenPattern } from "../../schema/ApprovalLink.ts"
import type { Unavailable } from "../../schema/Errors.ts"
import { JobId, JobRevision } from "../../schema/JobRef.ts"
import type { Approval as Decided } from "../../schema/Proposal.ts"
import { ApprovalId, Decision, ProposalHash } from "../../schema/Proposal.ts"
import * as StoreGuard from "../store/StoreGuard.ts"
import * as Transaction from "../store/Transaction.ts"
import { sha256Hex } from "../text/Sha256.ts"
import * as JobStore from "./JobStore.ts"
import type { DecisionError } from "./rules/Approval.ts"
import * as Approval from "./rules/Approval.ts"
import { UnknownJob, WrongState } from "./rules/JobErrors.ts"
import { InstantFromDate } from "./rules/JobRecord.ts"
import type { Change } from "./rules/JobRecord.ts"

/** A link as the service keeps it: never its token, which only its holder has. */
export interface StoredLink {
  readonly id: ApprovalLinkId
  readonly accountId: AccountId
  readonly jobId: JobId
  readonly jobRevision: number
  readonly proposalHash: ProposalHash
  readonly expiresAt: string
  readonly createdAt: string
  /** The decision made through it, once. */
  readonly used: { readonly approvalId: ApprovalId; readonly decision: Decision; readonly at: string } | null
}

/** A new link and its token, which is never stored and never shown again. */
export interface IssuedLink {
  readonly link: StoredLink
  readonly token: Redacted.Redacted<string>
}

export interface LinkDecisionInput {
  readonly decision: Decision
  readonly reason?: string | undefined
}

/**
 * Approval links (docs/API.md, "Approval links"): a holder of `approvals:write` hands its authority over
 * one proposal to a person, as a link. A link is created under the same checks as a decision, and its
 * creation is an event of the Job; its token is 256 random bits, kept only as its SHA-256, and bound to
 * one account, Job, revision and proposal hash. It decides once, under the checks of any decision (so
 * not after the proposal's `expiresAt`, nor once the Job has moved on), as `decidedBy: "link:{id}"`.
 */
export class ApprovalLinks extends Context.Service<ApprovalLinks, {
  readonly create: (
    principal: Principal,
    jobId: JobId,
    input: ApprovalLinkRequest
  ) => Effect.Effect<IssuedLink, UnknownJob | DecisionError | Unavailable>
  /** The link a token names, if any. */
  readonly resolve: (token: string) => Effect.Effect<Option.Option<StoredLink>, Unavailable>
  /** Records the decision of the link's holder: `UnknownJob` for a token that names no link. */
  readonly decide: (
    token: string,
    input: LinkDecisionInput
  ) => Effect.Effect<Decided, UnknownJob | DecisionError | Unavailable>
}>()("ApprovalLinks") {}

const newToken = () => randomBytes(32).toString("base64url")
const newLinkId = () => `apl_${randomBytes(12).toString("hex")}` as ApprovalLinkId

/** What is stored of a token: its SHA-256, as hex. */
export const hashOfToken = sha256Hex

const unknownLink = new UnknownJob({ message: "This link is not one the service gave." })

const usedLink = (link: StoredLink) =>
  new WrongState({
    message: `This link was used already (${link.used?.decision === "approve" ? "approved" : "rejected"}); `
      + "the first decision stands."
  })

/** The link a creation made: it lasts as long as the proposal it names. */
const linkOf = (principal: Principal, id: ApprovalLinkId, change: Change, input: ApprovalLinkRequest): StoredLink => ({
  id,
  accountId: principal.accountId,
  jobId: change.record.id,
  jobRevision: input.jobRevision,
  proposalHash: input.proposalHash,
  expiresAt: change.record.proposal!.document.expiresAt,
  createdAt: change.record.updatedAt,
  used: null
})

const decisionOf = (link: StoredLink, input: LinkDecisionInput) => ({
  proposalHash: link.proposalHash,
  jobRevision: link.jobRevision,
  decision: input.decision,
  ...(input.reason === undefined ? {} : { reason: input.reason })
})

/** The decision of a link, on its Job: a change like any other decision, in the Job's one write path. */
const decideOn = (store: JobStore.JobStore["Service"], link: StoredLink, input: LinkDecisionInput) =>
  store.mutate(
    link.accountId,
    link.jobId,
    (record, now) => Approval.decide(record, decisionOf(link, input), `link:${link.id}`, now)
  ).pipe(Effect.map((change) => change.approval!))

/** A link's row: unused (its decision's columns null), or used, with all three. */
const linkFields = {
  id: ApprovalLinkId,
  accountId: AccountId,
  jobId: JobId,
  jobRevision: JobRevision,
  proposalHash: ProposalHash,
  expiresAt: InstantFromDate,
  createdAt: InstantFromDate
}
const linkColumns = {
  accountId: "account_id",
  jobId: "job_id",
  jobRevision: "job_revision",
  proposalHash: "proposal_hash",
  expiresAt: "expires_at",
  createdAt: "created_at",
  approvalId: "approval_id",
  decidedAt: "decided_at"
} as const
const LinkRow = Schema.Union([
  Schema.Struct({ ...linkFields, approvalId: Schema.Null, decision: Schema.Null, decidedAt: Schema.Null }).pipe(
    Schema.encodeKeys(linkColumns)
  ),
  Schema.Struct({ ...linkFields, approvalId: ApprovalId, decision: Decision, decidedAt: InstantFromDate }).pipe(
    Schema.encodeKeys(linkColumns)
  )
])

const fromRow = (row: typeof LinkRow.Type): StoredLink => ({
  id: row.id,
  accountId: row.accountId,
  jobId: row.jobId,
  jobRevision: row.jobRevision,
  proposalHash: row.proposalHash,
  expiresAt: row.expiresAt,
  createdAt: row.createdAt,
  used: row.approvalId === null
    ? null
    : { approvalId: row.approvalId, decision: row.decision, at: row.decidedAt }
})

/**
 * PostgreSQL (table `approval_links`, docs/API.md, "Approval links"). A link is written in the
 * transaction that appends its `approval_link.created` to the Job; a decision locks the link's row,
 * then its Job's (as a decision through the API does), and marks the link used in the same transaction.
 */
export const layer = Layer.effect(ApprovalLinks)(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const guard = yield* StoreGuard.make("approval links")
  const store = yield* JobStore.JobStore

  const inTransaction = Transaction.joined(sql)

  const selectLink = SqlSchema.findOneOption({
    Request: Schema.Struct({ token: Schema.String, forUpdate: Schema.Boolean }),
    Result: LinkRow,
    execute: ({ forUpdate, token }) =>
      sql`
      SELECT id, account_id, job_id, job_revision, proposal_hash, expires_at, created_at, approval_id, decision, decided_at
      FROM approval_links WHERE token_hash = ${hashOfToken(token)}${forUpdate ? sql` FOR UPDATE` : sql``}`
  })

  const select = (token: string, forUpdate: boolean) =>
    selectLink({ token, forUpdate }).pipe(
      Effect.map((row) => Option.map(row, fromRow))
    )

  return ApprovalLinks.of({
    create: (principal, jobId, input) =>
      guard(inTransaction(Effect.gen(function*() {
        const id = newLinkId()
        const token = newToken()
        const change = yield* store.mutate(
          principal.accountId,
          jobId,
          (record, now) => Approval.linkCreated(record, input, id, now)
        )
        const link = linkOf(principal, id, change, input)
        yield* sql`
          INSERT INTO approval_links (id, token_hash, account_id, job_id, job_revision, proposal_hash, expires_at,
            created_at, created_by)
          VALUES (${link.id}, ${hashOfToken(token)}, ${link.accountId}, ${link.jobId}, ${link.jobRevision},
            ${link.proposalHash}, ${new Date(link.expiresAt)}, ${new Date(link.createdAt)}, ${principal.keyId})`
        return { link, token: Redacted.make(token) }
      }))),
    resolve: (token) => tokenPattern.test(token) ? guard(select(token, false)) : Effect.succeed(Option.none()),
    decide: (token, input) =>
      tokenPattern.test(token)
        ? guard(inTransaction(Effect.gen(function*() {
          const found = yield* select(token, true)
          if (Option.isNone(found)) return yield* Effect.fail(unknownLink)
          const link = found.value
          if (link.used !== null) return yield* Effect.fail(usedLink(link))
          const approval = yield* decideOn(store, link, input)
          yield* sql`
            UPDATE approval_links SET approval_id = ${approval.id}, decision = ${approval.decision},
              decided_at = ${new Date(approval.createdAt)}
            WHERE id = ${link.id}`
          return approval
        })))
        : Effect.fail(unknownLink)
  })
}))

/**
 * In memory, on the store the Job family's memory layers share. Creations and decisions of links apply
 * one at a time, so that a link decides once however many requests race on it, as the row lock orders
 * them on PostgreSQL; the Job's own change is atomic in its store, and what follows it here cannot fail.
 */
export const layerMemory = Layer.effect(ApprovalLinks)(Effect.gen(function*() {
  const store = yield* JobStore.JobStore
  const links = yield* Ref.make<ReadonlyMap<string, StoredLink>>(new Map())
  const lock = yield* Semaphore.make(1)

  const find = (token: string) =>
    Effect.map(Ref.get(links), (current) => Option.fromUndefinedOr(current.get(hashOfToken(token))))

  return ApprovalLinks.of({
    create: (principal, jobId, input) =>
      Effect.gen(function*() {
        const id = newLinkId()
        const token = newToken()
        const change = yield* store.mutate(
          principal.accountId,
          jobId,
          (record, now) => Approval.linkCreated(record, input, id, now)
        )
        const link = linkOf(principal, id, change, input)
        yield* Ref.update(links, (current) => new Map(current).set(hashOfToken(token), link))
        return { link, token: Redacted.make(token) }
      }).pipe(lock.withPermits(1)),
    resolve: (token) => tokenPattern.test(token) ? find(token) : Effect.succeed(Option.none()),
    decide: (token, input) =>
      Effect.gen(function*() {
        const found = tokenPattern.test(token) ? yield* find(token) : Option.none()
        if (Option.isNone(found)) return yield* Effect.fail(unknownLink)
        const link = found.value
        if (link.used !== null) return yield* Effect.fail(usedLink(link))
        const approval = yield* decideOn(store, link, input)
        const used = { approvalId: approval.id, decision: approval.decision, at: approval.createdAt }
        yield* Ref.update(links, (current) => new Map(current).set(hashOfToken(token), { ...link, used }))
        return approval
      }).pipe(lock.withPermits(1))
  })
}))
