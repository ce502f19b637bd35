import { assert } from "@effect/vitest"
import { Context, Effect, Exit, Option } from "effect"
import type { AccountId, ApiKeyId, Principal } from "../../src/schema/ApiKey.ts"
import type { Job, JobId } from "../../src/schema/Job.ts"
import type { JobEvent } from "../../src/schema/JobEvent.ts"
import { Jobs } from "../../src/services/jobs/Jobs.ts"
import { JobStore } from "../../src/services/jobs/JobStore.ts"
import { Proposals } from "../../src/services/jobs/Proposals.ts"
import type { JobRecord } from "../../src/services/jobs/rules/JobRecord.ts"
import { SandboxLedger } from "../../src/services/providers/Sandbox.ts"
import type { Harness } from "./Harness.ts"
import { CancelCalls } from "./Harness.ts"
import type { JobModel, Prediction } from "./Model.ts"
import { checkCancels, checkLedger, nameOf, runnerWork, working } from "./Model.ts"

/**
 * What every command of the model does with the services: call one, expect a refusal that changes
 * nothing, or a change whose events and runner's work the model predicts, then wait for the runner
 * (woken by commits, not by polling) and hold the Job, its record and its ledger to the prediction.
 */

export interface Tally {
  commands: number
  restarts: number
  races: number
  faults: number
  refusals: number
}

export interface Model {
  readonly jobs: Array<JobModel>
  /** How many of each Job's events the model has checked. */
  readonly seen: Map<string, number>
}

export interface Real {
  readonly harness: Harness
  readonly jobs: Jobs["Service"]
  readonly proposals: Proposals["Service"]
  readonly store: JobStore["Service"]
  readonly ledger: SandboxLedger["Service"]
  /** Every `cancel` the runner sent, by key. */
  readonly cancels: ReadonlyMap<string, number>
  /** Jobs whose runner was restarted while it worked: a call may then have been made again, or had no record. */
  readonly interrupted: Set<string>
  readonly accountId: AccountId
  readonly principal: Principal
  readonly tally: Tally
}

/** The account's view of the harness's services, with a key that may do everything. */
export const realFor = (harness: Harness, accountId: AccountId, tally: Tally): Real => ({
  harness,
  jobs: Context.get(harness.services, Jobs),
  proposals: Context.get(harness.services, Proposals),
  store: Context.get(harness.services, JobStore),
  ledger: Context.get(harness.services, SandboxLedger),
  cancels: Context.get(harness.services, CancelCalls),
  interrupted: new Set(),
  accountId,
  principal: {
    accountId,
    keyId: `key_${accountId}` as ApiKeyId,
    scopes: new Set(["jobs:read", "jobs:write", "approvals:write"])
  },
  tally
})

export const run = <A, E>(effect: Effect.Effect<A, E>): Promise<A> => Effect.runPromise(effect)

export const attempt = <A, E>(effect: Effect.Effect<A, E>) => run(Effect.exit(effect))

export const pick = <A>(items: ReadonlyArray<A>, n: number) => items[n % items.length]!

export const replace = (model: Model, job: JobModel) => {
  model.jobs[model.jobs.findIndex((candidate) => candidate.id === job.id)] = job
}

export const view = (real: Real, id: JobId) => run(real.jobs.get(real.accountId, id))

export const eventsOf = (real: Real, id: JobId): Promise<ReadonlyArray<JobEvent>> =>
  run(real.jobs.events(real.accountId, id))

export const recordOf = (real: Real, id: JobId): Promise<JobRecord> => run(real.store.find(real.accountId, id))

const latestPosition = (real: Real) => run(real.jobs.latestPosition(real.accountId))

export const settled = (real: Real, ids: ReadonlyArray<JobId>) => run(real.harness.settled(real.accountId, ids))

/** What the Job and the account look like before a command, to show that a refusal changed nothing. */
export const before = async (real: Real, id: JobId) => ({
  job: await view(real, id),
  position: await latestPosition(real)
})

const tagOf = (exit: Exit.Exit<unknown, unknown>) =>
  Exit.isFailure(exit)
    ? (Option.getOrUndefined(Exit.findErrorOption(exit)) as { readonly _tag?: string } | undefined)?._tag
    : "success"

