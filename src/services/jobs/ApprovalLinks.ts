import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { randomBytes } from "node:crypto"
import type { AccountId, ApiKeyId, Principal } from "../../schema/ApiKey.ts"
import type { ApprovalLinkId, ApprovalLinkRequest } from "../../schema/ApprovalLink.ts"
import { tokenPattern } from "../../schema/ApprovalLink.ts"
import type { Unavailable } from "../../schema/Errors.ts"
import type { JobId } from "../../schema/JobRef.ts"
import type { Approval as Decided } from "../../schema/Proposal.ts"
import type { ApprovalId, Decision, ProposalHash } from "../../schema/Proposal.ts"
import { sha256Hex } from "../text/Sha256.ts"
import { recordDecision } from "./Jobs.ts"
import * as JobStore from "./JobStore.ts"
import type { DecisionError } from "./rules/Approval.ts"
import * as Approval from "./rules/Approval.ts"
import { UnknownJob, WrongState } from "./rules/JobErrors.ts"
import type { Change } from "./rules/JobRecord.ts"

/** A link as the service keeps it: never its token, which only its holder has. */
export interface StoredLink {
  readonly id: ApprovalLinkId
  readonly accountId: AccountId
  readonly jobId: JobId
  readonly jobRevision: number
  readonly proposalHash: ProposalHash
  readonly expiresAt: string
  readonly createdAt: string
  /** The decision made through it, once. */
  readonly used: { readonly approvalId: ApprovalId; readonly decision: Decision; readonly at: string } | null
}

/** A link once it has decided. */
export type UsedLink = StoredLink & { readonly used: NonNullable<StoredLink["used"]> }

/** A new link and its token, which is never stored and never shown again. */
export interface IssuedLink {
  readonly link: StoredLink
  readonly token: Redacted.Redacted<string>
}

export interface LinkDecisionInput {
  readonly decision: Decision
  readonly reason?: string | undefined
}

/**
 * Approval links (docs/API.md, "Approval links"): a holder of `approvals:write` hands its authority over
 * one proposal to a person, as a link. A link is created under the same checks as a decision, and its
 * creation is an event of the Job; its token is 256 random bits, kept only as its SHA-256, and bound to
 * one account, Job, revision and proposal hash. It decides once, under the checks of any decision (so
 * not after the proposal's `expiresAt`, nor once the Job has moved on), as `decidedBy: "link:{id}"`.
 */
export class ApprovalLinks extends Context.Service<ApprovalLinks, {
  readonly create: (
    principal: Principal,
    jobId: JobId,
    input: ApprovalLinkRequest
  ) => Effect.Effect<IssuedLink, UnknownJob | DecisionError | Unavailable>
  /** The link a token names, if any. */
  readonly resolve: (token: string) => Effect.Effect<Option.Option<StoredLink>, Unavailable>
  /** Records the decision of the link's holder: `UnknownJob` for a token that names no link. */
  readonly decide: (
    token: string,
    input: LinkDecisionInput
  ) => Effect.Effect<Decided, UnknownJob | DecisionError | Unavailable>
}>()("ApprovalLinks") {}

const newToken = () => randomBytes(32).toString("base64url")
const newLinkId = () => `apl_${randomBytes(12).toString("hex")}` as ApprovalLinkId

/** What is stored of a token: its SHA-256, as hex. */
export const hashOfToken = sha256Hex

const unknownLink = new UnknownJob({ message: "This link is not one the service gave." })

const usedLink = (link: StoredLink) =>
  new WrongState({
    message: `This link was used already (${link.used?.decision === "approve" ? "approved" : "rejected"}); `
      + "the first decision stands."
  })

/** The link a creation made: it lasts as long as the proposal it names. */
const linkOf = (principal: Principal, id: ApprovalLinkId, change: Change, input: ApprovalLinkRequest): StoredLink => ({
  id,
  accountId: principal.accountId,
  jobId: change.record.id,
  jobRevision: input.jobRevision,
  proposalHash: input.proposalHash,
  expiresAt: change.record.proposal!.document.expiresAt,
  createdAt: change.record.updatedAt,
  used: null
})

/** The decision of a link, on its Job: a decision like any other, as `link:{id}`. */
const decideOn = (store: JobStore.JobStore["Service"], link: StoredLink, input: LinkDecisionInput) =>
  recordDecision(store, link.accountId, link.jobId, {
    proposalHash: link.proposalHash,
    jobRevision: link.jobRevision,
    decision: input.decision,
    ...(input.reason === undefined ? {} : { reason: input.reason })
  }, `link:${link.id}`)

/**
 * Where a store keeps links: all the two layers differ in. `X` is the store's own failure, which
 * `atomically` and `read` answer as `Unavailable`.
 */
export interface LinkRows<X> {
  /** A creation or a decision as one: a transaction on PostgreSQL, one at a time in memory. */
  readonly atomically: <A>(
    effect: Effect.Effect<A, UnknownJob | DecisionError | Unavailable | X>
  ) => Effect.Effect<A, UnknownJob | DecisionError | Unavailable>
  /** A read on its own. */
  readonly read: <A>(effect: Effect.Effect<A, Unavailable | X>) => Effect.Effect<A, Unavailable>
  /** The link a token's hash names; locked until the end of `atomically` when `forUpdate`. */
  readonly find: (tokenHash: string, forUpdate: boolean) => Effect.Effect<Option.Option<StoredLink>, X>
  readonly insert: (tokenHash: string, link: StoredLink, createdBy: ApiKeyId) => Effect.Effect<void, X>
  /** Keeps the link as used, by the decision in its `used`. */
  readonly markUsed: (tokenHash: string, link: UsedLink) => Effect.Effect<void, X>
}

/** The service over a store's rows: each step of a creation and of a decision, written once for both. */
export const make = <X>(rows: LinkRows<X>) =>
  Effect.gen(function*() {
    const store = yield* JobStore.JobStore
    return ApprovalLinks.of({
      create: (principal, jobId, input) =>
        rows.atomically(Effect.gen(function*() {
          const id = newLinkId()
          const token = newToken()
          const change = yield* store.mutate(
            principal.accountId,
            jobId,
            (record, now) => Approval.linkCreated(record, input, id, now)
          )
          const link = linkOf(principal, id, change, input)
          yield* rows.insert(hashOfToken(token), link, principal.keyId)
          return { link, token: Redacted.make(token) }
        })),
      resolve: (token) =>
        tokenPattern.test(token) ? rows.read(rows.find(hashOfToken(token), false)) : Effect.succeed(Option.none()),
      decide: (token, input) =>
        tokenPattern.test(token)
          ? rows.atomically(Effect.gen(function*() {
            const found = yield* rows.find(hashOfToken(token), true)
            if (Option.isNone(found)) return yield* Effect.fail(unknownLink)
            const link = found.value
            if (link.used !== null) return yield* Effect.fail(usedLink(link))
            const approval = yield* decideOn(store, link, input)
            const used = { approvalId: approval.id, decision: approval.decision, at: approval.createdAt }
            yield* rows.markUsed(hashOfToken(token), { ...link, used })
            return approval
          }))
          : Effect.fail(unknownLink)
    })
  })
