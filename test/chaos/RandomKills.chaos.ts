/**
 * Processes killed at random with nothing lost. Three service processes, each a runner of the Job
 * engine, on one PostgreSQL (a private server), under steady load: Jobs created and approved through
 * the HTTP API (a third of them `sandbox:slow`, every provider call 2 s), and waitlist writes on every
 * process; meanwhile a random process is SIGKILLed every 5 seconds for 2 minutes and started again at
 * once on its port. A client whose connection fails sends the same request (the same Idempotency-Key)
 * to another live process, as a client behind a load balancer does. Once the kills stop and the work
 * settles: every Job created is `completed`, each with exactly one side effect standing in the
 * sandbox's ledger and none twice, every address answered 200 is stored, and no answer was anything
 * but the operation's success or 503.
 *
 *   npm run test:chaos
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import * as PrivatePostgres from "../support/PrivatePostgres.ts"
import { createKey, freePort, sleep } from "../support/ServiceProcess.ts"
import * as Supervisor from "../support/Supervisor.ts"

const processes = 3
const killEvery = 5_000
const killFor = 120_000
/** A new Job this often, with at most `jobsAtOnce` being created or waiting for their proposal. */
const createEvery = 400
const jobsAtOnce = 8
const waitlistWriters = 3
const waitlistPause = 20
/** From the end of the kills to every Job completed: generous, for a shared 2-core machine. */
const settleWithin = 150_000
/** A Job's proposal, even when its run was lost with a process (the sweep starts it within 10 s). */
const proposalWithin = 90_000
/** A request answered only 503 (or "in use") for this long is given up, as a finding. */
const retryFor = 90_000

interface JobView {
  readonly id: string
  readonly jobRevision: number
  readonly status: string
  readonly proposal: { readonly proposalHash: string; readonly status: string } | null
}

let database: PrivatePostgres.PrivatePostgres
let db: pg.Client
let supervisor: Supervisor.Supervisor
let logDir: string
let passed = false

beforeAll(async () => {
  database = PrivatePostgres.make()
  db = new pg.Client({ connectionString: database.url })
  await db.connect()
  logDir = mkdtempSync(join(tmpdir(), "chaos-"))
  const runnerPorts = await Promise.all(Array.from({ length: processes }, () => freePort()))
  supervisor = await Supervisor.make({
    count: processes,
    env: (slot) => ({ DATABASE_URL: database.url, RUNNER_ADDRESS: `127.0.0.1:${runnerPorts[slot]}` }),
    logDir
  })
}, 180_000)

afterAll(async () => {
  await supervisor?.stop()
  await db?.end()
  database?.destroy()
  // The processes' output is kept when the test fails: it is the evidence.
  if (passed) rmSync(logDir, { recursive: true, force: true })
  else if (logDir !== undefined) console.log(`the processes' output: ${logDir}`)
})

