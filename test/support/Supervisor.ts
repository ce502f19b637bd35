import { closeSync, openSync, writeSync } from "node:fs"
import { request } from "node:http"
import type { IncomingHttpHeaders } from "node:http"
import { join } from "node:path"
import type { ServiceProcess } from "./ServiceProcess.ts"
import { freePort, sleep, start } from "./ServiceProcess.ts"

/**
 * Service processes that a test kills at will, each started again at once where its clients know it
 * (the same port and runner address, as a process supervisor does), and a client that reaches them as a
 * load balancer does: only a process that is ready, and, when the connection to one fails, the same
 * request again on another.
 */

/** One run of a slot's process, from its spawn to its exit. */
export interface Incarnation {
  readonly slot: number
  readonly service: ServiceProcess
  ready: boolean
  /** Set before the kill's signal is sent: a connection that fails afterwards failed because of it. */
  killed: boolean
}

export interface Answer {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly body: string
  readonly slot: number
  /** How many connections failed before this answer: each time the request may have been partly done. */
  readonly cut: number
}

/** What went wrong that the service must never do: a process exiting by itself, a connection it dropped, no answer. */
export interface Anomaly {
  readonly at: number
  readonly what: string
}

export interface Supervisor {
  readonly count: number
  readonly ready: () => ReadonlyArray<Incarnation>
  /** SIGKILLs the slot's process (started again by the supervisor); whether it was ready when killed. */
  readonly kill: (slot: number) => Promise<"ready" | "starting">
  /** Resolves once every slot's process is ready, or rejects after `within` ms. */
  readonly allReady: (within: number) => Promise<void>
  /** One request, sent to a ready process (`prefer`'s when it is), again to another while connections fail. */
  readonly send: (request: {
    readonly method: string
    readonly path: string
    readonly headers?: Record<string, string>
    readonly body?: string
    readonly prefer?: number
  }) => Promise<Answer>
  readonly figures: () => {
    readonly kills: number
    readonly killedStarting: number
    readonly restarts: number
    readonly connectionErrors: number
    readonly anomalies: ReadonlyArray<Anomaly>
  }
  /** Kills every process for good and closes the logs. */
  readonly stop: () => Promise<void>
}

/** How long a request to a live process may go unanswered before it is an anomaly (and sent elsewhere). */
const answerWithin = 30_000
/** How long a request waits for any process to be ready before it is an anomaly. */
const someReadyWithin = 60_000

