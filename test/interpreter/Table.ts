import type { ConstraintInput, ObjectiveKind } from "../../src/schema/Constraint.ts"
import { bookings } from "./Bookings.ts"
import { errands } from "./Errands.ts"
import { readings } from "./Readings.ts"

/**
 * What a careful assistant does with each request: the questions it asks ([] = it proceeds), the kind,
 * and the facts it must get right. Created on Tuesday 10 March 2026 at 10:00 UTC unless `at` says
 * otherwise (Lisbon and London on +00:00, Paris +01:00, New York -04:00 since 8 March, Tokyo +09:00).
 */
export interface Case {
  readonly request: string
  readonly given?: ReadonlyArray<ConstraintInput>
  readonly answers?: Readonly<Record<string, string>>
  readonly at?: string
  readonly kind: ObjectiveKind | null
  readonly ask: ReadonlyArray<string>
  readonly facts?: Facts
}

export interface Facts {
  /** The window's start, or [start, end]. */
  readonly window?: string | readonly [string, string]
  readonly deadline?: string
  readonly zone?: string | null
  /** "200.00 EUR", or null for none. */
  readonly budget?: string | null
  readonly people?: number
  readonly quantity?: readonly [number, string]
  readonly places?: ReadonlyArray<string>
}

/** Every request of the table: its two files by kind of errand, and the readings of part two. */
export const requests: ReadonlyArray<Case> = [...bookings, ...errands, ...readings]
