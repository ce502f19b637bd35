/**
 * The event streams and the point-in-time view under load, in one run, on PostgreSQL (BENCH_DATABASE_URL,
 * default the local server): ONE service process, as `npm start` runs it (`JOBS_API=preview`), on a new
 * database, dropped at the end (also on failure). The service (and its stream process) is pinned to CPU 0;
 * this process, which drives and times the writers, and the readers' process (`Readers.ts`, which holds
 * the streams and parses them) to CPU 1; PostgreSQL is left to the scheduler (`bench/Launch.ts`). In
 * order, on one account's `GET /v1/events`:
 *
 * 1. `WriterSlowdown`: changes timed with `BENCH_FEW_STREAMS` (10) streams open;
 * 2. `StreamMemory`: the rest of `BENCH_STREAMS` (1,000) opened, and the memory each one adds;
 * 3. `Delivery`: `BENCH_CHANGES` (200) changes with every stream open (also the writers' times with many
 *    streams): delays, and every stream checked for every event once, in order (exits 1 if not);
 * 4. `WriterSlowdown` again with the few streams only, after the others are closed: the ratio of the
 *    medians, many streams over few; then `BENCH_SLOWDOWN_ROUNDS` (3) rounds of the others opened again
 *    (from the latest event) as thin clients that only count bytes, and closed, `BENCH_SLOWDOWN_WRITES`
 *    changes timed in each: the ratio of the medians of every write of the rounds, many over few;
 * 5. `PointInTime`: the view of a Job with about 10 events against one with `BENCH_HISTORY` (10,000).
 *
 *   npm run bench:events   # BENCH_STREAMS=1000 BENCH_CHANGES=200 BENCH_SLOWDOWN_WRITES=100 BENCH_SLOWDOWN_ROUNDS=3 BENCH_HISTORY=10000 BENCH_VIEWS=300
 *   BENCH_SERVICE_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" npm run bench:events   # node flags for the service
 *   BENCH_SERVICE_ROOT=../other-checkout npm run bench:events   # measures that checkout's service the same way
 *
 * Prints a table and writes the same figures to bench/results/events-<timestamp>.json.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { Agent } from "node:http"
import { availableParallelism, loadavg } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { scratchDatabase } from "../Database.ts"
import { canPin, pinning, pinThisProcess } from "../Launch.ts"
import type { JobView } from "./Api.ts"
import { client, resent, settled } from "./Api.ts"
import { makeChanges } from "./Changes.ts"
import * as Delivery from "./Delivery.ts"
import * as PointInTime from "./PointInTime.ts"
import type { Readers } from "./ReaderClient.ts"
import { startReaders } from "./ReaderClient.ts"
import type { Service } from "./Service.ts"
import { createKey, measureMemory, serviceRoot, startService, stopService, watchOtherTransactions } from "./Service.ts"
import * as StreamMemory from "./StreamMemory.ts"
import { clock, cpuSeconds, fixed, grouped, log, memory, sleep } from "./Support.ts"
import * as WriterSlowdown from "./WriterSlowdown.ts"

const streamCount = Number(process.env.BENCH_STREAMS ?? 1000)
const fewStreams = Math.min(streamCount, Number(process.env.BENCH_FEW_STREAMS ?? 10))
const changeCount = Number(process.env.BENCH_CHANGES ?? 200)
const slowdownWrites = Number(process.env.BENCH_SLOWDOWN_WRITES ?? 100)
const slowdownRounds = Number(process.env.BENCH_SLOWDOWN_ROUNDS ?? 3)
const historyTarget = Number(process.env.BENCH_HISTORY ?? 10_000)
const viewCount = Number(process.env.BENCH_VIEWS ?? 300)
const outputDir = join(dirname(fileURLToPath(import.meta.url)), "..", "results")

const database = scratchDatabase("events")
// The bench's streams are all one account's: the service lets it hold them all.
const env = { DATABASE_URL: database.url, EVENTS_MAX_STREAMS_PER_ACCOUNT: String(streamCount) }
let service: Service | undefined
let readers: Readers | undefined
let db: pg.Client | undefined
let cleaned: Promise<void> | undefined

const cleanup = () =>
  cleaned ??= (async () => {
    readers?.stop()
    if (service !== undefined) await stopService(service).catch(() => undefined)
    await db?.end().catch(() => undefined)
    await database.drop().catch((error: unknown) =>
      process.stderr.write(`could not drop database ${database.name}: ${String(error)}\n`)
    )
  })()

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    process.stderr.write(`${signal}: cleaning up\n`)
    void cleanup().finally(() => process.exit(130))
  })
}

const placement = "the service and its stream process on CPU 0, this driver and the readers' process on CPU 1"

const main = async () => {
  const machine = { cores: availableParallelism(), loadAverage: loadavg(), pinned: canPin }
  pinThisProcess(1)
  await database.create()
  log(
    `database ${database.name}; service ${serviceRoot}; load average ${
      machine.loadAverage.map((n) => n.toFixed(2)).join(" ")
    }; ${pinning(placement)}`
  )
  service = await startService(env)
  readers = startReaders()
  db = new pg.Client({ connectionString: env.DATABASE_URL })
  await db.connect()
  // Idle connections are let go before the service's keep-alive timeout (5 s) closes them under a request.
  const agent = new Agent({ keepAlive: true, maxSockets: 16, timeout: 4000 })

  const sseKey = createKey(env, "bench-sse")
  const sse = client(service.port, sseKey, agent)
  const opening = { service, key: sseKey, readers }
  const settle = async () => settled(sse, (await sse.list(100)).data.map((job) => job.id), 120_000)

  // A little history, and the stream's code path warmed up with one stream opened and closed.
  const live: Array<JobView> = []
  for (let i = 0; i < 5; i++) live.push(await sse.create(`Book a table for ${2 + i} in Lisbon, history ${i}`))
  await settled(sse, live.map((job) => job.id), 60_000)
  await readers.warm(service.port, sseKey)
  log(`${fewStreams} streams, ${slowdownWrites} writes`)

  // ---- 1. the writers with a few streams open -----------------------------------------------------
  // Warmed up first (the first changes of a process are slower), so that the ratio compares like with like.
  await makeChanges(sse, live, slowdownWrites, { label: "warm-up", cancelLast: false, servicePid: service.pid })
  await settle()
  await StreamMemory.openStreams(opening, 0, fewStreams, (await sse.events()).length)
  const fewBefore = await makeChanges(sse, live, slowdownWrites, {
    label: "few before",
    cancelLast: false,
    servicePid: service.pid
  })
  await settle()

  // ---- 2. every stream open, and its memory ---------------------------------------------------------
  const history = await sse.events()
  // Measured here, with the few streams open and the writers warmed up: what each further stream costs.
  await sleep(2000)
  const memBefore = await measureMemory(service)
  log(`RSS before streams ${memBefore.rss.toFixed(1)} MB; opening ${streamCount - fewStreams} more streams`)
  const opened = await StreamMemory.openStreams(opening, fewStreams, streamCount, history.length)
  const memory_ = await StreamMemory.streamMemory(service, memBefore, streamCount - fewStreams, opened)
  log(`${streamCount} streams open in ${opened.seconds.toFixed(1)} s; RSS ${memory_.idle.rss.toFixed(1)} MB`)

  // ---- 3. delivery to every stream ------------------------------------------------------------------
  const lastBefore = (await sse.events()).at(-1)?.position ?? 0
  const serviceCpuStarted = cpuSeconds(service.pid)
  const others = watchOtherTransactions(database.name)
  const benchCpuStarted = process.cpuUsage()
  const readersCpuStarted = cpuSeconds(readers.pid)
  const started = clock()
  const many = await makeChanges(sse, live, changeCount, { label: "change", cancelLast: true, servicePid: service.pid })
  await settle()
  const expected = await sse.events()
  await readers.caughtUp(0, streamCount, expected.at(-1)!.position)
  const phaseSeconds = (clock() - started) / 1000
  const otherTransactions = await others.stop()
  const serviceCpu = cpuSeconds(service.pid) - serviceCpuStarted
  const benchCpuUsage = process.cpuUsage(benchCpuStarted)
  const readersCpu = cpuSeconds(readers.pid) - readersCpuStarted
  await sleep(1000) // anything arriving late (a duplicate) is counted too
  const peakRss = memory(service.pid, "VmHWM")
  const afterDelivery = await measureMemory(service)
  const delivered = Delivery.delivery(await readers.collect(0, streamCount), expected, lastBefore, many)
  const cpu = {
    phaseSeconds,
    serviceSeconds: serviceCpu,
    serviceMicrosPerDelivery: (serviceCpu * 1e6) / Math.max(1, delivered.deliveries),
    driverSeconds: (benchCpuUsage.user + benchCpuUsage.system) / 1e6,
    readersSeconds: readersCpu
  }
  log(`streams checked (${delivered.check.missing} missing, ${delivered.check.duplicated} duplicated)`)

  // ---- 4. the writers with a few streams again --------------------------------------------------------
  await readers.close(fewStreams, streamCount)
  await sleep(2000)
  const afterClosing = await measureMemory(service)
  const fewAfter = await makeChanges(sse, live, slowdownWrites, {
    label: "few after",
    cancelLast: false,
    servicePid: service.pid
  })
  await settle()
  const final = await sse.events()
  await readers.caughtUp(0, fewStreams, final.at(-1)!.position)
  const fewChecked = Delivery.delivery(await readers.collect(0, fewStreams), final, final.at(-1)!.position, fewAfter)

  // ---- 4b. rounds of every stream open (thin clients), then a few: the machine's drift falls on both ------
  const phases: Array<WriterSlowdown.Phase> = [
    { label: "before", round: 0, streams: fewStreams, changes: fewBefore },
    { label: "while the deliveries were checked", round: 0, streams: streamCount, changes: many },
    { label: "after", round: 0, streams: fewStreams, changes: fewAfter }
  ]
  for (let round = 1; round <= slowdownRounds; round++) {
    log(`round ${round} of ${slowdownRounds}: ${streamCount - fewStreams} streams opened again, then closed`)
    const latest = (await sse.events()).at(-1)?.position ?? 0
    await StreamMemory.openDrained(opening, fewStreams, streamCount, latest)
    await sleep(1000)
    const options = { cancelLast: false, servicePid: service.pid }
    const withMany = await makeChanges(sse, live, slowdownWrites, { ...options, label: `many ${round}` })
    await settle()
    // What the thin clients received: the deliveries the round measured, or it measured nothing.
    const drained = await readers.close(fewStreams, streamCount)
    if (drained === 0) throw new Error(`round ${round}: the thin clients received nothing`)
    phases.push({
      label: `round ${round}, thin clients, ${fixed(drained / 1024 / (streamCount - fewStreams), 1)} KB each`,
      round,
      streams: streamCount,
      changes: withMany
    })
    await sleep(1000)
    phases.push({
      label: `round ${round}`,
      round,
      streams: fewStreams,
      changes: await makeChanges(sse, live, slowdownWrites, { ...options, label: `few ${round}` })
    })
    await settle()
  }
  const slowdown = WriterSlowdown.writerSlowdown({ few: fewStreams, many: streamCount }, phases)
  await readers.close(0, fewStreams)
  const readersPeakRss = memory(readers.pid, "VmHWM")

  // ---- 5. point-in-time view -------------------------------------------------------------------------
  log("building the histories for the view")
  const view = await PointInTime.pointInTime(service, db, agent, createKey(env, "bench-view"), {
    historyTarget,
    viewCount
  })
  const memEnd = await measureMemory(service)

  // ---- Report --------------------------------------------------------------------------------------
  const out: Array<string> = []
  const row = (label: string, value: string) => out.push(`  ${label.padEnd(50)}${value}`)
  out.push(
    "",
    `Event streams: ${grouped(streamCount)} SSE streams on one service process (one account's GET /v1/events)`,
    `  service started as npm start runs it: ${service.command}; ${pinning(placement)}`
  )
  out.push(StreamMemory.memoryHeader(), ...StreamMemory.report(memory_))
  out.push(
    StreamMemory.memoryRow("after the deliveries (streams still open)", afterDelivery),
    StreamMemory.memoryRow(`2 s after closing all but ${fewStreams} streams`, afterClosing),
    StreamMemory.memoryRow("end of the run", memEnd)
  )
  row("peak RSS (VmHWM) during the deliveries", `${fixed(peakRss, 1)} MB`)
  out.push(...Delivery.report(delivered))
  row(
    "other databases' writing transactions meanwhile",
    `open in ${otherTransactions.samplesWithOne} of ${otherTransactions.samples} samples (every 100 ms), the oldest ${
      fixed(otherTransactions.oldestMs, 0)
    } ms old (events wait for every older transaction id of the cluster)`
  )
  row(
    "CPU from the first change to the last delivery",
    `${fixed(cpu.phaseSeconds, 1)} s of wall time: service ${fixed(cpu.serviceSeconds, 1)} s (${
      fixed(cpu.serviceMicrosPerDelivery, 1)
    } us per delivery, all included), the readers' process ${fixed(cpu.readersSeconds, 1)} s, the writers' driver ${
      fixed(cpu.driverSeconds, 1)
    } s`
  )
  out.push(...WriterSlowdown.report(slowdown))
  row("peak RSS (VmHWM) of the readers' process", `${fixed(readersPeakRss, 1)} MB`)
  row(
    `the ${fewStreams} streams kept open, checked at the end`,
    `missing: ${fewChecked.check.missing}, duplicated: ${fewChecked.check.duplicated}, out of order: ${fewChecked.check.outOfOrder}`
  )
  out.push(...PointInTime.report(view))

  const levels = Object.entries(service.levels).map(([level, n]) => `${level} ${n}`).join(", ")
  out.push(
    "",
    `Service log lines: ${levels === "" ? "none" : levels}; warnings, errors and stderr: ${service.complaints.length}`
  )
  for (const line of service.complaints.slice(0, 10)) out.push(`  ${line.slice(0, 400)}`)
  out.push(`Requests sent again after their kept-alive connection was reset: ${resent.length}`)
  for (const line of resent.slice(0, 5)) out.push(`  ${line}`)
  out.push(
    `Machine: ${machine.cores} cores, load average at start ${
      machine.loadAverage.map((n) => n.toFixed(2)).join(" ")
    }, at the end ${loadavg().map((n) => n.toFixed(2)).join(" ")}`
  )
  process.stdout.write(`${out.join("\n")}\n`)

  const failed = Delivery.failed(delivered) || Delivery.failed(fewChecked) || view.wrongViews > 0
  const timestamp = new Date().toISOString().replace(/[:.]/g, "-")
  mkdirSync(outputDir, { recursive: true })
  const file = join(outputDir, `events-${timestamp}.json`)
  const figures = {
    date: new Date().toISOString(),
    machine,
    database: "postgresql",
    service: serviceRoot,
    serviceCommand: service.command,
    placement: canPin ? placement : "unpinned",
    loadAverageAtEnd: loadavg(),
    streams: {
      memoryMB: { ...memory_, afterDelivery, afterClosing, peakRss, readersPeakRss },
      cpu,
      delivery: delivered,
      otherDatabasesWritingTransactions: otherTransactions
    },
    writerSlowdown: slowdown,
    fewStreamsAtEnd: fewChecked.check,
    memoryAtEndMB: memEnd,
    view,
    resent,
    serviceLog: { levels: service.levels, complaints: service.complaints.slice(0, 50) },
    ok: !failed
  }
  writeFileSync(file, `${JSON.stringify(figures, null, 2)}\n`)
  process.stdout.write(`\nWritten to ${join("bench", "results", `events-${timestamp}.json`)}\n`)
  if (failed) {
    process.stdout.write("FAILED: a stream did not receive every event exactly once in order, or a view was wrong\n")
  }
  return failed ? 1 : 0
}

let code = 1
try {
  code = await main()
} catch (error) {
  process.stderr.write(
    `bench/events failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`
  )
  if (service !== undefined && service.complaints.length > 0) {
    process.stderr.write(`service complaints:\n${service.complaints.slice(0, 20).join("\n")}\n`)
  }
  code = 1
} finally {
  await cleanup()
}
process.exit(code)
