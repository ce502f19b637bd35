import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { execFile } from "node:child_process"
import * as Interpreter from "../src/services/interpreter/Interpreter.ts"
import * as JobServices from "../src/services/jobs/JobServices.ts"
import * as JobRunner from "../src/services/jobs/runner/JobRunner.ts"
import * as SqlSandbox from "../src/services/providers/SqlSandbox.ts"
import * as Database from "../src/services/store/Database.ts"
import * as Migrations from "../src/services/store/Migrations.ts"
import { baseUrl } from "./support/Http.ts"
import { call, previewServerWith } from "./support/JobsHttp.ts"
import * as TestDatabase from "./support/TestDatabase.ts"

interface Output {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** The command line as an operator runs it, in its own process, on the given store. */
const cli = (env: Record<string, string>, args: ReadonlyArray<string>) =>
  Effect.callback<Output>((resume) => {
    execFile(
      process.execPath,
      ["src/cli.ts", ...args],
      { env: { ...process.env, ...env } },
      (error, stdout, stderr) => {
        resume(Effect.succeed({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr }))
      }
    )
  })

// The service (here: the test) holds the store and serves the Job API on it; the command line
// borrows the same store, as it does while the service runs.
// The same layer value twice: built once, so both see one store.
const store = TestDatabase.layerWithEnv
const services = JobRunner.layer().pipe(
  Layer.provideMerge(JobServices.layer),
  Layer.provideMerge(SqlSandbox.layer),
  Layer.provide(Interpreter.layerOffline),
  Layer.provide(JobRunner.engine),
  Layer.provide(Migrations.layer),
  Layer.provideMerge(Database.layer),
  Layer.provide(store)
)

layer(previewServerWith(services).pipe(Layer.provideMerge(store)), {
  excludeTestServices: true,
  timeout: "120 seconds"
})(`npm run cli -- keys (${TestDatabase.kind}, while the service holds the store)`, (it) => {
  it.effect(
    "creates a key shown once, lists keys without their secret, and a revoked key is refused",
    () =>
      Effect.gen(function*() {
        const env = yield* TestDatabase.StoreEnv
        const url = yield* baseUrl

        const created = yield* cli(env, ["keys", "create", "--account", "acme", "--scopes", "jobs:read,jobs:write"])
        assert.strictEqual(created.code, 0, created.stderr)
        const lines = created.stdout.split("\n")
        assert.deepStrictEqual(lines.length, 2)
        const key = lines[0]!
        assert.match(key, /^rc_live_[A-Za-z0-9_-]{43}$/)
        assert.notInclude(created.stderr, key)
        const id = /Created (key_[0-9a-f]+)/.exec(created.stderr)?.[1]
        assert.isDefined(id)

        assert.strictEqual((yield* call(url, { path: "/v1/jobs", key })).status, 200)

        const listed = yield* cli(env, ["keys", "list"])
        assert.strictEqual(listed.code, 0, listed.stderr)
        assert.include(listed.stdout, `${id}\tacme\tjobs:read,jobs:write\t`)
        assert.include(listed.stdout, "\tactive")
        assert.notInclude(listed.stdout + listed.stderr, key.slice("rc_live_".length, "rc_live_".length + 12))

        const revoked = yield* cli(env, ["keys", "revoke", id!])
        assert.strictEqual(revoked.code, 0, revoked.stderr)
        assert.include(revoked.stdout, "revoked ")
        const refused = yield* call(url, { path: "/v1/jobs", key })
        assert.strictEqual(refused.status, 401)
        assert.strictEqual(refused.headers["www-authenticate"], "Bearer")
        assert.include((yield* cli(env, ["keys", "list"])).stdout, `${id}\tacme`)
      }),
    120_000
  )

  it.effect(
    "refuses unknown scopes, bad account names and unknown keys with a message and exit code 1",
    () =>
      Effect.gen(function*() {
        const env = yield* TestDatabase.StoreEnv
        const scopes = yield* cli(env, ["keys", "create", "--account", "acme", "--scopes", "jobs:read,jobs:all"])
        assert.notStrictEqual(scopes.code, 0)
        assert.include(scopes.stdout + scopes.stderr, "unknown scope \"jobs:all\"")
        assert.notMatch(scopes.stdout, /rc_live_/)
        const account = yield* cli(env, ["keys", "create", "--account", "no spaces", "--scopes", "jobs:read"])
        assert.notStrictEqual(account.code, 0)
        const unknown = yield* cli(env, ["keys", "revoke", "key_0000"])
        assert.notStrictEqual(unknown.code, 0)
        assert.include(unknown.stdout + unknown.stderr, "There is no API key \"key_0000\".")
      }),
    120_000
  )

  it.effect(
    "sandbox ledger prints one JSON line per key, all of them or one Job's, as the service recorded them",
    () =>
      Effect.gen(function*() {
        const env = yield* TestDatabase.StoreEnv
        const url = yield* baseUrl
        const created = yield* cli(env, [
          "keys",
          "create",
          "--account",
          "ledger",
          "--scopes",
          "jobs:read,jobs:write,approvals:write"
        ])
        const key = created.stdout.split("\n")[0]!
        const run = (notes: ReadonlyArray<string>) =>
          Effect.gen(function*() {
            const job = JSON.parse(
              (yield* call(url, {
                path: "/v1/jobs",
                key,
                idempotencyKey: `ledger-${Math.random()}`,
                body: {
                  request: "Book a table for 4 at an Italian restaurant in Lisbon next Friday at 8pm",
                  constraints: [
                    { type: "budget", max: { amount: "200.00", currency: "EUR" } },
                    ...notes.map((text) => ({ type: "note", text }))
                  ]
                }
              })).body
            )
            let proposed = job
            for (let i = 0; i < 500 && proposed.status !== "awaiting_approval"; i++) {
              yield* Effect.sleep("20 millis")
              proposed = JSON.parse((yield* call(url, { path: `/v1/jobs/${job.id}`, key })).body)
            }
            const approved = yield* call(url, {
              path: `/v1/jobs/${job.id}/approvals`,
              key,
              idempotencyKey: `approve-${job.id}`,
              body: { proposalHash: proposed.proposal.proposalHash, jobRevision: 1, decision: "approve" }
            })
            assert.strictEqual(approved.status, 201, approved.body)
            let done = proposed
            for (let i = 0; i < 500 && done.status !== "completed"; i++) {
              yield* Effect.sleep("20 millis")
              done = JSON.parse((yield* call(url, { path: `/v1/jobs/${job.id}`, key })).body)
            }
            assert.strictEqual(done.status, "completed")
            return proposed as { id: string; proposal: { proposalHash: string } }
          })
        const plain = yield* run([])
        const retried = yield* run(["sandbox:transient-once"])

        const all = yield* cli(env, ["sandbox", "ledger"])
        assert.strictEqual(all.code, 0, all.stderr)
        const lines = all.stdout.trim().split("\n").map((line) => JSON.parse(line))
        assert.deepStrictEqual(lines, [
          {
            key: `${plain.id}:${plain.proposal.proposalHash}:1`,
            jobId: plain.id,
            proposalHash: plain.proposal.proposalHash,
            calls: 2,
            effects: 1,
            state: "succeeded"
          },
          {
            key: `${retried.id}:${retried.proposal.proposalHash}:1`,
            jobId: retried.id,
            proposalHash: retried.proposal.proposalHash,
            calls: 3,
            effects: 1,
            state: "succeeded"
          }
        ])
        const one = yield* cli(env, ["sandbox", "ledger", "--job", retried.id])
        assert.strictEqual(one.code, 0, one.stderr)
        assert.deepStrictEqual(one.stdout.trim().split("\n").map((line) => JSON.parse(line)), [lines[1]])
        assert.strictEqual((yield* cli(env, ["sandbox", "ledger", "--job", "job_none"])).stdout, "")
      }),
    120_000
  )
})
