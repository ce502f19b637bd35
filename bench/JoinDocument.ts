/**
 * The hand-written servers' reading of a join body: the contract of docs/API.md ("The rules, in the
 * order they are checked", rules 1 and 2, after the content type and the size), written out by hand as
 * an engineer without our Schema decoder would write it. test/BenchBaseline.test.ts holds it to the
 * service's decoder.
 */
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })
const emailPattern = /^[^@\s]+@[^@\s.]+(\.[^@\s.]+)+$/u

/** Code points of a well-formed string: a surrogate pair counts once. */
const codePoints = (s: string) => {
  let n = s.length
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff) n--
  }
  return n
}

const isEmail = (value: unknown): value is string => {
  if (typeof value !== "string" || !value.isWellFormed()) return false
  const length = codePoints(value)
  return length >= 3 && length <= 254 && emailPattern.test(value)
}

/** The address of a join body, or the status that refuses it: 400 `invalid_json` or 422 `invalid_email`. */
export const readJoinDocument = (body: Uint8Array): string | 400 | 422 => {
  let document: unknown
  try {
    document = JSON.parse(strictUtf8.decode(body))
  } catch {
    return 400
  }
  if (typeof document !== "object" || document === null || Array.isArray(document)) return 400
  for (const key of Object.keys(document)) if (key !== "email" && key !== "source") return 400
  const { email, source } = document as { readonly email?: unknown; readonly source?: unknown }
  if (source !== "landing") return 400
  return isEmail(email) ? email : 422
}
