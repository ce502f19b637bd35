/** The text every reader sees: well-formed, compatibility-normalised, one kind of apostrophe and of space. */
export const normalize = (text: string): string =>
  text.toWellFormed().normalize("NFKC").replace(/[’‘`]/g, "'").replace(/[“”]/g, "\"").replace(/\s+/gu, " ").trim()

/** Lower case without diacritics: "São Paulo" and "sao paulo" are one name. */
export const fold = (s: string): string => s.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase().trim()
const small = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen " +
  "sixteen seventeen eighteen nineteen twenty").split(" ")
const named: Record<string, number> = {
  a: 1,
  an: 1,
  single: 1,
  couple: 2,
  pair: 2,
  dozen: 12,
  "half a dozen": 6,
  "half dozen": 6,
  thirty: 30,
  forty: 40
}
export const countOf = (word: string): number | undefined => {
  const w = word.toLowerCase().replace(/^a /, "").replace(/ of$/, "")
  return /^\d{1,6}$/.test(w) ? Number(w) : small.includes(w) ? small.indexOf(w) : named[w]
}

export const countPattern = `(?:\\d{1,6}|half a dozen|half dozen|${
  small.slice(1).join("|")
}|thirty|forty|a dozen|a couple of|a pair of|dozen)`
export const quoted = (s: string): string =>
  `"${Array.from(s).length > 60 ? `${Array.from(s).slice(0, 59).join("")}…` : s}"`

export const dedupe = <A>(values: ReadonlyArray<A>, key = (a: A): string => JSON.stringify(a)): Array<A> => {
  const seen = new Set<string>()
  return values.filter((v) => !seen.has(key(v)) && seen.add(key(v)) !== undefined)
}

export const matches = (text: string, pattern: RegExp): Array<RegExpExecArray> => [...text.matchAll(pattern)]
/** The text with [start, end) blanked out, so later readers do not read it again. */
export const mask = (text: string, spans: ReadonlyArray<readonly [number, number]>, fill = " "): string =>
  spans.reduce((out, [start, end]) => out.slice(0, start) + fill.repeat(end - start) + out.slice(end), text)
