/**
 * Three service processes on one PostgreSQL (a private server), each a runner of the cluster
 * (`RUNNER_ADDRESS`). Fifty Jobs are approved at once, each with `sandbox:slow` (every provider call
 * takes 2 s); one process is killed with SIGKILL while it executes, then, once its Jobs have moved, a
 * second. Every Job must reach `completed`, each proposal with exactly one side effect that stands in
 * the sandbox's ledger (jobs.md: "never twice"), and the Jobs of a killed process must move to the
 * others within 10 s.
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
 * Kills `victim` while Jobs execute and answers how many Jobs were then at work and how long after the
 * kill every shard was held again, by the processes left (the failover).
 */
const killWhileExecuting = async (victim: Runner) => {
  const shards = await heldShards()
  const atWork = [...(await statuses()).values()].filter((status) => status === "executing" || status === "verifying")
  const killedAt = Date.now()
  await kill(victim.child, "SIGKILL")
  // Its locks end with its connections, as soon as PostgreSQL sees them closed.
  await until("the killed process's shards released", async () => (await heldShards()) < shards, 10_000)
  await until("every shard held again", async () => (await heldShards()) >= shards, 60_000)
  return { shards, atWork: atWork.length, failover: Date.now() - killedAt }
}

describe("Jobs on three runners, two of them killed", () => {
  it("completes every Job, with one standing side effect per proposal", { timeout: 300_000 }, async () => {
    const env = { DATABASE_URL: database.url }
    const key = createKey(env, "failover", "jobs:read,jobs:write,approvals:write")
    const call = (service: ServiceProcess) => caller(service.base, key)

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

    // The first kill while the approved Jobs execute (their first call is under way), the second as soon
    // as the survivors hold the first one's shards (its Jobs then begin again, some on the second).
    await until("executions under way", async () => {
      const { rows: [row] } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM sandbox_ledger`)
      return row!.n > 0
    }, 30_000)
    await sleep(500)
    const first = await killWhileExecuting(services[0]!)
    const second = await killWhileExecuting(services[1]!)

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
        + `killed ${services[0]!.address} with ${first.atWork} Jobs at work: its shards held again (${first.shards}) `
        + `after ${first.failover} ms; then ${services[1]!.address} with ${second.atWork} at work: after `
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
    for (const kill of [first, second]) {
      assert.isAbove(kill.atWork, 0)
      assert.isAtMost(kill.failover, failoverWithin)
    }
  })
})
