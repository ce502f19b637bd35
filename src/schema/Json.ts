import * as Result from "effect/Result"

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

/**
 * The JSON value of a request body, read as both APIs read it: strict UTF-8 (a byte-order mark is not
 * stripped, so it fails as JSON) and one document; a failure when the bytes are not that.
 */
export const parseJsonBytes = (bytes: Uint8Array): Result.Result<unknown, void> => {
  try {
    return Result.succeed(JSON.parse(strictUtf8.decode(bytes)))
  } catch {
    return Result.fail(undefined)
  }
}

/**
 * What in a parsed JSON value no JSON text can say again, and so no canonical form (RFC 8785) can
 * name: a number beyond a double's range (`1e400` parses as Infinity), or text with a lone surrogate
 * (`"\ud800"`), in a value or a member's name. `undefined` when there is none.
 */
export const unrepresentable = (value: unknown, at = "the body"): string | undefined => {
  if (typeof value === "number") return Number.isFinite(value) ? undefined : `${at} holds a number out of range.`
  if (typeof value === "string") {
    return value.isWellFormed()
      ? undefined
      : `${at} holds text that is not well-formed Unicode.`
  }
  if (typeof value !== "object" || value === null) return undefined
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = unrepresentable(item, `${at}[${i}]`)
      if (found !== undefined) return found
    }
    return undefined
  }
  for (const [key, item] of Object.entries(value)) {
    if (!key.isWellFormed()) return `${at} has a member name that is not well-formed Unicode.`
    const found = unrepresentable(item, at === "the body" ? key : `${at}.${key}`)
    if (found !== undefined) return found
  }
  return undefined
}
