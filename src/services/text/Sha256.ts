import { createHash } from "node:crypto"

/** The SHA-256 of a text's UTF-8 bytes: an API key's stored hash. */
export const sha256 = (text: string): Uint8Array => createHash("sha256").update(text, "utf8").digest()

/** The SHA-256 of a text's UTF-8 bytes, as lowercase hex: proposal hashes, stored tokens, fingerprints. */
export const sha256Hex = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex")
