import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Stream from "effect/Stream"
import { execFileSync, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as JobsClient from "./client/JobsClient.ts"

/**
 * `npm run demo`: the whole path of a Job on the embedded store, with no setup. It starts the service
 * (JOBS_API=preview, PGlite in a new data directory, the sandbox provider), issues a key with the
 * command line, creates a Job from a clear sentence, shows its proposal, approves it, prints each event
 * as it arrives, and then the completed Job. Exit status 0 only when the Job is `completed` with an
 * Outcome. With `--link` a person decides instead: the demo asks for an approval link, prints it, and
 * waits for the decision made in a browser (until the proposal expires).
 */

const request = "Book a table for 2 at an Italian restaurant in Lisbon next Friday at 8pm"
const constraints = [{ type: "budget", max: { amount: "120.00", currency: "EUR" } }] as const

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

const node = process.execPath

/** `--link`: a person decides in a browser, through an approval link, rather than the demo's key. */
const byLink = process.argv.slice(2).includes("--link")

const program = Effect.gen(function*() {
  const dataDir = mkdtempSync(join(tmpdir(), "rc-demo-"))
  const port = yield* Effect.promise(freePort)
  const baseUrl = `http://127.0.0.1:${port}`
  const { DATABASE_URL: _external, ...inherited } = process.env
  const env = { ...inherited, JOBS_API: "preview", DATA_DIR: dataDir, PORT: String(port), REQUEST_LOG: "false" }
  yield* Console.log(`Starting the service on ${baseUrl} (embedded store in ${dataDir}, sandbox provider)`)
  const service = yield* Effect.acquireRelease(
    Effect.sync(() => spawn(node, ["src/main.ts"], { env, stdio: ["ignore", "ignore", "inherit"] })),
    (child) =>
      Effect.promise(() =>
        new Promise<void>((resolve) => {
          child.once("exit", () => resolve())
          child.kill("SIGTERM")
        })
      ).pipe(Effect.andThen(Effect.sync(() => rmSync(dataDir, { recursive: true, force: true }))))
  )
  yield* Effect.promise(async () => {
    for (let i = 0; i < 300; i++) {
      if (service.exitCode !== null) throw new Error("the service exited")
      const ready = await fetch(`${baseUrl}/readyz`).then((r) => r.ok, () => false)
      if (ready) return
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    throw new Error("the service did not become ready in 30 s")
  })

  const apiKey = execFileSync(node, [
    "src/cli.ts",
    "keys",
    "create",
    "--account",
    "demo",
    "--scopes",
    "jobs:read,jobs:write,approvals:write"
  ], { env, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim()

  const client = yield* JobsClient.make({ baseUrl, apiKey })
  const created = yield* client.Jobs.createJob({
    headers: { "idempotency-key": `demo-create-${port}` },
    payload: { request, constraints }
  })
  yield* Console.log(`\nPOST /v1/jobs -> ${created.id} (${created.status})\n  "${request}"\n\nEvents as they arrive:`)

  const events = yield* client.follow({ jobId: created.id }).pipe(
    Stream.tap((event) => {
      const data = event.data as Record<string, unknown>
      const detail = data.status === undefined ? "" : ` -> ${String(data.status)}`
      return Console.log(`  #${event.position} ${event.type}${detail}`)
    }),
    Stream.takeUntil((event) => ["job.completed", "job.failed", "job.cancelled"].includes(event.type)),
    Stream.runDrain,
    Effect.forkScoped
  )

  const getJob = client.Jobs.getJob({ params: { id: created.id }, query: {} })
  const waitFor = (done: (status: string) => boolean) =>
    Effect.gen(function*() {
      for (let i = 0; i < 300; i++) {
        const job = yield* getJob
        if (done(job.status)) return job
        yield* Effect.sleep("100 millis")
      }
      return yield* Effect.fail(new Error("the Job did not get there in 30 s"))
    })

  const proposed = yield* waitFor((status) => status !== "interpreting" && status !== "planning")
  if (proposed.status !== "awaiting_approval" || proposed.proposal === null) {
    return yield* Effect.fail(new Error(`the Job is ${proposed.status}, with no proposal to approve`))
  }
  const hash = proposed.proposal.proposalHash
  const bytes = yield* Effect.promise(() =>
    fetch(`${baseUrl}/v1/jobs/${created.id}/proposals/${hash}`, { headers: { authorization: `Bearer ${apiKey}` } })
      .then((r) => r.text())
  )
  yield* Console.log(`\nGET /v1/jobs/${created.id}/proposals/${hash}\n${bytes}\n`)
  if (byLink) {
    const link = yield* client.Jobs.createApprovalLink({
      params: { id: created.id },
      headers: { "idempotency-key": `demo-link-${port}` },
      payload: { proposalHash: hash, jobRevision: proposed.jobRevision }
    })
    yield* Console.log(
      `POST /v1/jobs/${created.id}/approval-links -> ${link.id}\n\n`
        + `Open this link in your browser, and approve or reject (until ${link.expiresAt}):\n\n  ${link.url}\n`
    )
    // The person decides, or the proposal expires: either way it is no longer open.
    let job = yield* getJob
    while (job.proposal?.proposalHash === hash && job.proposal.status === "open") {
      yield* Effect.sleep("500 millis")
      job = yield* getJob
    }
    const decided = job.proposal?.proposalHash === hash ? job.proposal.status : "superseded"
    yield* Console.log(`\nThe proposal is ${decided}.\n`)
    if (decided !== "approved") return yield* Effect.fail(new Error(`the proposal was ${decided}`))
  } else {
    const approval = yield* client.Jobs.createApproval({
      params: { id: created.id },
      headers: { "idempotency-key": `demo-approve-${port}` },
      payload: { proposalHash: hash, jobRevision: proposed.jobRevision, decision: "approve" }
    })
    yield* Console.log(`POST /v1/jobs/${created.id}/approvals -> ${approval.id} (${approval.decision})\n`)
  }

  yield* waitFor((status) => ["completed", "failed", "cancelled"].includes(status))
  yield* Fiber.join(events).pipe(Effect.timeout("5 seconds"), Effect.ignore)
  const job = yield* client.Jobs.getJob({ params: { id: created.id }, query: {} })
  yield* Console.log(`\nGET /v1/jobs/${created.id}\n${JSON.stringify(job, null, 2)}`)
  if (job.status !== "completed" || job.outcome === null) {
    return yield* Effect.fail(new Error(`the Job ended ${job.status}`))
  }
  yield* Console.log(`\nCompleted: ${job.outcome.reference}, ${job.outcome.spent.amount} ${job.outcome.spent.currency}`)
})

program.pipe(
  Effect.scoped,
  Effect.provide(FetchHttpClient.layer),
  Effect.onExit((exit) => Exit.isFailure(exit) ? Console.error("The demo did not complete a Job.") : Effect.void),
  NodeRuntime.runMain
)
