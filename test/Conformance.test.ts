/**
 * The conformance kit (`npm run conformance`) as its users run it: a real process against the service
 * started as a real process on an embedded store of its own, where every check passes; and against
 * servers that get the contract wrong, where it must fail, naming the rule.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { rmSync } from "node:fs"
import { createServer } from "node:http"
import type { RequestListener, Server } from "node:http"
import { createKey, kill, root, start } from "./support/ServiceProcess.ts"
import type { ServiceProcess } from "./support/ServiceProcess.ts"
import * as TestDatabase from "./support/TestDatabase.ts"

interface Run {
  readonly code: number | null
  readonly lines: ReadonlyArray<string>
}

/** The kit as a process; not execFileSync, which would stop the servers of this process from answering. */
const conformance = (args: ReadonlyArray<string>) =>
  new Promise<Run>((resolve, reject) => {
    const child = execFile(
      process.execPath,
      ["src/conformance/main.ts", ...args],
      { cwd: root, encoding: "utf8", timeout: 60_000 },
      (error, stdout) => {
        if (error !== null && typeof error.code !== "number") return reject(error)
        resolve({ code: child.exitCode, lines: stdout.trimEnd().split("\n") })
      }
    )
  })

const counts = (run: Run) => {
  const match = /^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$/.exec(run.lines.at(-1) ?? "")
  assert.isNotNull(match, run.lines.join("\n"))
  return { passed: Number(match![1]), failed: Number(match![2]), skipped: Number(match![3] ?? 0) }
}

const listen = async (handler: RequestListener) => {
  const server = createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as { port: number }
  return { server, base: `http://127.0.0.1:${port}` }
}

const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()))

describe("the conformance kit", () => {
  const dataDir = TestDatabase.pgliteDataDir("rc-conformance-")
  const env = { DATA_DIR: dataDir }
  let service: ServiceProcess | undefined

  beforeAll(async () => {
    service = await start(env, { onSpawn: (spawned) => service = spawned })
  }, 60_000)

  afterAll(async () => {
    if (service !== undefined) await kill(service.child, "SIGTERM")
    rmSync(dataDir, { recursive: true, force: true })
  })

  it("passes every check against the service, the sandbox's included, and exits 0", { timeout: 60_000 }, async () => {
    const key = createKey(env, "conformance", "jobs:read,jobs:write,approvals:write")
    const run = await conformance(["--base-url", service!.base, "--key", key, "--sandbox", "--timeout", "20"])
    const { failed, passed, skipped } = counts(run)
    assert.deepStrictEqual(run.lines.filter((line) => !line.startsWith("ok ")).slice(1, -1), [], run.lines.join("\n"))
    assert.deepStrictEqual({ failed, skipped }, { failed: 0, skipped: 0 })
    assert.isAtLeast(passed, 60)
    assert.strictEqual(run.code, 0)
    assert.notInclude(run.lines.join("\n"), key)
  })

  it("without a key, runs the waitlist and reports the Job API as skipped", { timeout: 60_000 }, async () => {
    const run = await conformance(["--base-url", service!.base])
    const { failed, passed, skipped } = counts(run)
    assert.strictEqual(failed, 0, run.lines.join("\n"))
    assert.isAtLeast(passed, 25)
    assert.isAtLeast(skipped, 30)
    assert.isTrue(run.lines.some((line) => /^skip jobs 201: .* \(needs --key\)$/.test(line)))
    assert.strictEqual(run.code, 0)
  })

  it(
    "fails against a waitlist that answers 201, or joined in another case, and exits 1",
    { timeout: 60_000 },
    async () => {
      for (const [status, body] of [[201, `{"status":"joined"}`], [200, `{"status":"Joined"}`]] as const) {
        const { base, server } = await listen((request, response) => {
          request.resume()
          request.on("end", () => response.writeHead(status, { "content-type": "application/json" }).end(body))
        })
        try {
          const run = await conformance(["--base-url", base, "--only", "waitlist"])
          const { failed, passed } = counts(run)
          assert.isAtLeast(failed, 10, run.lines.join("\n"))
          assert.strictEqual(passed + failed, run.lines.length - 2)
          assert.include(
            run.lines,
            `FAIL waitlist 200: a new address is joined, as application/json: expected 200 {"status":"joined"}; got ${status} ${body}`
          )
          assert.strictEqual(run.code, 1)
        } finally {
          await close(server)
        }
      }
    }
  )

  it(
    "fails against a Job API that forgets WWW-Authenticate, and one that never answers",
    { timeout: 60_000 },
    async () => {
      const { base, server } = await listen((request, response) => {
        request.resume()
        if (request.url === "/v1/jobs" && request.method === "GET") {
          response.writeHead(401, { "content-type": "application/json" })
            .end(`{"error":"unauthorized","message":"A valid API key is required."}`)
        }
        // Anything else is never answered: each check ends at its timeout.
      })
      try {
        const run = await conformance(["--base-url", base, "--key", "rc_live_x", "--only", "jobs", "--timeout", "0.5"])
        assert.include(
          run.lines,
          "FAIL jobs 401: no key is unauthorized, with WWW-Authenticate: Bearer: expected www-authenticate: Bearer;"
            + ` got no www-authenticate header (401 {"error":"unauthorized","message":"A valid API key is required."})`
        )
        assert.isTrue(
          run.lines.some((line) =>
            line.startsWith("FAIL jobs 201: ") && line.endsWith("got a request that did not end")
          ),
          run.lines.join("\n")
        )
        assert.strictEqual(counts(run).passed, 0)
        assert.strictEqual(run.code, 1)
      } finally {
        server.closeAllConnections()
        await close(server)
      }
    }
  )
})
