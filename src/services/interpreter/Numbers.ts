// ---------------------------------------------------------------------------------------------------
// Numbers, kept as decimal strings: never a float on the way to an amount.

export interface Decimal {
  readonly int: string
  readonly frac: string
}

const trimZeros = (int: string) => int.replace(/^0+(?=\d)/, "")

/**
 * A number as written. "1,200" is twelve hundred and "12,50" twelve and a half (a comma before exactly
 * three digits groups thousands); "1.200" could be either and is "ambiguous".
 */
export const parseNumber = (text: string): Decimal | "ambiguous" | undefined => {
  if (/^\d+$/.test(text)) return { int: trimZeros(text), frac: "" }
  const groups = text.split(/[.,]/)
  const seps = text.replace(/\d/g, "")
  const first = groups[0]!
  const last = groups[groups.length - 1]!
  if (seps.length === 1) {
    if (last.length === 3 && first.length <= 3 && first !== "0") {
      return seps === "," ? { int: trimZeros(first + last), frac: "" } : "ambiguous"
    }
    return { int: trimZeros(first), frac: last }
  }
  const decimalSep = seps[seps.length - 1]!
  const groupSeps = seps.slice(0, -1)
  const allSame = [...seps].every((c) => c === seps[0])
  if (allSame) {
    if (first.length > 3 || groups.slice(1).some((g) => g.length !== 3)) return undefined
    return { int: trimZeros(groups.join("")), frac: "" }
  }
  if ([...groupSeps].some((c) => c === decimalSep) || first.length > 3) return undefined
  if (groups.slice(1, -1).some((g) => g.length !== 3)) return undefined
  return { int: trimZeros(groups.slice(0, -1).join("")), frac: last }
}

export const timesThousand = (d: Decimal, zeros: number): Decimal => {
  const digits = d.int + d.frac.padEnd(zeros, "0")
  const point = d.int.length + zeros
  return { int: trimZeros(digits.slice(0, point)), frac: digits.slice(point) }
}

const numberWords: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
  hundred: 100,
  dozen: 12
}

export const wordNumber = (lower: string): number | undefined => {
  const direct = numberWords[lower]
  if (direct !== undefined || !lower.includes("-")) return direct
  const [tens, units] = lower.split("-")
  const t = tens === undefined ? undefined : numberWords[tens]
  const u = units === undefined ? undefined : numberWords[units]
  return t !== undefined && u !== undefined && t >= 20 && t <= 90 && t % 10 === 0 && u < 10 ? t + u : undefined
}
