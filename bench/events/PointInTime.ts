/**
 * The point-in-time view: `GET /v1/jobs/{id}?at=P` (and `?revision=N`, and the current Job) on a Job with
 * about 10 events and one with about `BENCH_HISTORY` (10,000): medians, p99 and their ratio, interleaved
 * in one random order on one connection, P picked at random among the Job's own positions.
 */
import type { Agent } from "node:http"
import type pg from "pg"
import type { JobView } from "./Api.ts"
import { client, settled } from "./Api.ts"
import type { Service } from "./Service.ts"
import { clock, cpuSeconds, fixed, grouped, log, pick, shuffle, summary } from "./Support.ts"

type Kind = "at" | "revision" | "current"
const kinds: ReadonlyArray<Kind> = ["at", "revision", "current"]

export const pointInTime = async (
  service: Service,
  db: pg.Client,
  agent: Agent,
  viewKey: string,
  sizes: { readonly historyTarget: number; readonly viewCount: number }
) => {
  const { historyTarget, viewCount } = sizes
  const view = client(service.port, viewKey, agent)
  const eventsOf = async (id: string) =>
    Number(
      (await db.query<{ n: string }>("SELECT count(*)::text AS n FROM job_events WHERE job_id = $1", [id])).rows[0]!.n
    )

  // About 10 events: created and interpreted, then three constraint changes, each interpreted.
  let small = await view.create("Book a table for 4 at an Italian restaurant in Lisbon (short history)")
  ;[small] = await settled(view, [small.id], 60_000)
  while ((await eventsOf(small.id)) < 10) {
    small = await view.change(small!, `short ${small!.jobRevision}`)
    ;[small] = await settled(view, [small.id], 60_000)
  }

  // About `historyTarget` events: constraint changes in a row (each 2 events, 3 when the interpreter
  // answers the revision before the next change).
  let large = await view.create("Book a table for 4 at an Italian restaurant in Lisbon (long history)")
  const buildStarted = clock()
  const buildCpuStarted = cpuSeconds(service.pid)
  let largeChanges = 0
  for (let count = await eventsOf(large.id); count < historyTarget;) {
    const batch = Math.max(1, Math.min(250, Math.ceil((historyTarget - count) / 2.5)))
    for (let i = 0; i < batch; i++) {
      large = await view.change(large, `long ${large.jobRevision}`)
      largeChanges++
    }
    count = await eventsOf(large.id)
    log(
      `long history: ${count} events after ${largeChanges} changes, ${((clock() - buildStarted) / 1000).toFixed(0)} s`
    )
  }
  const buildSeconds = (clock() - buildStarted) / 1000
  const buildCpu = cpuSeconds(service.pid) - buildCpuStarted
  await settled(view, [small!.id, large.id], 120_000)

  const smallEvents = await view.events(small!.id)
  const largeEvents = await view.events(large.id)
  const subjects = [
    { name: "short", job: await view.get(small!.id), events: smallEvents },
    { name: "long", job: await view.get(large.id), events: largeEvents }
  ] as const

  const timings: Record<string, Array<number>> = {}
  let wrongViews = 0
  const viewErrors: Array<string> = []
  const once = async (kind: Kind, subject: typeof subjects[number]) => {
    const { job, events } = subject
    const position = kind === "at" ? pick(events).position : undefined
    const revision = kind === "revision" ? 1 + Math.floor(Math.random() * job.jobRevision) : undefined
    const path = `/v1/jobs/${job.id}${
      position !== undefined ? `?at=${position}` : revision !== undefined ? `?revision=${revision}` : ""
    }`
    const answer = await view.call("GET", path)
    const body = answer.status === 200 ? JSON.parse(answer.body) as JobView : undefined
    const right = body !== undefined && body.id === job.id
      && (position === undefined || body.asOf?.position === position)
      && (revision === undefined || body.asOf?.jobRevision === revision)
      && (kind !== "current" || body.asOf === undefined)
    if (!right) {
      wrongViews++
      if (viewErrors.length < 5) viewErrors.push(`${path}: ${answer.status} ${answer.body.slice(0, 300)}`)
    }
    return answer.ms
  }
  // Warm-up, then every request of every cell in one random order, one at a time.
  for (const kind of kinds) for (const subject of subjects) for (let i = 0; i < 30; i++) await once(kind, subject)
  const plan = shuffle(
    kinds.flatMap((kind) => subjects.flatMap((subject) => Array.from({ length: viewCount }, () => ({ kind, subject }))))
  )
  for (const { kind, subject } of plan) (timings[`${kind}|${subject.name}`] ??= []).push(await once(kind, subject))

  const cell = (kind: Kind, name: string) => summary(timings[`${kind}|${name}`]!)
  const viewRows = kinds.flatMap((kind) =>
    subjects.map((subject) => ({
      query: kind,
      job: subject.name,
      events: subject.events.length,
      revisions: subject.job.jobRevision,
      ms: cell(kind, subject.name)
    }))
  )
  const ratios = Object.fromEntries(kinds.map((kind) => [kind, {
    median: cell(kind, "long").p50 / cell(kind, "short").p50,
    p99: cell(kind, "long").p99 / cell(kind, "short").p99
  }]))
  const viewResult = {
    requestsPerCell: viewCount,
    history: {
      shortEvents: smallEvents.length,
      longEvents: largeEvents.length,
      longChanges: largeChanges,
      buildSeconds,
      serviceCpuMsPerChange: (buildCpu * 1000) / largeChanges
    },
    rows: viewRows,
    ratiosLongOverShort: ratios,
    wrongViews,
    viewErrors
  }
  return viewResult
}