/** A refused command: the domain's error, and nothing changed, in the Job or in the account's history. */
export const expectRefused = async (
  real: Real,
  exit: Exit.Exit<unknown, unknown>,
  tag: string,
  then: { readonly job: Job; readonly position: number }
) => {
  assert.strictEqual(tagOf(exit), tag, String(exit))
  assert.deepStrictEqual(await view(real, then.job.id), then.job, "a refused command changes nothing")
  assert.strictEqual(await latestPosition(real), then.position, "a refused command appends nothing")
  real.tally.refusals++
}

export const expectSuccess = <A>(exit: Exit.Exit<A, unknown>): A => {
  if (Exit.isFailure(exit)) assert.fail(`expected a success: ${String(exit.cause)}`)
  return exit.value
}

/** What the model predicts of the runner's work for a Job it left in `job`'s state (nothing while it waits). */
export const predict = (job: JobModel): Prediction =>
  working.includes(job.status) ? runnerWork(job) : { events: [], job }

/** The model's Job as the store has it (the hash of a proposal is the store's to choose). */
export const fromRecord = (job: JobModel, record: JobRecord): JobModel => ({
  ...job,
  revision: record.revision,
  status: record.status,
  notes: record.callerConstraints.map((constraint) => constraint.type === "note" ? constraint.text : constraint.type),
  answered: record.answers.map((answer) => answer.questionId),
  open: record.status === "awaiting_input" ? record.questions.map((question) => question.id) : [],
  proposal: record.proposal?.hash ?? null,
  decided: record.decided,
  excluded: record.excludedOffers.length
})

export const comparable = (job: JobModel) => ({
  ...job,
  open: job.status === "awaiting_input" ? job.open : [],
  notes: [...job.notes].sort(),
  answered: [...job.answered].sort(),
  proposal: null
})

/** The Job's new events since the model last looked, by name. */
export const newEvents = async (real: Real, model: Model, id: JobId) =>
  (await eventsOf(real, id)).slice(model.seen.get(id) ?? 0)

/**
 * Once the runner has no work left for the Job: its view, its point-in-time view, its record and its
 * ledger, checked against the design (the ledger) and each other; the model then takes the Job as the
 * store has it.
 */
export const observe = async (real: Real, model: Model, id: JobId) => {
  await settled(real, [id])
  const events = await eventsOf(real, id)
  const job = await view(real, id)
  const record = await recordOf(real, id)
  const entries = await run(real.ledger.entries(id))
  checkLedger(job, events, entries)
  checkCancels(events, entries, real.cancels, !real.interrupted.has(id))
  assert.deepStrictEqual(
    [job.jobRevision, job.status, job.questions.map((question) => question.id)],
    [record.revision, record.status, record.questions.map((question) => question.id)]
  )
  // The point-in-time view after the last event (a snapshot and the fold of the events since) is the Job.
  const { asOf, ...then } = await run(
    real.jobs.view(real.accountId, id, { _tag: "Position", position: events.at(-1)!.position })
  )
  assert.deepStrictEqual(then, job, "the Job as its events tell it")
  assert.deepStrictEqual(asOf, { jobRevision: job.jobRevision, position: events.at(-1)!.position })
  if (job.status === "completed") assert.strictEqual(job.proposal?.status, "approved")
  else assert.isNull(job.outcome, "an Outcome only when completed")
  if (job.status === "awaiting_approval") assert.strictEqual(job.proposal?.status, "open")
  else assert.notStrictEqual(job.proposal?.status, "open", "a proposal is open only while it waits for a decision")
  return { events, job, record, fresh: events.slice(model.seen.get(id) ?? 0) }
}

/**
 * A change the model predicts: its own events (`immediate`), then the runner's work as `runnerWork`
 * predicts it, the Job settled where the model says, with every member the model keeps.
 */
export const expectChange = async (
  real: Real,
  model: Model,
  after: JobModel,
  immediate: ReadonlyArray<string>,
  compared: (names: ReadonlyArray<string>) => ReadonlyArray<string> = (names) => names
) => {
  const predicted = predict(after)
  const seen = await observe(real, model, after.id)
  assert.deepStrictEqual(
    compared(seen.fresh.map(nameOf)),
    compared([...immediate, ...predicted.events]),
    `the events of ${after.id} from ${JSON.stringify(after)}`
  )
  const actual = fromRecord(predicted.job, seen.record)
  assert.deepStrictEqual(comparable(actual), comparable(predicted.job), `${after.id} as the model has it`)
  replace(model, actual)
  model.seen.set(after.id, seen.events.length)
}
