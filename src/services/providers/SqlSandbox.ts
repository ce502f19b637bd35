import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as SqlClient from "effect/sql/SqlClient"
import * as SqlSchema from "effect/sql/SqlSchema"
import { ProposalDocument } from "../../schema/Proposal.ts"
import * as StoreGuard from "../store/StoreGuard.ts"
import { ProviderTransient } from "./Provider.ts"
import { LedgerState, make, toEntry } from "./Sandbox.ts"

/** A key's row of the ledger: the call's document (JSON) and where the key stands. */
const LedgerRow = Schema.Struct({
  key: Schema.String,
  jobId: Schema.String,
  proposalHash: Schema.String,
  document: Schema.fromJsonString(ProposalDocument),
  calls: Schema.Int,
  effects: Schema.Int,
  state: LedgerState,
  reference: Schema.String
}).pipe(Schema.encodeKeys({ jobId: "job_id", proposalHash: "proposal_hash" }))

const unavailable = () => new ProviderTransient({ message: "the sandbox's ledger cannot be reached" })

/**
 * The ledger in the service's database: each call is one short transaction that holds its key's lock,
 * so that calls with one key from any number of processes perform at most one side effect.
 */
export const layer = Layer.effectContext(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const guard = yield* StoreGuard.make("sandbox")
  const selectRow = SqlSchema.findOneOption({
    Request: Schema.Struct({ key: Schema.String }),
    Result: LedgerRow,
    execute: ({ key }) =>
      sql`SELECT key, job_id, proposal_hash, document, calls, effects, state, reference
      FROM sandbox_ledger WHERE key = ${key}`
  })
  const select = (key: string) => selectRow({ key })
  const selectEntries = SqlSchema.findAll({
    Request: Schema.Struct({ jobId: Schema.optional(Schema.String) }),
    Result: LedgerRow,
    execute: ({ jobId }) =>
      sql`
        SELECT key, job_id, proposal_hash, document, calls, effects, state, reference FROM sandbox_ledger
        ${jobId === undefined ? sql`` : sql`WHERE job_id = ${jobId}`}
        ORDER BY created_at, key`
  })
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
    entries: (jobId) => guard(selectEntries({ jobId })).pipe(Effect.map((rows) => rows.map(toEntry)))
  })
}))
