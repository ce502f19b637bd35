/**
 * Three service processes on one PostgreSQL (a private server), each a runner of the cluster
 * (`RUNNER_ADDRESS`). Fifty Jobs are approved at once, each with `sandbox:slow` (every provider call
 * takes 2 s); one process is killed with SIGKILL while a provider call of its own has done its side
 * effect but not yet answered (seen in the database, not guessed from a sleep), then, once its Jobs
 * have moved, a second. Every Job must reach `completed`, each proposal with exactly one side effect
 * that stands in the sandbox's ledger (jobs.md: "never twice"), the call cut short must be made again
 * with its key, and the Jobs of a killed process must move to the others within 10 s.
 *
 *   npm run test:faults
 */
import pg from "pg"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import * as PrivatePostgres from "../support/PrivatePostgres.ts"
import type { ServiceProcess } from "../support/ServiceProcess.ts"
import { caller, createKey, freePort, kill, sleep, start } from "../support/ServiceProcess.ts"

const jobCount = 50
const failoverWithin = 10_000

interface JobView {
  readonly id: string
  readonly jobRevision: number
  readonly status: string
  readonly proposal: { readonly proposalHash: string } | null
}

type Runner = ServiceProcess & { readonly address: string; readonly role: string }

let database: PrivatePostgres.PrivatePostgres
let db: pg.Client
const services: Array<Runner> = []

beforeAll(async () => {
  database = PrivatePostgres.make()
  db = new pg.Client({ connectionString: database.url })
  await db.connect()
  for (let i = 0; i < 3; i++) {
    // Each process connects as a role of its own (a superuser, as `postgres` is, so that any of them
    // migrates and uses every table): `pg_stat_activity.usename` then says whose a session is, and so
    // which process holds a shard's lock.
    const role = `runner_${i}`
    await db.query(`CREATE ROLE ${role} LOGIN SUPERUSER`)
    const url = new URL(database.url)
    url.username = role
    const address = `127.0.0.1:${await freePort()}`
    services.push({ ...await start({ DATABASE_URL: url.toString(), RUNNER_ADDRESS: address }), address, role })
  }
}, 120_000)

afterAll(async () => {
  await db?.end()
  await Promise.all(services.map((service) => kill(service.child, "SIGKILL")))
  database?.destroy()
})

const alive = () => services.filter((service) => service.child.exitCode === null && service.child.signalCode === null)

/** Each Job's status, read from the database: what any process would answer. */
const statuses = async () => {
  const { rows } = await db.query<{ id: string; status: string }>(`SELECT id, status FROM jobs`)
  return new Map(rows.map((row) => [row.id, row.status]))
}

const until = async (what: string, holds: () => Promise<boolean>, within: number) => {
  const deadline = Date.now() + within
  while (!(await holds())) {
    if (Date.now() > deadline) throw new Error(`not within ${within} ms: ${what}`)
    await sleep(100)
  }
}

