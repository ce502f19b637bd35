/**
 * Open streams and what they cost: `BENCH_STREAMS` SSE streams on one account's `GET /v1/events`, opened
 * at most 100 at once, and the service's memory before and with them open (per stream).
 */
import type { Readers } from "./ReaderClient.ts"
import type { Service } from "./Service.ts"
import { measureMemory } from "./Service.ts"
import { fixed, grouped, sleep } from "./Support.ts"

export type Memory = Awaited<ReturnType<typeof measureMemory>>

export interface Opening {
  readonly service: Service
  readonly key: string
  readonly readers: Readers
}

/**
 * Opens the streams `from` to `to` (exclusive) in the readers' process, every one after position `after`,
 * at most 100 at once; waits until each has received the `history` events. A 503 (the store did not
 * answer in time) is counted, and the stream opened again after its Retry-After, up to 5 times; any other
 * refusal fails the bench. `drain`: thin clients that only count what they are sent (`openDrainedStream`).
 */
const open = async (
  opening: Opening,
  streams: { readonly from: number; readonly to: number; readonly after: number },
  history: number,
  drain: boolean
) => {
  const { after, from, to } = streams
  const { failure, refusals, seconds } = await opening.readers.open(
    opening.service.port,
    opening.key,
    from,
    to,
    after,
    history,
    drain
  )
  if (failure !== undefined) throw new Error(failure)
  return { seconds, refusals }
}

/** Full readers from position 0, each waited for until it has the `history` events. */
export const openStreams = (opening: Opening, from: number, to: number, history: number) =>
  open(opening, { from, to, after: 0 }, history, false)

/** Thin clients after `after` (the latest event, for the writers' rounds). */
export const openDrained = (opening: Opening, from: number, to: number, after: number) =>
  open(opening, { from, to, after }, 0, true)

export interface StreamMemory {
  readonly streams: number
  readonly openSeconds: number
  readonly refusals: ReadonlyArray<string>
  readonly before: Memory
  readonly idle: Memory
  readonly perStreamKB: { readonly rss: number; readonly rssAfterGc: number; readonly heapUsedAfterGc: number }
}

/** Memory with `count` more streams open against `before` (2 s after they caught up). */
export const streamMemory = async (
  service: Service,
  before: Memory,
  count: number,
  opened: { readonly seconds: number; readonly refusals: ReadonlyArray<string> }
): Promise<StreamMemory> => {
  await sleep(2000)
  const idle = await measureMemory(service)
  const per = (field: "rss" | "rssAfterGc" | "heapUsedAfterGc") => ((idle[field] - before[field]) * 1024) / count
  return {
    streams: count,
    openSeconds: opened.seconds,
    refusals: opened.refusals,
    before,
    idle,
    perStreamKB: { rss: per("rss"), rssAfterGc: per("rssAfterGc"), heapUsedAfterGc: per("heapUsedAfterGc") }
  }
}

export const memoryHeader = () =>
  `  ${"service memory, MB (VmRSS; then after a full GC)".padEnd(50)}${"RSS".padStart(8)}${"RSS GC'd".padStart(10)}${
    "heap GC'd".padStart(11)
  }`

export const memoryRow = (label: string, at: Memory) =>
  `  ${label.padEnd(50)}${fixed(at.rss, 1).padStart(8)}${fixed(at.rssAfterGc, 1).padStart(10)}${
    fixed(at.heapUsedAfterGc, 1).padStart(11)
  }`

export const report = (m: StreamMemory): ReadonlyArray<string> => [
  memoryRow("before opening the streams", m.before),
  memoryRow(`with ${grouped(m.streams)} more idle streams`, m.idle),
  `  ${"  increase per stream, KB".padEnd(50)}${fixed(m.perStreamKB.rss, 1).padStart(8)}${
    fixed(m.perStreamKB.rssAfterGc, 1).padStart(10)
  }${fixed(m.perStreamKB.heapUsedAfterGc, 1).padStart(11)}`,
  ...(m.idle.byProcess.length < 2 ? [] : m.idle.byProcess.map((each, i) => {
    const was = m.before.byProcess[i]
    const per = (field: "rssAfterGc" | "heapUsedAfterGc") =>
      was === undefined ? NaN : ((each[field] - was[field]) * 1024) / m.streams
    return `  ${`    of which the ${i === 0 ? "service" : "stream process"}, MB; per stream, KB`.padEnd(58)}${
      fixed(each.rssAfterGc, 1).padStart(10)
    }${fixed(each.heapUsedAfterGc, 1).padStart(11)};${fixed(per("rssAfterGc"), 1).padStart(7)}${
      fixed(per("heapUsedAfterGc"), 1).padStart(7)
    }`
  })),
  `  ${`time to open ${grouped(m.streams)} more streams (100 at once)`.padEnd(50)}${
    fixed(m.openSeconds, 1)
  } s; answered 503 (then opened again): ${m.refusals.length}`,
  ...[...new Set(m.refusals)].map((refusal) => `    ${refusal.slice(0, 300)}`)
]
