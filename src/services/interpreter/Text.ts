import type { Evidence } from "../../schema/Constraint.ts"

/** Where one UTF-16 unit of a rewritten text came from: a source and a range of it, or nowhere (added words). */
type Origin = readonly [source: number, start: number, end: number] | undefined

/** The words a person wrote: the request, or an answer with the revision it made. */
export interface Source {
  readonly text: string
  readonly answer?: { readonly revision: number; readonly questionId: string }
}

const span = (origins: ReadonlyArray<Origin>): Origin => {
  const first = origins.find((o) => o !== undefined)
  if (first === undefined) return undefined
  const same = origins.filter((o): o is NonNullable<Origin> => o?.[0] === first[0])
  return [first[0], Math.min(...same.map((o) => o[1])), Math.max(...same.map((o) => o[2]))]
}

/**
 * A text the readers read, rewritten step by step ("half past 7" → "7:30", "tmrw" → "tomorrow") while
 * every unit remembers which words of which source it came from, so a fact read anywhere in it can show
 * the person's own words. A replacement's units all come from the whole of what it replaced.
 */
export class Traced {
  readonly text: string
  private readonly origin: ReadonlyArray<Origin>
  constructor(text: string, origin: ReadonlyArray<Origin>) {
    this.text = text
    this.origin = origin
  }

  toString(): string {
    return this.text
  }

  static of(text: string, source: number): Traced {
    return new Traced(text, Array.from({ length: text.length }, (_, i) => [source, i, i + 1] as const))
  }

  /** Words added by the reader itself ("budget " before an answer to "what budget?"): they come from nowhere. */
  static added(text: string): Traced {
    return new Traced(text, Array.from({ length: text.length }, () => undefined))
  }

  static concat(parts: ReadonlyArray<Traced>): Traced {
    return new Traced(parts.map((p) => p.text).join(""), parts.flatMap((p) => p.origin))
  }

  /** `String.prototype.replace`, with `$n` and `$&` in a replacement string, keeping track of the words. */
  replace(pattern: RegExp, replacement: string | ((match: string, ...groups: Array<string>) => string)): Traced {
    const edits: Array<readonly [number, number, string]> = []
    const text = this.text.replace(pattern, (match: string, ...rest: Array<unknown>) => {
      const offset = rest[typeof rest.at(-1) === "object" ? rest.length - 3 : rest.length - 2] as number
      const out = typeof replacement === "function" ?
        replacement(match, ...(rest as Array<string>)) :
        replacement.replace(/\$(\d{1,2}|&)/g, (_, g: string) => (g === "&" ? match : String(rest[Number(g) - 1] ?? "")))
      edits.push([offset, offset + match.length, out])
      return out
    })
    if (edits.length === 0) return this
    const origin: Array<Origin> = []
    let at = 0
    for (const [start, end, out] of edits) {
      origin.push(...this.origin.slice(at, start))
      if (out === this.text.slice(start, end)) origin.push(...this.origin.slice(start, end))
      else origin.push(...Array.from({ length: out.length }, () => span(this.origin.slice(start, end))))
      at = end
    }
    origin.push(...this.origin.slice(at))
    return new Traced(text, origin)
  }

  /** The text with some spans blanked by a mark of the same length, each unit keeping where it came from. */
  blank(spans: ReadonlyArray<readonly [number, number]>, fill = "·"): Traced {
    const chars = Array.from(this.text.split(""))
    for (const [start, end] of spans) for (let i = start; i < end && i < chars.length; i++) chars[i] = fill
    return new Traced(chars.join(""), this.origin)
  }

  /** The source words that [start, end) of this text came from, per source. */
  sources(start: number, end: number): Array<readonly [source: number, start: number, end: number]> {
    const found = new Map<number, [number, number]>()
    for (const o of this.origin.slice(start, end)) {
      if (o === undefined) continue
      const [source, from, to] = o
      const seen = found.get(source)
      found.set(source, seen === undefined ? [from, to] : [Math.min(seen[0], from), Math.max(seen[1], to)])
    }
    return [...found].map(([source, [from, to]]) => [source, from, to] as const)
  }
}

/** Some words of a traced text: what a reading was read from. */
export interface Words {
  readonly in: Traced
  readonly start: number
  readonly end: number
}

export const wordsOf = (traced: Traced, start: number, end: number): Words => ({ in: traced, start, end })

/** Spaces and punctuation at either end are not evidence: "Friday, " shows as "Friday". */
const trim = (text: string, start: number, end: number): readonly [number, number] => {
  while (start < end && /[\s,.;:!?()"'-]/.test(text[start]!)) start++
  while (end > start && /[\s,.;:!?()"'-]/.test(text[end - 1]!)) end--
  // Never cut a surrogate pair in two.
  if (start > 0 && /[\uDC00-\uDFFF]/.test(text[start]!)) start--
  if (end < text.length && /[\uDC00-\uDFFF]/.test(text[end]!)) end++
  return [start, end]
}

/** For each UTF-16 offset of a source, its offset in code points (computed once per source). */
const offsets = new WeakMap<Source, Int32Array>()
export const codePoints = (source: Source, units: number): number => {
  let table = offsets.get(source)
  if (table === undefined) {
    table = new Int32Array(source.text.length + 1)
    for (let i = 0, points = 0; i <= source.text.length; i++) {
      table[i] = points
      const unit = source.text.charCodeAt(i)
      if (!(unit >= 0xD800 && unit <= 0xDBFF && /[\uDC00-\uDFFF]/.test(source.text[i + 1] ?? ""))) points++
    }
    offsets.set(source, table)
  }
  return table[units]!
}

/** Evidence, in code points of each source, for some words of a traced text. */
export const evidenceOf = (sources: ReadonlyArray<Source>, words: Words): Array<Evidence> =>
  words.in.sources(words.start, words.end).flatMap(([index, from, to]) => {
    const source = sources[index]!
    const [a, b] = trim(source.text, from, to)
    if (b <= a) return []
    const evidence = {
      text: source.text.slice(a, b),
      start: codePoints(source, a),
      end: codePoints(source, b)
    }
    return [source.answer === undefined ? evidence : { ...evidence, ...source.answer }]
  })

/** The text every reader sees: well-formed, compatibility-normalised, one kind of apostrophe, quote and space. */
export const normalized = (text: string, source: number): Traced =>
  Traced.of(text.toWellFormed(), source)
    .replace(/\P{M}\p{M}*/gu, (c) => c.normalize("NFKC"))
    .replace(/[’‘`]/g, "'")
    .replace(/[“”]/g, "\"")
    .replace(/\s+/gu, " ")
    .replace(/^ | $/g, "")