export type PointInTime = Awaited<ReturnType<typeof pointInTime>>

export const report = (viewResult: PointInTime): ReadonlyArray<string> => {
  const out: Array<string> = []
  const row = (label: string, value: string) => out.push(`  ${label.padEnd(50)}${value}`)
  const { requestsPerCell: viewCount, rows: viewRows, ratiosLongOverShort: ratios, wrongViews, viewErrors } = viewResult
  const { longChanges: largeChanges, buildSeconds } = viewResult.history
  out.push("", `Point-in-time view: GET /v1/jobs/{id}?at=P / ?revision=N / (current), ${viewCount} requests per cell,`)
  out.push("  cells interleaved in one random order, one request at a time on one keep-alive connection")
  out.push(
    `  long history built with ${grouped(largeChanges)} constraint changes in ${
      fixed(buildSeconds, 1)
    } s (service CPU ${fixed(viewResult.history.serviceCpuMsPerChange)} ms per change, no stream open)`
  )
  out.push(
    `  ${"query".padEnd(12)}${"job".padEnd(8)}${"events".padStart(8)}${"revisions".padStart(11)}${
      "median ms".padStart(11)
    }${"p99 ms".padStart(9)}${"max ms".padStart(9)}`
  )
  for (const r of viewRows) {
    out.push(
      `  ${(r.query === "at" ? "?at=P" : r.query === "revision" ? "?revision=N" : "(current)").padEnd(12)}${
        r.job.padEnd(8)
      }${grouped(r.events).padStart(8)}${grouped(r.revisions).padStart(11)}${fixed(r.ms.p50, 3).padStart(11)}${
        fixed(r.ms.p99, 3).padStart(9)
      }${fixed(r.ms.max, 3).padStart(9)}`
    )
  }
  for (const kind of kinds) {
    out.push(
      `  ratio long/short ${
        (kind === "at" ? "?at=P" : kind === "revision" ? "?revision=N" : "(current)").padEnd(12)
      } median ${fixed(ratios[kind]!.median, 3)}   p99 ${fixed(ratios[kind]!.p99, 3)}`
    )
  }
  row("views answered wrong (status, id, asOf)", `${wrongViews}`)
  for (const error of viewErrors) out.push(`    ${error}`)
  return out
}
