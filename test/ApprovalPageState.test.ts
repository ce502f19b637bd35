import { assert, describe, it } from "@effect/vitest"
import { stateOf } from "../src/http/ApprovalPageHtml.ts"
import type { LinkState } from "../src/http/ApprovalPageHtml.ts"
import type { Job } from "../src/schema/Job.ts"
import type { JobEvent } from "../src/schema/JobEvent.ts"
import type { ProposalHash, ProposalStatus } from "../src/schema/Proposal.ts"
import type { StoredLink } from "../src/services/jobs/ApprovalLinks.ts"

/**
 * What an approval page says its link can do, from the Job, its history and the clock. The history a
 * page reads may lag the Job it reads (an event shows once no commit before it is still open): whatever
 * part of the newest events it has not seen yet, the page says what the whole history says.
 */

const created = Date.parse("2026-11-27T10:00:00.000Z")
const expiresAt = "2026-11-27T10:15:00.000Z"
const before = Date.parse(expiresAt) - 1
const after = Date.parse(expiresAt) + 1

const linked = "a".repeat(64) as ProposalHash
const next = "b".repeat(64) as ProposalHash

const link: StoredLink = {
  id: "apl_1" as StoredLink["id"],
  accountId: "acct_1" as StoredLink["accountId"],
  jobId: "job_1" as StoredLink["jobId"],
  jobRevision: 1,
  proposalHash: linked,
  expiresAt,
  createdAt: new Date(created).toISOString(),
  used: null
}

/** The Job as `stateOf` reads it: its revision, status and current proposal. */
const job = (
  status: Job["status"],
  proposal: { readonly hash: ProposalHash; readonly status: ProposalStatus } | null,
  jobRevision = 1
) =>
  ({
    id: link.jobId,
    jobRevision,
    status,
    proposal: proposal === null ? null : { proposalHash: proposal.hash, status: proposal.status }
  }) as unknown as Job

let position = 0
const event = (type: string, data: Record<string, unknown>, jobRevision = 1): JobEvent =>
  ({ position: ++position, jobId: link.jobId, jobRevision, type, data, occurredAt: expiresAt }) as JobEvent

const open = [
  event("proposal.presented", { proposalHash: linked }),
  event("approval_link.created", { proposalHash: linked })
]

interface Case {
  readonly name: string
  readonly job: Job
  /** The events after the link was made, newest last. */
  readonly since: ReadonlyArray<JobEvent>
  readonly now: number
  readonly state: LinkState
}

const cases: ReadonlyArray<Case> = [
  {
    name: "open, before its expiry",
    job: job("awaiting_approval", { hash: linked, status: "open" }),
    since: [],
    now: before,
    state: { _tag: "Open" }
  },
  {
    name: "open past its expiry, before the sweep",
    job: job("awaiting_approval", { hash: linked, status: "open" }),
    since: [],
    now: after,
    state: { _tag: "Expired" }
  },
  {
    name: "expired by the sweep, planning again",
    job: job("planning", { hash: linked, status: "expired" }),
    since: [event("proposal.superseded", { proposalHash: linked, reason: "expired" })],
    now: after,
    state: { _tag: "Expired" }
  },
  {
    name: "expired, and a new proposal presented",
    job: job("awaiting_approval", { hash: next, status: "open" }),
    since: [
      event("proposal.superseded", { proposalHash: linked, reason: "expired" }),
      event("proposal.presented", { proposalHash: next })
    ],
    now: after,
    state: { _tag: "Expired" }
  },
  {
    name: "approved through the API",
    job: job("executing", { hash: linked, status: "approved" }),
    since: [event("approval.recorded", { proposalHash: linked, decision: "approve" })],
    now: before,
    state: { _tag: "Decided", decision: "approve", here: false }
  },
  {
    name: "rejected through the API, not planned again yet",
    job: job("planning", { hash: linked, status: "rejected" }),
    since: [
      event("approval.recorded", { proposalHash: linked, decision: "reject" }),
      event("proposal.superseded", { proposalHash: linked, reason: "rejected" })
    ],
    now: before,
    state: { _tag: "Decided", decision: "reject", here: false }
  },
  {
    name: "revised",
    job: job("planning", null, 2),
    since: [event("proposal.superseded", { proposalHash: linked, reason: "revised" }, 2)],
    now: before,
    state: {
      _tag: "Superseded",
      why: "The request changed after this link was made, so this proposal no longer applies."
    }
  },
  {
    name: "cancelled",
    job: job("cancelled", { hash: linked, status: "superseded" }),
    since: [event("job.cancelled", {})],
    now: before,
    state: { _tag: "Superseded", why: "The request was cancelled." }
  }
]

describe("the approval page's state of a link", () => {
  for (const { job, name, now, since, state } of cases) {
    it(`${name}: the same whichever of the newest events the page has seen`, () => {
      for (let seen = since.length; seen >= 0; seen--) {
        assert.deepStrictEqual(stateOf(link, job, [...open, ...since.slice(0, seen)], now), state, `${seen} seen`)
      }
    })
  }

  it("a decision through the link is this page's, whatever else the history says", () => {
    const used = { ...link, used: { approvalId: "apr_1" as never, decision: "approve" as const, at: expiresAt } }
    assert.deepStrictEqual(stateOf(used, job("executing", { hash: linked, status: "approved" }), open, after), {
      _tag: "Decided",
      decision: "approve",
      here: true
    })
  })
})
