import type { Temporal } from "temporal-polyfill"
import type { Words } from "./Text.ts"

type Local = Temporal.PlainDateTime
/** One time the words name, on the local clock of the place: a window [from, to), or a deadline at `to`. */
export interface When {
  readonly text: string
  readonly span: readonly [number, number]
  /** The words it was read from (a day and a time said apart are two). */
  readonly words: ReadonlyArray<Words>
  readonly from: Local
  readonly to: Local
  readonly deadline: boolean
  readonly clock: boolean
  /** Only a day, or only a time: "on Friday" and "at 8" said apart are one moment. */
  readonly part: "day" | "time" | "both"
  readonly problem?: "past" | "ambiguous" | "contradiction" | "meridiem"
  /** Named by its weekday alone ("Sunday"): a later one is meant when it would come before a day said earlier. */
  readonly weekday?: true
  /** Said as one of several ("Saturday and Sunday", "out ... and back", "check in ..., check out ..."). */
  readonly linked?: true
  /** A part of a day with no clock time: "tomorrow morning", "Saturday evening". */
  readonly dayPart?: true
  /** A time whose day is left open: "this weekend at 7pm" is at 7pm on the first day it may be. */
  readonly wide?: true
}

/** How the place writes dates and times (Locale.ts). */
export interface Conventions {
  readonly dayFirst?: boolean | undefined
  readonly clock24?: boolean
}
