import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import * as SqlSchema from "effect/sql/SqlSchema"
import { AccountId } from "../../schema/ApiKey.ts"
import { ApprovalLinkId } from "../../schema/ApprovalLink.ts"
import { JobId, JobRevision } from "../../schema/JobRef.ts"
import { ApprovalId, Decision, ProposalHash } from "../../schema/Proposal.ts"
import * as StoreGuard from "../store/StoreGuard.ts"
import * as Transaction from "../store/Transaction.ts"
import type { StoredLink } from "./ApprovalLinks.ts"
import { ApprovalLinks, make } from "./ApprovalLinks.ts"
import { InstantFromDate } from "./SqlJobStore.ts"

/** A link's row: unused (its decision's columns null), or used, with all three. */
const linkFields = {
  id: ApprovalLinkId,
  accountId: AccountId,
  jobId: JobId,
  jobRevision: JobRevision,
  proposalHash: ProposalHash,
  expiresAt: InstantFromDate,
  createdAt: InstantFromDate
}
const linkColumns = {
  accountId: "account_id",
  jobId: "job_id",
  jobRevision: "job_revision",
  proposalHash: "proposal_hash",
  expiresAt: "expires_at",
  createdAt: "created_at",
  approvalId: "approval_id",
  decidedAt: "decided_at"
} as const
const LinkRow = Schema.Union([
  Schema.Struct({ ...linkFields, approvalId: Schema.Null, decision: Schema.Null, decidedAt: Schema.Null }).pipe(
    Schema.encodeKeys(linkColumns)
  ),
  Schema.Struct({ ...linkFields, approvalId: ApprovalId, decision: Decision, decidedAt: InstantFromDate }).pipe(
    Schema.encodeKeys(linkColumns)
  )
])

const fromRow = (row: typeof LinkRow.Type): StoredLink => ({
  id: row.id,
  accountId: row.accountId,
  jobId: row.jobId,
  jobRevision: row.jobRevision,
  proposalHash: row.proposalHash,
  expiresAt: row.expiresAt,
  createdAt: row.createdAt,
  used: row.approvalId === null
    ? null
    : { approvalId: row.approvalId, decision: row.decision, at: row.decidedAt }
})

/**
 * PostgreSQL (table `approval_links`, docs/API.md, "Approval links"). A link is written in the
 * transaction that appends its `approval_link.created` to the Job; a decision locks the link's row,
 * then its Job's (as a decision through the API does), and marks the link used in the same transaction.
 */
export const layer = Layer.effect(ApprovalLinks)(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const guard = yield* StoreGuard.make("approval links")
  const inTransaction = Transaction.joined(sql)

  const selectLink = SqlSchema.findOneOption({
    Request: Schema.Struct({ tokenHash: Schema.String, forUpdate: Schema.Boolean }),
    Result: LinkRow,
    execute: ({ forUpdate, tokenHash }) =>
      sql`
      SELECT id, account_id, job_id, job_revision, proposal_hash, expires_at, created_at, approval_id, decision, decided_at
      FROM approval_links WHERE token_hash = ${tokenHash}${forUpdate ? sql` FOR UPDATE` : sql``}`
  })

  return yield* make<SqlError | StoreGuard.Unreadable>({
    atomically: (effect) => guard(inTransaction(effect)),
    read: (effect) => guard(effect),
    find: (tokenHash, forUpdate) =>
      Effect.map(selectLink({ tokenHash, forUpdate }), (row) => row.pipe(Option.map(fromRow))),
    insert: (tokenHash, link, createdBy) =>
      sql`
        INSERT INTO approval_links (id, token_hash, account_id, job_id, job_revision, proposal_hash, expires_at,
          created_at, created_by)
        VALUES (${link.id}, ${tokenHash}, ${link.accountId}, ${link.jobId}, ${link.jobRevision},
          ${link.proposalHash}, ${new Date(link.expiresAt)}, ${new Date(link.createdAt)}, ${createdBy})`,
    markUsed: (_, link) =>
      sql`
        UPDATE approval_links SET approval_id = ${link.used.approvalId}, decision = ${link.used.decision},
          decided_at = ${new Date(link.used.at)}
        WHERE id = ${link.id}`
  })
}))
