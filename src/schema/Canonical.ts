/**
 * RFC 8785 (JSON Canonicalization Scheme) of a value parsed from JSON: object members sorted by the
 * UTF-16 code units of their names, no whitespace, and numbers and strings as ECMAScript's
 * `JSON.stringify` writes them (which is what RFC 8785 prescribes).
 */
export const canonicalJson = (value: unknown): string => {
  if (value === null || typeof value !== "object") {
    if (typeof value === "number" && !Number.isFinite(value)) throw new RangeError("JCS: not a finite number")
    return JSON.stringify(value)
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`
  const record = value as Record<string, unknown>
  const names = Object.keys(record).filter((name) => record[name] !== undefined).sort()
  return `{${names.map((name) => `${JSON.stringify(name)}:${canonicalJson(record[name])}`).join(",")}}`
}