/** The shards held now: effect/cluster holds each with a two-key advisory lock on PostgreSQL. */
const heldShards = async () => {
  const { rows: [row] } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 AND granted`
  )
  return row!.n
}

/**
 * The provider calls under way whose side effect is done but not yet answered, each with the role of
 * the process making it. Under `sandbox:slow` an execute call writes its key's ledger row halfway
 * through (after 1 s of its 2 s), and its Job's execution stays `calling` until the call has answered
 * and the answer is recorded. A run is made by the process that holds its shard: the shard of the
 * run's message (`cluster_messages`, entity `Workflow/JobRun`, the run's payload), whose lock
 * effect/cluster takes as the advisory lock (namespace, 1000000 + shard number) on its lock session.
 * Only calls whose row is at most `fresh` ms old: each has at least 1 s − `fresh` still to go, so that
 * the process is killed before it has answered.
 */
const callsInFlight = async (fresh: number) => {
  const { rows } = await db.query<{ role: string; key: string }>(
    `SELECT a.usename AS role, l.key
       FROM sandbox_ledger l
       JOIN jobs j ON j.id = l.job_id
       JOIN cluster_messages m ON m.entity_type = 'Workflow/JobRun' AND m.tag = 'run'
         AND m.payload::json->>'jobId' = j.id
         AND (m.payload::json->>'revision')::int = (j.record::json->'execution'->>'revision')::int
         AND (m.payload::json->>'run')::int = (j.record::json->'execution'->>'run')::int
       JOIN pg_locks k ON k.locktype = 'advisory' AND k.objsubid = 2 AND k.granted
         AND k.objid::bigint = 1000000 + split_part(m.shard_id, ':', 2)::int
       JOIN pg_stat_activity a ON a.pid = k.pid
      WHERE l.effects = 1 AND l.calls = 1 AND l.updated_at > now() - $1 * interval '1 millisecond'
        AND j.record::json->'execution'->>'key' = l.key
        AND j.record::json->'execution'->>'phase' = 'calling'`,
    [fresh]
  )
  return rows
}

/** The executions, by key, whose call is still unanswered in the Job's record (`calling`). */
const stillCalling = async (keys: ReadonlyArray<string>) => {
  const { rows } = await db.query<{ key: string }>(
    `SELECT record::json->'execution'->>'key' AS key FROM jobs
      WHERE record::json->'execution'->>'phase' = 'calling' AND record::json->'execution'->>'key' = ANY($1)`,
    [keys]
  )
  return rows.map((row) => row.key)
}

/**
 * Kills `victim` while Jobs execute and answers how many Jobs were then at work, which of the
 * executions `calling` (keys) it left unanswered in their Jobs' records, and how long after the kill
 * every shard was held again, by the processes left (the failover).
 */
const killWhileExecuting = async (victim: Runner, calling: ReadonlyArray<string> = []) => {
  const shards = await heldShards()
  const atWork = [...(await statuses()).values()].filter((status) => status === "executing" || status === "verifying")
  const killedAt = Date.now()
  await kill(victim.child, "SIGKILL")
  // Once PostgreSQL has ended its sessions, nothing it sent is left to commit; no other process has its
  // shards yet (it is not yet seen gone), so its Jobs' records are as it left them.
  await until("the killed process's sessions ended", async () => {
    const { rows: [row] } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE usename = $1`,
      [victim.role]
    )
    return row!.n === 0
  }, 10_000)
  const cut = await stillCalling(calling)
  // Its locks end with its connections, as soon as PostgreSQL sees them closed.
  await until("the killed process's shards released", async () => (await heldShards()) < shards, 10_000)
  await until("every shard held again", async () => (await heldShards()) >= shards, 60_000)
  return { shards, atWork: atWork.length, cut, failover: Date.now() - killedAt }
}

