import canonicalize from "canonicalize"

/**
 * The RFC 8785 (JCS) canonical JSON text of a value: equal values have equal text, whatever the order
 * of their members. Proposal hashes and idempotency fingerprints name these exact bytes.
 */
export const canonicalJson = (value: unknown): string => canonicalize(value)!
