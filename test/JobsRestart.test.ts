/**
 * The service killed with SIGKILL while Jobs are being interpreted and others wait for input, then
 * started again on the same PostgreSQL: every Job that was not finished goes on, and no interpretation
 * is recorded twice; and the service started before its database exists. Real processes (`node
 * src/main.ts` with `JOBS_API=preview`), a real database: runs when `TEST_DATABASE_URL` names a
 * PostgreSQL server (as `.ci/run` does). And the same on the embedded store, with Jobs killed while
 * they execute.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { rmSync } from "node:fs"
import pg from "pg"
import { caller, createKey, database, kill, quietly, root, sleep, start } from "./support/ServiceProcess.ts"
import * as TestDatabase from "./support/TestDatabase.ts"

const adminUrl = process.env.TEST_DATABASE_URL

interface JobView {
  readonly id: string
  readonly jobRevision: number
  readonly status: string
  readonly questions: ReadonlyArray<{ readonly id: string }>
}

const api = (base: string, key: string) => {
  const call = caller(base, key)
  const request = (method: string, path: string, body?: unknown) => call<JobView>(method, path, body)
  return {
    create: (text: string) => request("POST", "/v1/jobs", { request: text, constraints: [] }),
    get: (id: string) => request("GET", `/v1/jobs/${id}`),
    answer: (job: JobView, answers: Record<string, string>) =>
      request("POST", `/v1/jobs/${job.id}/input`, { jobRevision: job.jobRevision, answers })
  }
}

/**
 * Waits until every Job waits for a person or has ended; answers them as they are then. `within` is a
 * liveness guard (the test gives up instead of hanging), generous enough for a loaded machine.
 */
const working = ["interpreting", "planning", "executing", "verifying", "recovering"]

const settled = async <J extends JobView>(
  client: { readonly get: (id: string) => Promise<J> },
  ids: ReadonlyArray<string>,
  within: number
) => {
  const deadline = Date.now() + within
  for (;;) {
    const jobs = await Promise.all(ids.map(client.get))
    if (jobs.every((job) => !working.includes(job.status))) return jobs
    if (Date.now() > deadline) {
      const stuck = jobs.filter((job) => working.includes(job.status)).map((job) => job.id)
      throw new Error(`still at work after ${within} ms: ${stuck.join(", ")}`)
    }
    await sleep(100)
  }
}

// Each asks for the date; answered, each is a reservation to plan.
const asking = (i: number) => `Book a table for ${2 + (i % 6)} at an Italian restaurant in Lisbon`

