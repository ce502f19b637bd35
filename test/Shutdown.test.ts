import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { request } from "node:http"
import { delimiter, dirname, join } from "node:path"
import type { Readable } from "node:stream"
import { freePort, relay, root } from "./support/ServiceProcess.ts"
import * as TestDatabase from "./support/TestDatabase.ts"

const post = (port: number, email: string) =>
  new Promise<number>((resolve, reject) => {
    const body = JSON.stringify({ email, source: "landing" })
    const req = request({
      host: "127.0.0.1",
      port,
      path: "/v1/waitlist",
      method: "POST",
      agent: false,
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) }
    }, (res) => {
      res.resume()
      res.on("end", () => resolve(res.statusCode ?? 0))
      res.on("error", reject)
    })
    req.on("error", reject)
    req.end(body)
  })

/** The lines a process writes, as they complete. */
const linesOf = (output: Readable) => {
  const lines: Array<string> = []
  let buffered = ""
  output.on("data", (chunk: Buffer) => {
    buffered += chunk.toString()
    const complete = buffered.split("\n")
    buffered = complete.pop()!
    lines.push(...complete)
  })
  return lines
}

/** Until the service has logged that it listens (30 s at most). */
const untilListening = (lines: ReadonlyArray<string>) =>
  Effect.promise(async () => {
    for (let waited = 0; !lines.some((line) => line.includes("Listening on")); waited += 50) {
      if (waited > 30_000) throw new Error(`the service did not start:\n${lines.join("\n")}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  })

const cliCount = (env: Record<string, string>) =>
  new Promise<number>((resolve, reject) =>
    execFile(
      process.execPath,
      ["src/cli.ts", "waitlist", "count"],
      { env: { ...process.env, ...env } },
      (e, out) => e ? reject(e) : resolve(Number(out.trim()))
    )
  )

/**
 * The service as an operator runs it, stopped with SIGTERM while 16 clients keep registering: it stops
 * accepting, finishes every request it had accepted, closes the pool and exits 0. A request it accepted
 * is one it logged; each must have reached its client as a 200 and be stored.
 */
it.live("finishes the requests in flight on SIGTERM, loses none, and exits 0", () =>
  Effect.gen(function*() {
    const store = yield* TestDatabase.freshStore
    const port = yield* Effect.promise(freePort)
    const server = spawn(process.execPath, ["src/main.ts"], {
      env: { ...process.env, ...store, PORT: String(port), HOST: "127.0.0.1" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    relay(server.stderr)
    const lines = linesOf(server.stdout)
    const exited = new Promise<number | null>((resolve) => server.on("exit", (code) => resolve(code)))
    yield* untilListening(lines)

    const run = `${process.pid}.${Date.now().toString(36)}`
    const answered: Array<number> = []
    const refused: Record<string, number> = {}
    let stopped = false
    const client = async (id: number) => {
      for (let i = 0; !stopped; i++) {
        try {
          answered.push(await post(port, `shutdown.${run}.${id}.${i}@example.com`))
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code ?? String(error)
          refused[code] = (refused[code] ?? 0) + 1
          await new Promise((resolve) => setTimeout(resolve, 5))
        }
      }
    }
    const clients = Array.from({ length: 16 }, (_, id) => client(id))
    // Enough load to mean anything, counted rather than timed: a loaded machine answers fewer a second.
    while (answered.length < 100) yield* Effect.sleep("20 millis")
    const signalled = Date.now()
    server.kill("SIGTERM")
    const code = yield* Effect.promise(() => exited)
    stopped = true
    yield* Effect.promise(() => Promise.all(clients))

    assert.strictEqual(code, 0, "exit code after SIGTERM")
    const logged = lines.filter((line) => line.startsWith("{\"time\"")).map((line) => JSON.parse(line))
    const ok = answered.filter((status) => status === 200).length
    assert.deepStrictEqual(answered.filter((status) => status !== 200), [], "answers other than 200")
    assert.isAbove(ok, 50, "too little load to mean anything")
    assert.strictEqual(logged.length, ok, "requests the service handled but whose answer never arrived")
    assert.isAbove(
      logged.filter((entry) => Date.parse(entry.time) >= signalled).length,
      0,
      "no request was in flight at SIGTERM"
    )
    for (const failure of Object.keys(refused)) assert.oneOf(failure, ["ECONNREFUSED", "ECONNRESET"])
    assert.strictEqual(yield* Effect.promise(() => cliCount(store)), ok, "members stored")
    yield* Effect.logInfo(`SIGTERM under load: ${ok} answered 200, then refused: ${JSON.stringify(refused)}`)
  }), 120_000)

/**
 * `npm start` as npm runs it: the `start` script through `sh -c`, to which npm forwards the SIGTERM it
 * gets, then exits as the shell did. A shell that waits for node dies of that SIGTERM (143) and leaves
 * the service running, orphaned, on its port and its data directory; the script must `exec` node so that
 * the service gets the signal. It runs `src/main.ts` in place of `dist/main.js` (the same service, not
 * built): the shell is what is tested. The shell leads a process group of its own, ended afterwards, so
 * that an orphan does not outlive the test.
 */
it.live(
  "npm start's command stops gracefully when its shell gets SIGTERM, and keeps the join",
  () =>
    Effect.gen(function*() {
      const store = yield* TestDatabase.freshStore
      const port = yield* Effect.promise(freePort)
      const script = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: { start: string } })
        .scripts.start.replace("dist/main.js", "src/main.ts")
      const shell = yield* Effect.acquireRelease(
        Effect.sync(() =>
          spawn("/bin/sh", ["-c", script], {
            cwd: root,
            detached: true,
            env: {
              ...process.env,
              ...store,
              PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH}`,
              PORT: String(port),
              HOST: "127.0.0.1"
            },
            stdio: ["ignore", "pipe", "pipe"]
          })
        ),
        (shell) =>
          Effect.sync(() => {
            try {
              process.kill(-shell.pid!, "SIGKILL")
            } catch {
              // The group has ended: nothing outlived the test.
            }
          })
      )
      relay(shell.stderr)
      const lines = linesOf(shell.stdout)
      const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
        shell.on("exit", (code, signal) => resolve([code, signal]))
      )
      yield* untilListening(lines)
      assert.strictEqual(yield* Effect.promise(() => post(port, "npm.start@example.com")), 200)

      shell.kill("SIGTERM")
      assert.deepStrictEqual(yield* Effect.promise(() => exited), [0, null], "exit code and signal after SIGTERM")
      const after = yield* Effect.promise(() => post(port, "late@example.com").then(String, (error) => error.code))
      assert.strictEqual(after, "ECONNREFUSED", "the service still serves after its shell exited")
      assert.strictEqual(yield* Effect.promise(() => cliCount(store)), 1, "members stored")
    }),
  120_000
)
