import type * as DateTime from "effect/DateTime"
import type { ConstraintInput, Evidence, Objective, Question } from "../../schema/Constraint.ts"

/** What the Interpreter reads from, and what it reads. */

export interface Answer {
  readonly questionId: string
  readonly question: string
  readonly answer: string
  /** The revision this answer made: the evidence of a fact read from it points into it by this number. */
  readonly revision: number
}

/** A fact the Interpreter read, with the words it read it from (never empty: no words, no fact). */
export type InterpretedConstraint = ConstraintInput & { readonly evidence: readonly [Evidence, ...Array<Evidence>] }

/** The User's words verbatim, the caller's constraints, every answer so far (oldest first), and the Job's
 * creation time, against which relative dates resolve. */
export interface InterpretInput {
  readonly request: string
  readonly constraints: ReadonlyArray<ConstraintInput>
  readonly answers: ReadonlyArray<Answer>
  readonly createdAt: DateTime.Utc
}

export interface Understood {
  readonly _tag: "Understood"
  readonly objective: Objective
  readonly constraints: ReadonlyArray<InterpretedConstraint>
}

export interface NeedsInput extends Omit<Understood, "_tag" | "objective"> {
  readonly _tag: "NeedsInput"
  readonly objective: Objective | null
  readonly questions: ReadonlyArray<Question>
}

export type Interpretation = Understood | NeedsInput
