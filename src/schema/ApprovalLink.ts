import * as Schema from "effect/Schema"
import { Instant, JobId, JobRevision } from "./JobRef.ts"
import { Decision, ProposalHash, reasonMaxLength } from "./Proposal.ts"

/**
 * Approval links (docs/API.md, "Approval links"): a client that should not hold a person's authority
 * asks for a link and hands it to the person, who decides in a browser. The link's token is the only
 * credential of that page: random, stored as its SHA-256, good for one decision on one proposal.
 */

export const ApprovalLinkId = Schema.String.pipe(Schema.brand("ApprovalLinkId"))
export type ApprovalLinkId = typeof ApprovalLinkId.Type

/** `POST /v1/jobs/{id}/approval-links`: the proposal and revision the person will decide on. */
export const ApprovalLinkRequest = Schema.Struct({
  proposalHash: ProposalHash,
  jobRevision: JobRevision
}).annotate({ identifier: "ApprovalLinkRequest" })
export type ApprovalLinkRequest = typeof ApprovalLinkRequest.Type

/** The link, shown once: `url` holds its token, which the service keeps only as a hash. */
export const ApprovalLink = Schema.Struct({
  id: ApprovalLinkId,
  url: Schema.String.annotate({
    description: "`{PUBLIC_URL}/approve/{token}`: the page where a person decides. Shown once; hand it only to "
      + "that person."
  }),
  jobId: JobId,
  jobRevision: JobRevision,
  proposalHash: ProposalHash,
  expiresAt: Instant.annotate({ description: "The proposal's expiresAt: the link decides nothing after it." })
}).annotate({ identifier: "ApprovalLink" })
export type ApprovalLink = typeof ApprovalLink.Type

/** A token as the service issues them: 32 random bytes, base64url. Anything else names no link. */
export const tokenPattern = /^[A-Za-z0-9_-]{43}$/

export const Reason = Schema.String.check(Schema.isMaxCodePoints(reasonMaxLength))

/**
 * `POST /approve/{token}/decision`, as the page's form sends it (or as JSON): the decision, an optional
 * reason, and `form`, the token the page embedded, which proves the decision comes from the page.
 */
export const LinkDecision = Schema.Struct({
  decision: Decision,
  reason: Schema.optionalKey(Reason),
  form: Schema.String
})
export type LinkDecision = typeof LinkDecision.Type