describe.skipIf(adminUrl === undefined)(
  "the Jobs preview as a real process on PostgreSQL (needs TEST_DATABASE_URL)",
  () => {
    it("goes on with every Job that was not finished, and interprets none twice", { timeout: 240_000 }, async () => {
      const store = await database(adminUrl!, "jobs_restart")
      await store.create()
      const { env } = store
      let service: Awaited<ReturnType<typeof start>> | undefined
      try {
        service = await start(env)
        const key = createKey(env, "restart")
        let client = api(service.base, key)

        // Ten Jobs that have asked their question: their runs are suspended on the durable deferred.
        const waiting = await Promise.all(Array.from({ length: 10 }, (_, i) => client.create(asking(i))))
        const asked = await settled(client, waiting.map((job) => job.id), 60_000)
        for (const job of asked) assert.strictEqual(job.status, "awaiting_input", job.id)

        // Forty more created at once, and the process killed as the last answer arrives: their
        // interpretation is in flight, or not begun.
        const inFlight = await Promise.all(Array.from({ length: 40 }, (_, i) => client.create(asking(i))))
        await kill(service.child, "SIGKILL")
        const db = new pg.Client({ connectionString: env.DATABASE_URL })
        await db.connect()
        const { rows: [left] } = await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM jobs WHERE status = 'interpreting'`
        )
        await db.end()

        service = await start(env)
        client = api(service.base, key)

        // The Jobs left interpreting are interpreted by the new process.
        const restartedAt = Date.now()
        const resumed = await settled(client, inFlight.map((job) => job.id), 90_000)
        console.log(`resumed after ${Date.now() - restartedAt} ms`)
        for (const job of resumed) assert.strictEqual(job.status, "awaiting_input", job.id)

        // Those that waited before the kill take their answers now, and are planned.
        const answered = await Promise.all(
          [...asked, ...resumed].map((job) => client.answer(job, { q_date: "next Friday at 8pm" }))
        )
        const planned = await settled(client, answered.map((job) => job.id), 60_000)
        for (const job of planned) {
          assert.strictEqual(job.jobRevision, 2, job.id)
          assert.strictEqual(job.status, "awaiting_approval", job.id)
        }

        // Each revision was interpreted once: one event of interpretation per Job and revision.
        const check = new pg.Client({ connectionString: env.DATABASE_URL })
        await check.connect()
        const { rows } = await check.query<{ job_id: string; job_revision: number; n: number }>(`
        SELECT job_id, job_revision, count(*)::int AS n FROM job_events
        WHERE type IN ('job.interpreted', 'job.input_requested')
        GROUP BY job_id, job_revision`)
        await check.end()
        const counts = new Map(rows.map((row) => [`${row.job_id}/${row.job_revision}`, row.n]))
        for (const job of planned) {
          assert.strictEqual(counts.get(`${job.id}/1`), 1, `${job.id} revision 1`)
          assert.strictEqual(counts.get(`${job.id}/2`), 1, `${job.id} revision 2`)
        }
        console.log(
          `SIGKILL with ${asked.length} Jobs awaiting input and ${left!.n} of ${inFlight.length} still interpreting; `
            + `after restart all ${planned.length} answered and planned, each revision interpreted once\n`
        )
      } finally {
        if (service !== undefined) await kill(service.child, "SIGTERM")
        await store.drop()
      }
    })

    it("starts while its database is missing, and runs the Jobs once it is there", { timeout: 180_000 }, async () => {
      const store = await database(adminUrl!, "jobs_late")
      const { env } = store
      const service = await start(env, { until: "listening" })
      try {
        assert.strictEqual((await fetch(`${service.base}/readyz`)).status, 503)
        await store.create()
        const key = createKey(env, "late")
        const client = api(service.base, key)
        let created: JobView | undefined
        for (let i = 0; i < 300 && created === undefined; i++) {
          created = await client.create(asking(1)).catch(() => undefined)
          if (created === undefined) await sleep(200)
        }
        assert.isDefined(created)
        // The runner is built in the background, again every 5 s until the storage opens.
        const [job] = await settled(client, [created!.id], 60_000)
        assert.strictEqual(job!.status, "awaiting_input")
      } finally {
        await kill(service.child, "SIGTERM")
        await store.drop()
      }
    })
  }
)

interface ExecutingJob extends JobView {
  readonly proposal: { readonly proposalHash: string } | null
  readonly outcome: unknown
}

/**
 * The embedded store (the default): the service killed with SIGKILL while its Jobs execute, each in
 * the middle of a 2 s provider call (`sandbox:slow`), and started again on the same data directory.
 */
describe("the Jobs preview as a real process on the embedded store", () => {
  it("finishes the Jobs it was executing when killed, with one side effect each", { timeout: 240_000 }, async () => {
    const dataDir = TestDatabase.pgliteDataDir("jobs-embedded-restart-")
    const env = { DATA_DIR: dataDir }
    let service: Awaited<ReturnType<typeof start>> | undefined
    try {
      service = await start(env)
      const key = createKey(env, "embedded", "jobs:read,jobs:write,approvals:write")
      let call = caller(service.base, key)
      const created = await Promise.all(Array.from({ length: 5 }, (_, i) =>
        call<ExecutingJob>("POST", "/v1/jobs", {
          request: `Book a table for ${2 + i} at an Italian restaurant in Lisbon on 4 December 2026 at 8pm`,
          constraints: [
            { type: "budget", max: { amount: "400.00", currency: "EUR" } },
            { type: "note", text: "sandbox:slow" }
          ]
        })))
      const ids = created.map((job) => job.id)
      const get = (id: string) => call<ExecutingJob>("GET", `/v1/jobs/${id}`)
      const proposed = await settled({ get }, ids, 90_000)
      await Promise.all(proposed.map((job) =>
        call("POST", `/v1/jobs/${job.id}/approvals`, {
          proposalHash: job.proposal!.proposalHash,
          jobRevision: job.jobRevision,
          decision: "approve"
        })
      ))
      // Killed as soon as every Job has begun its execution: each call is then under way.
      const started = async () => {
        const pages = await Promise.all(
          ids.map((id) => call<{ data: ReadonlyArray<{ type: string }> }>("GET", `/v1/jobs/${id}/events?limit=1000`))
        )
        return pages.every((page) => page.data.some((event) => event.type === "execution.started"))
      }
      while (!(await started())) await sleep(50)
      const statuses = (await Promise.all(ids.map(get))).map((job) => job.status)
      await kill(service.child, "SIGKILL")

      service = await start(env)
      call = caller(service.base, key)
      const restartedAt = Date.now()
      const done = await settled({ get: (id) => call<ExecutingJob>("GET", `/v1/jobs/${id}`) }, ids, 90_000)
      for (const job of done) {
        assert.strictEqual(job.status, "completed", job.id)
        assert.isNotNull(job.outcome, job.id)
      }
      const ledger = execFileSync(process.execPath, ["src/cli.ts", "sandbox", "ledger"], {
        cwd: root,
        env: { ...process.env, ...env },
        encoding: "utf8",
        ...quietly
      }).trim().split("\n").map((line) => JSON.parse(line) as { jobId: string; effects: number; state: string })
      for (const id of ids) {
        const entries = ledger.filter((entry) => entry.jobId === id)
        assert.deepStrictEqual(entries.map((entry) => [entry.effects, entry.state]), [[1, "succeeded"]], id)
      }
      console.log(
        `embedded store: SIGKILL with ${statuses.length} Jobs at work (${statuses.join(", ")}); after restart all `
          + `completed within ${Date.now() - restartedAt} ms, one side effect each`
      )
    } finally {
      if (service !== undefined) await kill(service.child, "SIGTERM")
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