export const make = async (options: {
  readonly count: number
  readonly env: (slot: number) => Record<string, string>
  /** Each slot's output goes to `slot-<n>.log` there, every run of it after a line that says which. */
  readonly logDir: string
}): Promise<Supervisor> => {
  const started = Date.now()
  let stopping = false
  let kills = 0
  let killedStarting = 0
  let restarts = 0
  let connectionErrors = 0
  const anomalies: Array<Anomaly> = []
  const anomaly = (what: string) =>
    anomalies.push({ at: Date.now() - started, what: `${new Date().toISOString()} ${what}` })

  const slots = await Promise.all(Array.from({ length: options.count }, async (_, slot) => ({
    slot,
    port: await freePort(),
    env: options.env(slot),
    log: openSync(join(options.logDir, `slot-${slot}.log`), "a"),
    current: undefined as Incarnation | undefined,
    runs: 0
  })))

  const exited = (incarnation: Incarnation) => {
    const child = incarnation.service.child
    return child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve()
      : new Promise<void>((resolve) => child.once("exit", () => resolve()))
  }

  // Each slot's life: start, serve until the process exits, start again, until the supervisor stops.
  const keep = async (slot: typeof slots[number]) => {
    while (!stopping) {
      const run = ++slot.runs
      if (run > 1) restarts++
      writeSync(
        slot.log,
        `\n--- slot ${slot.slot} run ${run} at +${Date.now() - started} ms, ${new Date().toISOString()}\n`
      )
      let incarnation: Incarnation | undefined
      try {
        await start(slot.env, {
          port: slot.port,
          output: slot.log,
          onSpawn: (service) => {
            incarnation = { slot: slot.slot, service, ready: false, killed: false }
            slot.current = incarnation
          }
        })
        incarnation!.ready = true
      } catch (error) {
        if (incarnation === undefined) throw error
        if (!incarnation.killed) {
          anomaly(`slot ${slot.slot} run ${run} did not become ready: ${String(error)}`)
          incarnation.killed = true
          incarnation.service.child.kill("SIGKILL")
        }
      }
      await exited(incarnation!)
      incarnation!.ready = false
      if (!incarnation!.killed) {
        const { exitCode, signalCode } = incarnation!.service.child
        // Exit code 0 is the service's graceful stop, which only SIGTERM or SIGINT start: sent from outside the test.
        anomaly(
          `slot ${slot.slot} run ${run} exited by itself (${exitCode ?? signalCode}${
            exitCode === 0 ? ": stopped by SIGTERM or SIGINT" : ""
          })`
        )
      }
    }
  }
  const lives = slots.map(keep)

  const ready = () => slots.flatMap((slot) => slot.current?.ready === true ? [slot.current] : [])

  const allReady = async (within: number) => {
    const deadline = Date.now() + within
    while (ready().length < slots.length) {
      if (Date.now() > deadline) throw new Error(`not every process ready within ${within} ms`)
      await sleep(100)
    }
  }
  await allReady(120_000)

  const kill = async (index: number) => {
    const incarnation = slots[index]!.current!
    const was = incarnation.ready ? "ready" : "starting"
    kills++
    if (was === "starting") killedStarting++
    incarnation.killed = true
    incarnation.ready = false
    incarnation.service.child.kill("SIGKILL")
    await exited(incarnation)
    return was
  }

  const once = (incarnation: Incarnation, req: Parameters<Supervisor["send"]>[0], cut: number) =>
    new Promise<Answer | "connection" | "timeout">((resolve) => {
      const body = req.body === undefined ? undefined : Buffer.from(req.body)
      const finish = (outcome: Answer | "connection" | "timeout") => {
        clearTimeout(timer)
        resolve(outcome)
      }
      const sent = request({
        host: "127.0.0.1",
        port: slots[incarnation.slot]!.port,
        path: req.path,
        method: req.method,
        // A connection of its own: one kept alive may be closed by the server as it is reused (its idle
        // timeout), which a client must retry, and which would hide a connection the service drops.
        agent: false,
        headers: { ...req.headers, ...(body === undefined ? {} : { "content-length": body.length }) }
      }, (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("end", () =>
          finish({
            status: response.statusCode!,
            headers: response.headers,
            body: Buffer.concat(chunks).toString("utf8"),
            slot: incarnation.slot,
            cut
          }))
        response.on("error", () => finish("connection"))
      })
      const timer = setTimeout(() => {
        finish("timeout")
        sent.destroy()
      }, answerWithin)
      sent.on("error", () => finish("connection"))
      sent.end(body)
    })

  const send: Supervisor["send"] = async (req) => {
    let failed: number | undefined
    let cut = 0
    let waitingSince = Date.now()
    for (;;) {
      const live = ready()
      // Another process than the one that just failed, when there is one.
      const others = live.filter((incarnation) => incarnation.slot !== failed)
      const candidates = others.length > 0 ? others : live
      const target = candidates.find((incarnation) => incarnation.slot === req.prefer)
        ?? candidates[Math.floor(Math.random() * candidates.length)]
      if (target === undefined) {
        if (Date.now() - waitingSince > someReadyWithin) {
          anomaly(`no process ready for ${someReadyWithin} ms`)
          waitingSince = Date.now()
        }
        await sleep(100)
        continue
      }
      const answer = await once(target, req, cut)
      if (typeof answer !== "string") return answer
      failed = target.slot
      cut++
      waitingSince = Date.now()
      if (target.killed) {
        connectionErrors++
      } else {
        anomaly(
          `${req.method} ${req.path}: ${
            answer === "timeout" ? `no answer within ${answerWithin} ms` : "connection dropped"
          } by slot ${target.slot}, not killed`
        )
        // Not again at once: a process that refuses connections while it is not killed refuses the next one too.
        await sleep(100)
      }
    }
  }

  const stop = async () => {
    stopping = true
    for (const slot of slots) {
      const incarnation = slot.current
      if (incarnation !== undefined) {
        incarnation.killed = true
        incarnation.service.child.kill("SIGKILL")
      }
    }
    await Promise.allSettled(lives)
    for (const slot of slots) closeSync(slot.log)
  }

  return {
    count: options.count,
    ready,
    kill,
    allReady,
    send,
    figures: () => ({ kills, killedStarting, restarts, connectionErrors, anomalies }),
    stop
  }
}