describe("Jobs on three runners, two of them killed", () => {
  it("completes every Job, with one standing side effect per proposal", { timeout: 300_000 }, async () => {
    const env = { DATABASE_URL: database.url }
    const key = createKey(env, "failover", "jobs:read,jobs:write,approvals:write")
    // Fifty writes at once on a loaded machine may wait out a store operation's 2 s and be answered 503;
    // they are retried as the contract asks (same Idempotency-Key, after Retry-After).
    const call = (service: ServiceProcess) => caller(service.base, key, { retryUnavailable: 3 })

    // Fifty Jobs created through the three processes, each planned to a proposal.
    const created = await Promise.all(
      Array.from({ length: jobCount }, (_, i) =>
        call(services[i % 3]!)<JobView>("POST", "/v1/jobs", {
          request: `Book a table for ${2 + (i % 5)} at an Italian restaurant in Lisbon on 4 December 2026 at 8pm`,
          constraints: [
            { type: "budget", max: { amount: "400.00", currency: "EUR" } },
            { type: "note", text: "sandbox:slow" }
          ]
        }))
    )
    await until(
      "every Job presents a proposal",
      async () => [...(await statuses()).values()].every((status) => status === "awaiting_approval"),
      60_000
    )

    // Approved at once, through every process.
    const jobs = await Promise.all(created.map((job) => call(services[0]!)<JobView>("GET", `/v1/jobs/${job.id}`)))
    await Promise.all(jobs.map((job, i) =>
      call(services[i % 3]!)("POST", `/v1/jobs/${job.id}/approvals`, {
        proposalHash: job.proposal!.proposalHash,
        jobRevision: job.jobRevision,
        decision: "approve"
      })
    ))
    const started = Date.now()

    // The first kill while the approved Jobs execute: the process whose calls are, the most of them, at
    // their side effect done and unanswered, then and there (a kill chosen by a sleep may find its
    // victim's calls all before their side effect, or all answered). The second as soon as the survivors
    // hold the first one's shards (its Jobs then begin again, some on the second).
    let caught: ReadonlyArray<{ readonly role: string; readonly key: string }> = []
    await until("a call under way with its side effect done", async () => {
      caught = await callsInFlight(300)
      return caught.length > 0
    }, 60_000)
    const counts = new Map<string, number>()
    for (const { role } of caught) counts.set(role, (counts.get(role) ?? 0) + 1)
    const victim = [...counts].sort(([, a], [, b]) => b - a)[0]![0]
    const firstVictim = services.find((service) => service.role === victim)!
    // Its calls left unanswered in their Jobs' records must be made again, with their keys, by the
    // processes that take its Jobs over.
    const first = await killWhileExecuting(
      firstVictim,
      caught.filter(({ role }) => role === victim).map(({ key }) => key)
    )
    const { cut } = first
    const secondVictim = alive()[0]!
    const second = await killWhileExecuting(secondVictim)

    await until(
      "every Job completed",
      async () => [...(await statuses()).values()].every((status) => status === "completed"),
      120_000
    )
    const finished = Date.now() - started

    // Per proposal: how many executions began, and what stands in the ledger.
    const { rows: executions } = await db.query<{ hash: string; n: number }>(
      `SELECT data::json->>'proposalHash' AS hash, count(*)::int AS n FROM job_events
        WHERE type = 'execution.started' GROUP BY 1`
    )
    const { rows: ledger } = await db.query<{ hash: string; effects: number; standing: number; calls: number }>(
      `SELECT proposal_hash AS hash, sum(effects)::int AS effects, sum(calls)::int AS calls,
        count(*) FILTER (WHERE effects = 1 AND state <> 'compensated')::int AS standing
        FROM sandbox_ledger GROUP BY 1`
    )
    const histogram = (values: ReadonlyArray<number>) =>
      [...values.reduce((counts, n) => counts.set(n, (counts.get(n) ?? 0) + 1), new Map<number, number>())]
        .sort(([a], [b]) => a - b).map(([n, count]) => `${count}×${n}`).join(", ")
    console.log(
      `three runners: ${jobCount} Jobs approved at once with sandbox:slow; `
        + `killed ${firstVictim.address} (${firstVictim.role}) with ${first.atWork} Jobs at work and ${cut.length} calls cut short `
        + `after their side effect: its shards held again (${first.shards}) `
        + `after ${first.failover} ms; then ${secondVictim.address} (${secondVictim.role}) with ${second.atWork} at work: after `
        + `${second.failover} ms; `
        + `all completed ${finished} ms after the approvals on ${alive().map((service) => service.address)}; `
        + `executions begun per proposal: ${histogram(executions.map((row) => row.n))}; `
        + `standing side effects per proposal: ${histogram(ledger.map((row) => row.standing))}; `
        + `provider calls per proposal: ${histogram(ledger.map((row) => row.calls))}`
    )

    assert.strictEqual(ledger.length, jobCount)
    for (const row of ledger) assert.strictEqual(row.standing, 1, row.hash)
    // The killed process's calls had done their effect when it died: each was made again, with its key.
    assert.isTrue(ledger.some((row) => row.calls > 2), "no execution was called again after a kill")
    // A key's calls are every request that carried it and reached its ledger row: its execute, then its
    // verification's inspect, 2 for an execution no kill touched. A kill before the execute's side effect
    // leaves no row (the call made again is the first), one after its answer was recorded leaves the
    // verification to do: 2 still (3 only if its inspect was counted just before the kill). A
    // kill after the side effect, before the answer was recorded: the step is run again, its execute made
    // again with its key (2; the ledger answers with the effect done, none performed), then verified (3).
    assert.isNotEmpty(cut, "the first kill cut no call short after its side effect")
    const calls = new Map(
      (await db.query<{ key: string; calls: number }>(`SELECT key, calls FROM sandbox_ledger`)).rows
        .map((row) => [row.key, row.calls])
    )
    for (const key of cut) assert.isAbove(calls.get(key) ?? 0, 2, key)
    for (const kill of [first, second]) {
      assert.isAbove(kill.atWork, 0)
      assert.isAtMost(kill.failover, failoverWithin)
    }
  })
})
