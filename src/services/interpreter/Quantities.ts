import type { ConstraintInput, ObjectiveKind, QuestionAbout } from "../../schema/Constraint.ts"
import { dedupe } from "./Budget.ts"
import type { Findings } from "./Findings.ts"
import { id, partyWords } from "./Findings.ts"
import { collapse } from "./Kinds.ts"
import { wordNumber } from "./Numbers.ts"
import { Reader } from "./Reader.ts"
import type { Reading } from "./Reading.ts"
import { partyUnits, peopleWords } from "./Reading.ts"
import type { Token } from "./Tokens.ts"

export const readQuantities = (
  reading: Reading,
  kind: ObjectiveKind,
  tokens: ReadonlyArray<Token>,
  caller: ReadonlyArray<ConstraintInput>,
  answers: ReadonlyMap<string, string>,
  result: Findings
): void => {
  const callerQuantities = caller.filter((c): c is Extract<ConstraintInput, { type: "quantity" }> =>
    c.type === "quantity"
  )
  const byUnit = new Map<string, Array<number | "too-large">>()
  for (const q of reading.quantities) {
    const key = q.unit ?? ""
    byUnit.set(key, [...(byUnit.get(key) ?? []), q.count])
  }

  const peopleAnswer = answers.get(id("quantity.people"))
  if (peopleAnswer !== undefined) {
    const count = readCountAnswer(peopleAnswer)
    if (count !== undefined) byUnit.set("people", [count])
  }
  const quantityAnswer = answers.get(id("quantity"))
  const answeredUnits = new Set<string>(
    peopleAnswer !== undefined && byUnit.get("people")?.length === 1 ? ["people"] : []
  )
  if (quantityAnswer !== undefined) {
    const parsed = new Reader(quantityAnswer.toWellFormed().normalize("NFKC")).read().quantities
    const bare = readCountAnswer(quantityAnswer)
    const conflicting = [...byUnit.entries()].filter(([unit, counts]) => unit !== "people" && dedupe(counts).length > 1)
    if (parsed.length === 1 && parsed[0]!.unit !== undefined) {
      byUnit.set(parsed[0]!.unit, [parsed[0]!.count])
      answeredUnits.add(parsed[0]!.unit)
    } else if (bare !== undefined && conflicting.length > 0) {
      byUnit.set(conflicting[0]![0], [bare])
      answeredUnits.add(conflicting[0]![0])
    }
  }

  for (const [unit, counts] of [...byUnit.entries()].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)) {
    const distinct = dedupe(counts)
    const about: QuestionAbout = unit === "people" ? "quantity.people" : "quantity"
    const callerSame = callerQuantities.filter((c) =>
      (c.unit ?? "") === unit || (unit === "people" && c.unit !== undefined && peopleWords.has(c.unit.toLowerCase()))
    )
    const answer = answers.get(id(about))
    if (distinct.length > 1 || distinct[0] === "too-large") {
      if (callerSame.length > 0 && distinct.every((c) => callerSame.some((q) => q.count === c))) continue
      result.ask(
        about,
        unit === "people" ?
          `For how many people? The request says ${distinct.join(" and ")}.` :
          `How many ${unit === "" ? "" : `${unit} `}exactly? The request says ${distinct.join(" and ")}.`.replace(
            "too-large",
            "a number too large"
          ),
        answeredUnits.has(unit) ? undefined : answer
      )
      continue
    }
    const count = distinct[0] as number
    if (callerSame.some((c) => c.count === count)) continue
    if (callerSame.length > 0 && !answeredUnits.has(unit)) {
      result.ask(
        about,
        `The request says ${count}${unit === "" ? "" : ` ${unit}`} but ${callerSame.map((c) => c.count).join(", ")} ${
          unit === "" ? "" : unit
        } was given: how many?`.replace(" was given", " was given").replace("  ", " "),
        undefined
      )
      continue
    }
    result.constraints.push(unit === "" ? { type: "quantity", count } : { type: "quantity", count, unit })
  }

  // A table for how many? A restaurant cannot hold one without the number of people.
  const wantsTable = kind === "reservation" && tokens.some((t) => partyWords.has(t.lower))
  const hasPeople = [...byUnit.keys()].some((u) => u === "people" || partyUnits.has(u)) ||
    callerQuantities.some((c) =>
      c.unit === undefined || peopleWords.has(c.unit.toLowerCase()) || partyUnits.has(c.unit.toLowerCase())
    )
  if (wantsTable && !hasPeople) {
    result.ask("quantity.people", "For how many people?", peopleAnswer)
  }
}

const readCountAnswer = (answer: string): number | "too-large" | undefined => {
  const reader = new Reader(collapse(answer.toWellFormed().normalize("NFKC")))
  const first = reader.tokens.findIndex((t) =>
    t.kind === "num" || wordNumber(t.lower) !== undefined || t.lower === "a" || t.lower === "half"
  )
  if (first < 0) return undefined
  const count = reader.readCount(first)
  if (count === undefined) return undefined
  const rest = reader.tokens.slice(count.end).filter((t) => t.kind !== "sym")
  if (rest.length > 2) return undefined
  return count.count
}
