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
