import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as SqlClient from "effect/sql/SqlClient"
import * as StoreGuard from "../store/StoreGuard.ts"
import { ProviderTransient } from "./Provider.ts"
import type { LedgerState, Row } from "./Sandbox.ts"
import { make, toEntry } from "./Sandbox.ts"

interface LedgerRow {
  readonly key: string
  readonly job_id: string
  readonly proposal_hash: string
  readonly document: string
  readonly calls: number
  readonly effects: number
  readonly state: LedgerState
  readonly reference: string
}

const fromRow = (row: LedgerRow): Row => ({
  key: row.key,
  jobId: row.job_id,
  proposalHash: row.proposal_hash,
  document: JSON.parse(row.document),
  calls: row.calls,
  effects: row.effects,
  state: row.state,
  reference: row.reference
})

const unavailable = () => new ProviderTransient({ message: "the sandbox's ledger cannot be reached" })

/**
 * The ledger in the service's database: each call is one short transaction that holds its key's lock,
 * so that calls with one key from any number of processes perform at most one side effect.
 */
export const layer = Layer.effectContext(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const guard = yield* StoreGuard.make("sandbox")
  const select = (key: string) =>
    sql<LedgerRow>`SELECT key, job_id, proposal_hash, document, calls, effects, state, reference
      FROM sandbox_ledger WHERE key = ${key}`.pipe(
      Effect.map(([row]) => Option.map(Option.fromUndefinedOr(row), fromRow))
    )
  return make({
    row: (key) => guard(select(key)).pipe(Effect.mapError(unavailable)),
    change: (key, decide) =>
      guard(sql.withTransaction(Effect.gen(function*() {
        // A row lock cannot serialise the first calls of a key, which find no row to lock: each would
        // decide to perform the effect. A lock on the key itself, held to the commit, does.
        yield* sql`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`
        const current = yield* select(key)
        const decision = decide(Option.getOrUndefined(current))
        if (decision === undefined) return Option.none()
        const row = decision.row!
        yield* sql`
          INSERT INTO sandbox_ledger (key, job_id, proposal_hash, offer_id, document, calls, effects, state, reference)
          VALUES (${row.key}, ${row.jobId}, ${row.proposalHash}, ${row.document.offer.id}, ${
          JSON.stringify(row.document)
        },
            ${row.calls}, ${row.effects}, ${row.state}, ${row.reference})
          ON CONFLICT (key) DO UPDATE SET calls = EXCLUDED.calls, effects = EXCLUDED.effects, state = EXCLUDED.state,
            updated_at = now()`
        return Option.some(decision.answer)
      }))).pipe(
        Effect.retry({ times: 2 }),
        Effect.mapError(unavailable),
        Effect.flatMap(Option.match({
          onNone: () => Effect.succeedNone,
          onSome: (answer) => Effect.map(answer, Option.some)
        }))
      ),
    entries: (jobId) =>
      guard(sql<LedgerRow>`
        SELECT key, job_id, proposal_hash, document, calls, effects, state, reference FROM sandbox_ledger
        ${jobId === undefined ? sql`` : sql`WHERE job_id = ${jobId}`}
        ORDER BY created_at, key`).pipe(Effect.map((rows) => rows.map((row) => toEntry(fromRow(row)))))
  })
}))
