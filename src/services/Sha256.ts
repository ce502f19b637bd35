import { createHash } from "node:crypto"

/** The SHA-256 of a text's UTF-8 bytes, as lowercase hex: proposal hashes, stored tokens, fingerprints. */
export const sha256Hex = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex")
