/**
 * Proposals, approvals and execution shared by two service processes on one PostgreSQL database: Jobs
 * created through A are approved through B (with a retry of every approval, and a second process
 * deciding on the same proposal at once), and each reaches `completed` with exactly one side effect
 * per proposal in the sandbox's ledger, read with the command line. Real processes, a real database:
 * runs when `TEST_DATABASE_URL` names a PostgreSQL server (as `.ci/run` does).
 */
import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { createKey, database, kill, quietly, root, sleep, start } from "./support/ServiceProcess.ts"
import type { ServiceProcess } from "./support/ServiceProcess.ts"

const adminUrl = process.env.TEST_DATABASE_URL

interface JobView {
  readonly id: string
  readonly jobRevision: number
  readonly status: string
  readonly proposal: { readonly proposalHash: string; readonly status: string } | null
  readonly outcome: { readonly reference: string } | null
}

const send = async (
  base: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
  idempotencyKey?: string
) => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { "content-type": "application/json", "idempotency-key": idempotencyKey! })
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  return { status: response.status, body: await response.text() }
}

/** Polls the Job until `done`; gives up after 100 s (a liveness guard, not a bound on speed). */
const until = async (base: string, key: string, id: string, done: (job: JobView) => boolean) => {
  const deadline = Date.now() + 100_000
  while (Date.now() < deadline) {
    const job = JSON.parse((await send(base, key, "GET", `/v1/jobs/${id}`)).body) as JobView
    if (done(job)) return job
    await sleep(50)
  }
  throw new Error(`job ${id} did not get there in 100 s`)
}

describe.skipIf(adminUrl === undefined)(
  "proposals and approvals across two processes on PostgreSQL (needs TEST_DATABASE_URL)",
  () => {
    it("completes every Job once, whichever process takes its decision", { timeout: 240_000 }, async () => {
      const store = await database(adminUrl!, "approvals_two")
      const services: Array<ServiceProcess> = []
      try {
        await store.create()
        const a = await start(store.env, { onSpawn: (service) => services.push(service) })
        const b = await start(store.env, { onSpawn: (service) => services.push(service) })
        const key = createKey(store.env, "two", "jobs:read,jobs:write,approvals:write")
        const jobs = await Promise.all(Array.from({ length: 10 }, async (_, i) => {
          const created = await send(a.base, key, "POST", "/v1/jobs", {
            request: "Book a table for 4 at an Italian restaurant in Lisbon next Friday at 8pm",
            constraints: [
              { type: "budget", max: { amount: "200.00", currency: "EUR" } },
              ...(i % 2 === 0 ? [{ type: "note", text: "sandbox:transient-once" }] : [])
            ]
          }, `create-${i}`)
          assert.strictEqual(created.status, 201, created.body)
          return JSON.parse(created.body) as JobView
        }))
        const proposed = await Promise.all(
          jobs.map((job) => until(b.base, key, job.id, (view) => view.status === "awaiting_approval"))
        )
        // Each decision sent to B, retried with its key, and raced by a decision of its own through A.
        const answers = await Promise.all(proposed.flatMap((job) => {
          const body = { proposalHash: job.proposal!.proposalHash, jobRevision: job.jobRevision, decision: "approve" }
          return [
            send(b.base, key, "POST", `/v1/jobs/${job.id}/approvals`, body, `approve-${job.id}`),
            send(b.base, key, "POST", `/v1/jobs/${job.id}/approvals`, body, `approve-${job.id}`),
            send(a.base, key, "POST", `/v1/jobs/${job.id}/approvals`, body, `other-${job.id}`)
          ]
        }))
        for (let i = 0; i < proposed.length; i++) {
          const [first, again, other] = answers.slice(3 * i, 3 * i + 3)
          const statuses = [first!.status, again!.status, other!.status]
          // One decision stands: the retry with its key replays it (or finds it in use), and a decision with
          // another key on the same proposal is refused (409) unless it is the one that stood.
          const ids = new Set(
            [first, again, other].filter((answer) => answer!.status === 201).map((answer) =>
              JSON.parse(answer!.body).id
            )
          )
          assert.strictEqual(ids.size, 1, JSON.stringify(statuses))
          assert.isTrue(statuses.every((status) => status === 201 || status === 409), JSON.stringify(statuses))
        }
        const done = await Promise.all(
          jobs.map((job) =>
            until(a.base, key, job.id, (view) => view.status === "completed" || view.status === "failed")
          )
        )
        assert.deepStrictEqual(done.map((job) => job.status), jobs.map(() => "completed"))
        const ledger = execFileSync(process.execPath, ["src/cli.ts", "sandbox", "ledger"], {
          cwd: root,
          env: { ...process.env, ...store.env },
          encoding: "utf8",
          ...quietly
        }).trim().split("\n").map((line) =>
          JSON.parse(line) as { proposalHash: string; effects: number; state: string }
        )
        const perProposal = new Map<string, number>()
        for (const entry of ledger) {
          if (entry.effects > 0 && entry.state !== "compensated") {
            perProposal.set(entry.proposalHash, (perProposal.get(entry.proposalHash) ?? 0) + 1)
          }
        }
        assert.strictEqual(perProposal.size, jobs.length)
        assert.isTrue([...perProposal.values()].every((n) => n === 1))
        console.log(
          `two processes: ${jobs.length} Jobs created on A, decided on B (raced by A), all completed; ledger ${ledger.length} keys, one standing effect per proposal\n`
        )
      } finally {
        await Promise.all(services.map((service) => kill(service.child, "SIGTERM")))
        await store.drop()
      }
    })
  }
)
