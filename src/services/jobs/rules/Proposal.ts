import * as Schema from "effect/Schema"
import { questionId } from "../../../schema/Constraint.ts"
import type { JobStatus } from "../../../schema/Job.ts"
import { atMost, isZero } from "../../../schema/Money.ts"
import type { ProposalHash } from "../../../schema/Proposal.ts"
import { ProposalDocument } from "../../../schema/Proposal.ts"
import type { Quote } from "../../providers/Provider.ts"
import { canonicalJson } from "../../text/CanonicalJson.ts"
import { sha256Hex } from "../../text/Sha256.ts"
import type { Change, JobRecord, RunRef } from "./JobRecord.ts"
import { at, isCurrent, noChange, step } from "./JobRecord.ts"

/**
 * The rules of a Job's work after its interpretation (docs/API.md, "Proposals, approvals,
 * execution"), as pure functions from a Job to the Job after a step and the events that say so, like
 * `Revision`'s. Every event that moves the Job carries its new `status`, so the fold of the events
 * gives the Job.
 */

/** A quote fits when no budget of the revision is exceeded (same currency, never above `max`). */
export const fits = (record: JobRecord, quote: Quote) =>
  [...record.callerConstraints, ...record.interpretedConstraints].every((constraint) =>
    constraint.type !== "budget" || atMost(quote.price, constraint.max)
  )

export const hashOf = (bytes: string): ProposalHash => `sha256:${sha256Hex(bytes)}` as ProposalHash

/** The RFC 8785 canonical form of a document, the exact text a proposal hash names. */
export const canonicalBytes = (document: ProposalDocument): string => canonicalJson(document)

export interface Planned {
  readonly provider: string
  readonly quotes: ReadonlyArray<Quote>
  readonly ttlMillis: number
}

/** What the API can show: a proposal is stored only when its document encodes as the API sends it. */
const isShowable = Schema.is(ProposalDocument)

/** The proposal of the first quote that fits, was not excluded, and can be shown exactly. */
const firstProposal = (record: JobRecord, planned: Planned, now: string) => {
  for (const quote of planned.quotes) {
    if (record.excludedOffers.includes(quote.offer.id) || !fits(record, quote)) continue
    const document: ProposalDocument = {
      jobId: record.id,
      jobRevision: record.revision,
      provider: planned.provider,
      offer: quote.offer,
      spend: quote.price,
      terms: quote.terms,
      objective: record.objective!,
      constraints: [...record.callerConstraints, ...record.interpretedConstraints],
      createdAt: now,
      expiresAt: new Date(Date.parse(now) + planned.ttlMillis).toISOString()
    }
    // A provider's offer the contract cannot carry (an amount of 16 digits, say) is no offer.
    if (isShowable(document)) return { quote, document }
  }
  return undefined
}

/**
 * Presents the first quote that fits and was not excluded, as an immutable proposal; one that costs
 * nothing and whose cancellation costs nothing needs no authority and executes at once. No quote left:
 * the Job asks the User (recovery `ask` when offers were excluded).
 */
export const present = (record: JobRecord, ref: RunRef, planned: Planned, now: string): Change => {
  if (!isCurrent(record, ref) || record.status !== "planning" || record.objective === null) return noChange(record)
  const found = firstProposal(record, planned, now)
  if (found === undefined) {
    const question = {
      id: questionId("offers"),
      text: record.excludedOffers.length === 0
        ? "No offer can be had for this request as it stands. Change its constraints (a larger budget, another day or place), or tell us what to relax."
        : "No offer is left for this request: the others were declined or could not be carried out. Change its constraints, or tell us what to relax.",
      about: "offers" as const
    }
    return {
      record: at(record, now, { status: "awaiting_input", questions: [question] }),
      events: [
        ...(record.excludedOffers.length === 0 ? [] : [step("ask", "awaiting_input")]),
        {
          type: "job.input_requested",
          data: { objective: record.objective, constraints: record.interpretedConstraints, questions: [question] }
        }
      ]
    }
  }
  const { document, quote } = found
  const bytes = canonicalBytes(document)
  const hash = hashOf(bytes)
  const free = isZero(quote.price) && isZero(quote.terms.cancellationFee)
  const status: JobStatus = free ? "executing" : "awaiting_approval"
  const proposalStatus = free ? "approved" : "open"
  return {
    record: at(record, now, { status, proposal: { hash, status: proposalStatus, document } }),
    events: [{
      type: "proposal.presented",
      data: {
        proposalHash: hash,
        spend: document.spend,
        expiresAt: document.expiresAt,
        needsApproval: !free,
        proposalStatus,
        document,
        status
      }
    }],
    proposal: { hash, bytes, createdAt: now }
  }
}

export const expired = (record: JobRecord, now: string) =>
  record.proposal !== null && Date.parse(now) >= Date.parse(record.proposal.document.expiresAt)

/** An open proposal past its `expiresAt`: superseded as `expired`, and the Job plans again (a new run). */
export const expire = (record: JobRecord, now: string): Change => {
  if (record.status !== "awaiting_approval" || record.proposal?.status !== "open" || !expired(record, now)) {
    return noChange(record)
  }
  return {
    record: at(record, now, {
      status: "planning",
      proposal: { ...record.proposal, status: "expired" },
      run: record.run + 1
    }),
    events: [{
      type: "proposal.superseded",
      data: { proposalHash: record.proposal.hash, reason: "expired", proposalStatus: "expired", status: "planning" }
    }]
  }
}
