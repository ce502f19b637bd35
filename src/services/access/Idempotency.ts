import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { AccountId } from "../../schema/ApiKey.ts"
import { PositiveDuration } from "../../schema/Duration.ts"
import type { Unavailable } from "../../schema/Errors.ts"
import * as Pruning from "../store/Pruning.ts"

/** An answer as it was sent: replayed byte for byte. */
export interface StoredAnswer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/** Another request holds the key now: retry after `retryAfter` seconds. */
export class KeyInUse extends Data.TaggedError("KeyInUse")<{ readonly message: string; readonly retryAfter: number }> {}

/** The key was used for another request (method, path or body). */
export class KeyReused extends Data.TaggedError("KeyReused")<{ readonly message: string }> {}

/** A key held by one request while its operation runs. */
export interface Claim {
  readonly accountId: AccountId
  readonly key: string
  readonly token: string
}

export type ClaimResult =
  | { readonly _tag: "Claimed"; readonly claim: Claim }
  | { readonly _tag: "Replay"; readonly answer: StoredAnswer }

/**
 * Idempotency keys (docs/API.md, "Idempotency"), scoped to an account. A request first claims its key in
 * a short transaction of its own; its operation's effects and its answer are then stored in one
 * transaction (`complete`), so that an answer exists exactly when the effects do. A claim that is not
 * completed (the process died) expires after the claim TTL and the next request with the key runs the
 * operation; answers are kept for the retention period, then pruned.
 */
export class Idempotency extends Context.Service<Idempotency, {
  /**
   * Claims `key` for a request with `fingerprint`; or the answer stored for the same fingerprint; or
   * `KeyInUse` while another request holds it; or `KeyReused` when it was used
   * for another fingerprint.
   */
  readonly claim: (
    accountId: AccountId,
    key: string,
    fingerprint: string
  ) => Effect.Effect<ClaimResult, KeyInUse | KeyReused | Unavailable>
  /**
   * Runs `operation` and stores its answer with its effects, atomically (one transaction on
   * PostgreSQL). When the operation fails or dies, nothing is stored and the claim is released, so that
   * a retry runs it again; when the claim was lost meanwhile, nothing is stored either and the request
   * is told the key is in use.
   */
  readonly complete: <E, R>(
    claim: Claim,
    operation: Effect.Effect<StoredAnswer, E, R>
  ) => Effect.Effect<StoredAnswer, E | KeyInUse | Unavailable, R>
  /** Gives a claim up without storing an answer. */
  readonly release: (claim: Claim) => Effect.Effect<void, Unavailable>
  /** Deletes the keys older than the retention period; answers how many. */
  readonly prune: Effect.Effect<number, Unavailable>
}>()("Idempotency") {}

/** `IDEMPOTENCY_CLAIM_TTL` (30 seconds) and `IDEMPOTENCY_RETENTION` (24 hours). */
export const IdempotencyConfig = Config.all({
  claimTtl: Config.schema(PositiveDuration, "IDEMPOTENCY_CLAIM_TTL").pipe(Config.withDefault(Duration.seconds(30))),
  retention: Config.schema(PositiveDuration, "IDEMPOTENCY_RETENTION").pipe(Config.withDefault(Duration.hours(24)))
})

/** How long a request that finds its key in use is asked to wait. */
export const inUseRetryAfter = 1

export const inUse = new KeyInUse({
  message: "A request with this Idempotency-Key is still in progress; retry it shortly.",
  retryAfter: inUseRetryAfter
})
export const reused = new KeyReused({
  message: "This Idempotency-Key was used for a different request (method, path or body); use a new key."
})

/** Prunes expired keys every `interval` (10 minutes unless told), in the background, for the layer's life. */
export const pruneLoop = (interval?: Duration.Input) =>
  Pruning.every("expired idempotency keys", Effect.flatMap(Idempotency, (idempotency) => idempotency.prune), interval)