describe("three runners under load, a random one SIGKILLed every 5 s for 2 minutes", () => {
  it("loses nothing: every Job completed once, every address stored, no answer but success or 503", {
    timeout: 420_000
  }, async () => {
    const key = createKey({ DATABASE_URL: database.url }, "chaos", "jobs:read,jobs:write,approvals:write")
    const run = Math.random().toString(36).slice(2, 8)
    const answers = new Map<string, number>()
    const unexpected: Array<string> = []
    let inUse = 0
    const tally = (operation: string, status: number | string) => {
      const name = `${operation} ${status}`
      answers.set(name, (answers.get(name) ?? 0) + 1)
    }

    /**
     * A call of the Job API until its success: a 503 again after its Retry-After, and a 409
     * `idempotency_key_in_use` too when a connection of the same request failed (the killed process may
     * have claimed its key: the claim lapses, and the next try runs it). Anything else is a finding.
     */
    const call = async <A>(
      operation: string,
      success: number,
      method: string,
      path: string,
      body?: unknown,
      idempotencyKey?: string
    ) => {
      const deadline = Date.now() + retryFor
      let cut = false
      for (;;) {
        const answer = await supervisor.send({
          method,
          path,
          headers: {
            authorization: `Bearer ${key}`,
            ...(body === undefined ? {} : { "content-type": "application/json" }),
            ...(idempotencyKey === undefined ? {} : { "idempotency-key": idempotencyKey })
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) })
        })
        cut ||= answer.cut > 0
        const inUseAfterCut = answer.status === 409 && cut && answer.body.includes("\"idempotency_key_in_use\"")
        tally(operation, inUseAfterCut ? "409 idempotency_key_in_use after a cut" : answer.status)
        if (answer.status === success) return JSON.parse(answer.body) as A
        const again = answer.status === 503 || inUseAfterCut
        if (!again || Date.now() > deadline) {
          unexpected.push(`${method} ${path} (slot ${answer.slot}): ${answer.status} ${answer.body}`)
          return undefined
        }
        if (answer.status === 409) inUse++
        await sleep(Math.min(10, Number(answer.headers["retry-after"] ?? 1)) * 1000)
      }
    }

    const created: Array<{ readonly id: string; readonly slow: boolean }> = []
    const findings: Array<string> = []
    let approved = 0
    const lifecycle = async (n: number) => {
      const slow = n % 3 === 0
      const job = await call<JobView>("create", 201, "POST", "/v1/jobs", {
        request: `Book a table for ${2 + (n % 5)} at an Italian restaurant in Lisbon tomorrow at 8pm`,
        constraints: [
          { type: "budget", max: { amount: "400.00", currency: "EUR" } },
          ...(slow ? [{ type: "note", text: "sandbox:slow" }] : [])
        ]
      }, `chaos-${run}-create-${n}`)
      if (job === undefined) return
      created.push({ id: job.id, slow })
      const deadline = Date.now() + proposalWithin
      for (;;) {
        const view = await call<JobView>("read", 200, "GET", `/v1/jobs/${job.id}`)
        if (view === undefined) return
        if (view.status === "awaiting_approval") {
          const approval = await call("approve", 201, "POST", `/v1/jobs/${job.id}/approvals`, {
            proposalHash: view.proposal!.proposalHash,
            jobRevision: view.jobRevision,
            decision: "approve"
          }, `chaos-${run}-approve-${n}`)
          if (approval !== undefined) approved++
          return
        }
        if (view.status !== "interpreting" && view.status !== "planning") {
          return findings.push(`${job.id}: ${view.status} before any approval`)
        }
        if (Date.now() > deadline) return findings.push(`${job.id}: no proposal within ${proposalWithin} ms`)
        await sleep(250)
      }
    }

    let loading = true
    const lifecycles: Array<Promise<unknown>> = []
    const creator = async () => {
      let atOnce = 0
      for (let n = 0; loading; n++) {
        if (atOnce < jobsAtOnce) {
          atOnce++
          lifecycles.push(lifecycle(n).finally(() => atOnce--))
        }
        await sleep(createEvery)
      }
    }

    const joined: Array<string> = []
    const waitlist = { ok: 0, unavailable: 0, bySlot: Array.from({ length: processes }, () => 0) }
    const writer = async (w: number) => {
      for (let i = 0; loading; i++) {
        const email = `chaos-${run}-${w}-${i}@chaos.example.com`
        const answer = await supervisor.send({
          method: "POST",
          path: "/v1/waitlist",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email, source: "landing" }),
          prefer: (w + i) % processes
        })
        tally("waitlist", answer.status)
        if (answer.status === 200) {
          joined.push(email)
          waitlist.ok++
          waitlist.bySlot[answer.slot]!++
        } else if (answer.status === 503) {
          waitlist.unavailable++
        } else {
          unexpected.push(`POST /v1/waitlist ${email} (slot ${answer.slot}): ${answer.status} ${answer.body}`)
        }
        await sleep(waitlistPause)
      }
    }

    const load = [creator(), ...Array.from({ length: waitlistWriters }, (_, w) => writer(w))]
    const kills: Array<string> = []
    const began = Date.now()
    for (let next = began + killEvery; next <= began + killFor; next += killEvery) {
      await sleep(next - Date.now())
      const victim = Math.floor(Math.random() * processes)
      kills.push(`${victim}${await supervisor.kill(victim) === "starting" ? "*" : ""}`)
    }
    const killsEnded = Date.now()
    loading = false
    await Promise.all(load)
    await supervisor.allReady(60_000)
    await Promise.all(lifecycles)

    const statuses = async () =>
      (await db.query<{ status: string; n: number }>(`SELECT status, count(*)::int AS n FROM jobs GROUP BY 1`)).rows
    const settleDeadline = killsEnded + settleWithin
    while ((await statuses()).some((row) => row.status !== "completed") && Date.now() < settleDeadline) {
      await sleep(500)
    }
    const settled = Date.now() - killsEnded

    // Every Job created, as the API answers it.
    const views: Array<JobView | undefined> = []
    for (let i = 0; i < created.length; i += 8) {
      views.push(
        ...await Promise.all(
          created.slice(i, i + 8).map(({ id }) => call<JobView>("read", 200, "GET", `/v1/jobs/${id}`))
        )
      )
    }
    const completed = views.filter((view) => view?.status === "completed")
    const notCompleted = created.filter((_, i) => views[i]?.status !== "completed")

    // Effects, not keys: a provider that performed a key's effect again would count one key twice.
    const { rows: ledger } = await db.query<{ hash: string; standing: number; calls: number }>(
      `SELECT proposal_hash AS hash, sum(calls)::int AS calls,
        coalesce(sum(effects) FILTER (WHERE state <> 'compensated'), 0)::int AS standing
        FROM sandbox_ledger GROUP BY 1`
    )
    const standing = new Map(ledger.map((row) => [row.hash, row.standing]))
    const withoutEffect = completed.filter((view) => standing.get(view!.proposal!.proposalHash) !== 1)
    const twice = ledger.filter((row) => row.standing > 1)
    const effects = ledger.reduce((sum, row) => sum + row.standing, 0)

    const stored = new Set(
      (await db.query<{ email: string }>(`SELECT convert_from(email, 'UTF8') AS email FROM waitlist_members`)).rows
        .map((row) => row.email)
    )
    const lost = joined.filter((email) => !stored.has(email))

    const { rows: [inDatabase] } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM jobs`)
    // Executions begun and provider calls per proposal: more than one begun, or more than 2 calls (execute
    // and inspect), where a kill cut a Job's work short and another process made it again.
    const { rows: executions } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM job_events WHERE type = 'execution.started' GROUP BY data::json->>'proposalHash'`
    )
    const histogram = (values: ReadonlyArray<number>) =>
      [...values.reduce((counts, n) => counts.set(n, (counts.get(n) ?? 0) + 1), new Map<number, number>())]
        .sort(([a], [b]) => a - b).map(([n, count]) => `${count}×${n}`).join(", ")
    const figures = supervisor.figures()
    const slow = created.filter((job) => job.slow).length
    const calls = ledger.reduce((sum, row) => sum + row.calls, 0)
    const begun = histogram(executions.map((row) => row.n))
    const bySlot = waitlist.bySlot.join(", ")
    console.log(
      [
        `chaos: ${processes} runners, one SIGKILLed every ${killEvery / 1000} s for ${killFor / 1000} s`,
        `  processes killed: ${figures.kills} (${figures.killedStarting} while starting), restarts: ${figures.restarts}`,
        `  victims: ${kills.join(" ")} (* starting)`,
        `  Jobs created: ${created.length} (${slow} sandbox:slow), approved: ${approved}, completed: ${completed.length}`,
        `  Jobs in the database: ${inDatabase!.n}; executions begun per proposal: ${begun}`,
        `  side effects standing: ${effects} on ${ledger.length} proposals; twice: ${twice.length}`,
        `  provider calls: ${calls}, per proposal: ${histogram(ledger.map((row) => row.calls))}`,
        `  waitlist writes: 200: ${waitlist.ok} (by process: ${bySlot}), 503: ${waitlist.unavailable}`,
        `  waitlist addresses stored: ${stored.size}, answered 200 and lost: ${lost.length}`,
        `  connection errors retried on another process: ${figures.connectionErrors}`,
        `  409 idempotency_key_in_use retried after a cut: ${inUse}`,
        `  answers: ${[...answers].sort().map(([name, n]) => `${name}: ${n}`).join(", ")}`,
        `  time to settle after the last kill: ${settled} ms`
      ].join("\n")
    )

    // The evidence for a Job that did not complete: where its record stands and its events.
    for (const { id } of notCompleted.slice(0, 10)) {
      const { rows: [job] } = await db.query<{ status: string; record: string }>(
        `SELECT status, record FROM jobs WHERE id = $1`,
        [id]
      )
      const { rows: events } = await db.query<{ type: string; job_revision: number; occurred_at: Date }>(
        `SELECT type, job_revision, occurred_at FROM job_events WHERE job_id = $1 ORDER BY position`,
        [id]
      )
      console.log(
        `  not completed: ${id} ${job?.status ?? "(not in the database)"} execution ${
          JSON.stringify(job === undefined ? null : JSON.parse(job.record).execution)
        }\n`
          + events.map((event) => `    ${event.occurred_at.toISOString()} r${event.job_revision} ${event.type}`).join(
            "\n"
          )
      )
    }
    for (
      const line of [
        ...figures.anomalies.slice(0, 20).map((a) => `  anomaly at +${a.at} ms: ${a.what}`),
        ...findings.map((f) => `  finding: ${f}`),
        ...unexpected.slice(0, 20).map((u) => `  unexpected answer: ${u}`)
      ]
    ) {
      console.log(line)
    }

    assert.deepStrictEqual(
      figures.anomalies.slice(0, 5).map((a) => a.what),
      [],
      `no process exited by itself, dropped a connection or went unanswered (${figures.anomalies.length} did)`
    )
    assert.deepStrictEqual(
      unexpected.slice(0, 5),
      [],
      `no answer but the operation's success or 503 (${unexpected.length} were)`
    )
    assert.deepStrictEqual(findings, [], "every Job presented a proposal")
    assert.deepStrictEqual(notCompleted.map(({ id }) => id), [], "every Job created is completed")
    assert.strictEqual(inDatabase!.n, created.length, "no Job but those created")
    assert.deepStrictEqual(
      withoutEffect.map((view) => view!.id),
      [],
      "exactly one side effect standing for each completed Job"
    )
    assert.deepStrictEqual(twice.map((row) => row.hash), [], "no proposal with two side effects standing")
    assert.strictEqual(effects, completed.length, "no side effect but the completed Jobs'")
    assert.deepStrictEqual(lost, [], "every address answered 200 is stored")
    // What makes the run mean something: the kills happened, slow Jobs were among them, every process took writes.
    assert.isAbove(figures.kills - figures.killedStarting, 0, "processes at work were killed, not only starting ones")
    assert.isAtLeast(figures.restarts, figures.kills)
    assert.isAbove(created.filter((job) => job.slow).length, 0)
    for (const n of waitlist.bySlot) assert.isAbove(n, 0)
    passed = true
  })
})
