import * as Data from "effect/Data"

/** Why a check failed: what the documentation says should have come, and what came. */
export class Mismatch extends Data.TaggedError("Mismatch")<{
  readonly expected: string
  readonly got: string
  /** What could not be set up, when the failure is a shared step's: named once, however deep. */
  readonly setUp?: string | undefined
}> {}
