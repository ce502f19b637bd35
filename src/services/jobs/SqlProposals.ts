import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as SqlClient from "effect/sql/SqlClient"
import * as SqlSchema from "effect/sql/SqlSchema"
import { AccountId } from "../../schema/ApiKey.ts"
import { JobId } from "../../schema/JobRef.ts"
import * as StoreGuard from "../store/StoreGuard.ts"
import * as JobStore from "./JobStore.ts"
import { make, Proposals } from "./Proposals.ts"

const fromUtf8 = new TextDecoder()

/** A Job's proposal by its hash: the bytes, or null when the Job (its row) has no such proposal. */
const BytesRow = Schema.Struct({ bytes: Schema.NullOr(Schema.Uint8Array) })

/** A Job whose open proposal is past its expiry. */
const DueRow = Schema.Struct({ accountId: AccountId, jobId: JobId }).pipe(
  Schema.encodeKeys({ accountId: "account_id", jobId: "id" })
)

/** PostgreSQL. */
export const layer = Layer.effect(Proposals)(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const guard = yield* StoreGuard.make("proposals")
  const selectBytes = SqlSchema.findOneOption({
    Request: Schema.Struct({ accountId: AccountId, jobId: JobId, hash: Schema.String }),
    Result: BytesRow,
    execute: ({ accountId, hash, jobId }) =>
      sql`
          SELECT p.bytes FROM jobs j LEFT JOIN job_proposals p ON p.job_id = j.id AND p.hash = ${hash}
          WHERE j.id = ${jobId} AND j.account_id = ${accountId}`
  })
  const selectDue = SqlSchema.findAll({
    Request: Schema.String,
    Result: DueRow,
    execute: (now) =>
      sql`
      SELECT account_id, id FROM jobs WHERE proposal_expires_at <= ${now}::timestamptz
      ORDER BY proposal_expires_at LIMIT 100`
  })
  return yield* make({
    bytes: (accountId, jobId, hash) =>
      guard(Effect.gen(function*() {
        const row = yield* selectBytes({ accountId, jobId, hash })
        if (Option.isNone(row)) return yield* Effect.fail(JobStore.notFound(jobId))
        return row.value.bytes === null ? Option.none() : Option.some(fromUtf8.decode(row.value.bytes))
      })),
    due: (now) => guard(selectDue(now))
  })
}))
