import * as Data from "effect/Data"

/**
 * Why the Job services refuse an operation, in the domain's words. They carry a message for a person
 * and nothing of HTTP: the API maps each to its one wire error (`src/http/WireErrors.ts`).
 */

/** No Job, proposal or revision of that name in the caller's account (another account's is unknown too). */
export class UnknownJob extends Data.TaggedError("UnknownJob")<{ readonly message: string }> {}

export const isNotFound = (error: unknown): error is UnknownJob => error instanceof UnknownJob

/** The caller acted on a revision that is no longer the Job's current one. */
export class StaleRevision extends Data.TaggedError("StaleRevision")<{ readonly message: string }> {}

/** The Job's status does not allow the operation now (terminal, no open question, decided already). */
export class WrongState extends Data.TaggedError("WrongState")<{ readonly message: string }> {}

/** The proposal named is not the Job's open one. */
export class ProposalNotOpen extends Data.TaggedError("ProposalNotOpen")<{ readonly message: string }> {}

/** The proposal was not decided before it expired. */
export class ProposalLapsed extends Data.TaggedError("ProposalLapsed")<{ readonly message: string }> {}

/** A well-formed request the Job cannot take (an answer to no open question, a cursor of no list). */
export class RejectedInput extends Data.TaggedError("RejectedInput")<{ readonly message: string }> {}

/** The events after the reader's position were pruned: it must start again from a newer one. */
export class HistoryPruned extends Data.TaggedError("HistoryPruned")<{ readonly message: string }> {}

export type JobFailure =
  | UnknownJob
  | StaleRevision
  | WrongState
  | ProposalNotOpen
  | ProposalLapsed
  | RejectedInput
  | HistoryPruned
