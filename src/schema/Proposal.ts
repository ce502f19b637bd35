import * as Schema from "effect/Schema"
import { Constraint, Objective } from "./Constraint.ts"
import { Instant, JobId, JobRevision } from "./JobRef.ts"
import { Money } from "./Money.ts"

/** `sha256:` and the lowercase hex SHA-256 of a proposal's canonical (RFC 8785) bytes. */
export const ProposalHash = Schema.String.check(
  Schema.isPattern(/^sha256:[0-9a-f]{64}$/u, { expected: "a proposal hash: sha256: and 64 lowercase hex digits" })
).pipe(Schema.brand("ProposalHash")).annotate({ identifier: "ProposalHash" })
export type ProposalHash = typeof ProposalHash.Type

/** What a provider offers to do, as a proposal names it. */
export const Offer = Schema.Struct({
  id: Schema.String,
  title: Schema.String,
  details: Schema.Record(Schema.String, Schema.Unknown)
}).annotate({ identifier: "Offer" })
export type Offer = typeof Offer.Type

export const Terms = Schema.Struct({
  cancellable: Schema.Boolean,
  cancellationFee: Money
}).annotate({ identifier: "Terms" })
export type Terms = typeof Terms.Type

/**
 * What the service will do with authority, complete and immutable: stored once as its canonical bytes,
 * which `proposalHash` names. `spend` is the most execution may spend; `constraints` are the revision's
 * constraints the offer satisfies.
 */
export const ProposalDocument = Schema.Struct({
  jobId: JobId,
  jobRevision: JobRevision,
  provider: Schema.String,
  offer: Offer,
  spend: Money,
  terms: Terms,
  objective: Objective,
  constraints: Schema.Array(Constraint),
  createdAt: Instant,
  expiresAt: Instant
}).annotate({ identifier: "ProposalDocument" })
export type ProposalDocument = typeof ProposalDocument.Type

export const proposalStatuses = ["open", "approved", "rejected", "superseded", "expired"] as const
export const ProposalStatus = Schema.Literals(proposalStatuses).annotate({ identifier: "ProposalStatus" })
export type ProposalStatus = typeof ProposalStatus.Type

/** The Job's `proposal` member: the current revision's latest proposal. */
export const JobProposal = Schema.Struct({
  proposalHash: ProposalHash,
  status: ProposalStatus,
  document: ProposalDocument
}).annotate({ identifier: "JobProposal" })
export type JobProposal = typeof JobProposal.Type

/** What verification found: only a verified execution has one. `evidence` is what `inspect` answered. */
export const Outcome = Schema.Struct({
  provider: Schema.String,
  reference: Schema.String,
  spent: Money,
  verifiedAt: Instant,
  evidence: Schema.Record(Schema.String, Schema.Unknown)
}).annotate({ identifier: "Outcome" })
export type Outcome = typeof Outcome.Type

export const Decision = Schema.Literals(["approve", "reject"]).annotate({ identifier: "Decision" })
export type Decision = typeof Decision.Type

export const reasonMaxLength = 1000

export const ApprovalId = Schema.String.pipe(Schema.brand("ApprovalId"))
export type ApprovalId = typeof ApprovalId.Type

export const ApprovalRequest = Schema.Struct({
  proposalHash: ProposalHash,
  jobRevision: JobRevision,
  decision: Decision,
  reason: Schema.optionalKey(
    Schema.String.check(Schema.isMaxCodePoints(reasonMaxLength)).annotate({
      description: "Why, for the record: at most 1,000 characters."
    })
  )
}).annotate({ identifier: "ApprovalRequest" })
export type ApprovalRequest = typeof ApprovalRequest.Type

/** A decision on one proposal of one revision, recorded once; `decidedBy` is the key's id. */
export const Approval = Schema.Struct({
  id: ApprovalId,
  jobId: JobId,
  jobRevision: JobRevision,
  proposalHash: ProposalHash,
  decision: Decision,
  reason: Schema.NullOr(Schema.String),
  decidedBy: Schema.String,
  createdAt: Instant
}).annotate({ identifier: "Approval" })
export type Approval = typeof Approval.Type
