import { unitMaxLength } from "../../schema/Constraint.ts"
import { months, timeUnits, weekdays } from "./DateWords.ts"
import { currencyWords, lowerCodes } from "./MoneyWords.ts"
import { parseNumber, wordNumber } from "./Numbers.ts"
import type { Reader } from "./Reader.ts"
import { containerWords, isCapitalised, notUnits, peopleWords, unitAdjectives } from "./Reading.ts"

export const readCount = (r: Reader, i: number): { end: number; count: number | "too-large" } | undefined => {
  const w = r.lower(i)
  const token = r.tokens[i]
  if (token === undefined) return undefined
  if (w === "half" && r.lower(i + 1) === "a" && r.lower(i + 2) === "dozen") return { end: i + 3, count: 6 }
  if ((w === "a" || w === "one") && r.lower(i + 1) === "dozen") return { end: i + 2, count: 12 }
  if ((w === "a" || w === "one") && ["couple", "pair"].includes(r.lower(i + 1)) && r.lower(i + 2) === "of") {
    return { end: i + 3, count: 2 }
  }
  let count: number | "too-large" | undefined
  if (token.kind === "num") {
    if (
      r.attached(i) && ["$", "€", "£", "¥", ".", ":", "/", "-", "#", "+"].includes(r.tokens[i - 1]?.text ?? "")
    ) {
      return undefined
    }
    const parsed = parseNumber(token.text)
    if (parsed === undefined || parsed === "ambiguous" || parsed.frac !== "") return undefined
    const n = Number(parsed.int)
    count = Number.isSafeInteger(n) ? n : "too-large"
  } else {
    count = wordNumber(w)
  }
  if (count === undefined || count === 0) return undefined
  let end = i + 1
  if (r.lower(end) === "dozen" && typeof count === "number") {
    count = count * 12
    end++
  }
  return { end, count }
}

export const readQuantity = (r: Reader, i: number): number | undefined => {
  const w = r.lower(i)
  // "table for 4", "for 4 people", "party of 6"
  if ((w === "for" || (w === "of" && r.lower(i - 1) === "party")) && r.tokens[i + 1] !== undefined) {
    const count = r.readDay(i + 1) === undefined && r.readTime(i + 1, false) === undefined ?
      r.readCount(i + 1) :
      undefined
    if (count !== undefined) {
      const next = r.lower(count.end)
      if (peopleWords.has(next)) {
        r.out.quantities.push({ count: count.count, unit: "people" })
        return count.end + 1
      }
      const unitWord = r.tokens[count.end]
      if (
        unitWord === undefined || unitWord.kind !== "word" ||
        ["at", "on", "in", "tomorrow", "today", "tonight", "and", "please", "next", "this", "from", "by", "near"]
          .includes(
            next
          ) ||
        weekdays[next] !== undefined
      ) {
        const after = r.tokens[count.end]
        if (after?.kind === "sym" && ![",", ".", "!", "?", ")", ";"].includes(after.text)) return undefined
        r.out.quantities.push({ count: count.count, unit: "people" })
        return count.end
      }
      return r.quantityWithUnit(count.end, count.count)
    }
  }
  const count = r.readCount(i)
  if (count === undefined) return undefined
  if (r.tokens[i]?.kind === "word" && !["a", "half", "one"].includes(w) && wordNumber(w) === undefined) {
    return undefined
  }
  return r.quantityWithUnit(count.end, count.count)
}

export const quantityWithUnit = (r: Reader, k: number, count: number | "too-large"): number | undefined => {
  let unitAt = k
  if (r.lower(unitAt) === "x" && r.attached(unitAt)) unitAt++
  const first = r.tokens[unitAt]
  if (
    first === undefined || first.kind !== "word" || isCapitalised(first) && first.text !== first.text.toUpperCase()
  ) {
    return undefined
  }
  if (
    notUnits.has(first.lower) || timeUnits[first.lower] !== undefined && r.lower(k - 2) !== "for" ||
    months[first.lower] !== undefined || currencyWords[first.lower] !== undefined || lowerCodes.has(first.lower) ||
    weekdays[first.lower] !== undefined || first.text === first.text.toUpperCase() && first.text.length > 1
  ) {
    return undefined
  }
  let end = unitAt + 1
  let unit = first.lower
  if (unitAdjectives.has(unit) && r.tokens[end]?.kind === "word" && !notUnits.has(r.lower(end))) {
    unit = `${unit} ${r.lower(end)}`
    end++
  }
  if (containerWords.has(unit) && r.lower(end) === "of" && r.tokens[end + 1]?.kind === "word") {
    unit = `${unit} of ${r.lower(end + 1)}`
    end += 2
    if (
      unitAdjectives.has(r.lower(end - 1)) && r.tokens[end]?.kind === "word" && !notUnits.has(r.lower(end))
    ) {
      unit = `${unit} ${r.lower(end)}`
      end++
    }
  }
  if (peopleWords.has(unit)) unit = "people"
  if (Array.from(unit).length > unitMaxLength) return undefined
  r.out.quantities.push({ count, unit })
  return end
}

// ---- places and zones --------------------------------------------------------------------------

/** The longest city (up to 4 words) named at i: its index after and entry. */
