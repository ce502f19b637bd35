import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as SqlClient from "effect/sql/SqlClient"
import type { AccountId } from "../../schema/ApiKey.ts"
import type { JobId } from "../../schema/JobRef.ts"
import * as StoreGuard from "../store/StoreGuard.ts"
import * as JobStore from "./JobStore.ts"
import { make, Proposals } from "./Proposals.ts"

const fromUtf8 = new TextDecoder()

/** PostgreSQL. */
export const layer = Layer.effect(Proposals)(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const guard = yield* StoreGuard.make("proposals")
  return yield* make({
    bytes: (accountId, jobId, hash) =>
      guard(Effect.gen(function*() {
        const [row] = yield* sql<{ readonly bytes: Uint8Array | null }>`
          SELECT p.bytes FROM jobs j LEFT JOIN job_proposals p ON p.job_id = j.id AND p.hash = ${hash}
          WHERE j.id = ${jobId} AND j.account_id = ${accountId}`
        if (row === undefined) return yield* Effect.fail(JobStore.notFound(jobId))
        return row.bytes === null ? Option.none() : Option.some(fromUtf8.decode(row.bytes))
      })),
    due: guard(sql<{ readonly account_id: string; readonly id: string }>`
      SELECT account_id, id FROM jobs WHERE proposal_expires_at <= now() ORDER BY proposal_expires_at LIMIT 100`).pipe(
      Effect.map((rows) => rows.map((row) => ({ accountId: row.account_id as AccountId, jobId: row.id as JobId })))
    )
  })
}))
