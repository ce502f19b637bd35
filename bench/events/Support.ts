/** Small helpers of the event benches: time, statistics, and a process's memory and CPU from /proc. */
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
/** Wall-clock time in milliseconds, with a fraction: comparable with the server's `occurredAt`. */
export const clock = () => performance.timeOrigin + performance.now()

const percentile = (sorted: ArrayLike<number>, p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
export const summary = (values: ReadonlyArray<number>) => {
  const sorted = Float64Array.from(values).sort()
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.length === 0 ? NaN : sorted[sorted.length - 1]!
  }
}
export type Summary = ReturnType<typeof summary>
export const shuffle = <A>(items: Array<A>) => {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1))
    ;[items[i], items[j]] = [items[j]!, items[i]!]
  }
  return items
}
export const pick = <A>(items: ReadonlyArray<A>) => items[Math.floor(Math.random() * items.length)]!
export const fixed = (value: number, digits = 2) => Number.isFinite(value) ? value.toFixed(digits) : "-"
export const grouped = (value: number) => value.toLocaleString("en-US")
export const log = (line: string) => process.stderr.write(`[bench] ${line}\n`)

/** A process and its descendants (the service's stream process), from /proc. */
export const processTree = (pid: number): ReadonlyArray<number> => {
  let children: ReadonlyArray<number> = []
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(" ").filter((c) => c !== "")
      .map(Number)
  } catch {
    // Gone meanwhile: no children.
  }
  return [pid, ...children.flatMap(processTree)]
}

export const ownMemory = (pid: number, field: "VmRSS" | "VmHWM") => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)
  if (match === null) throw new Error(`no ${field} in /proc/${pid}/status`)
  return Number(match[1]) / 1024
}

/**
 * Resident memory of a process and its descendants, in MB: `VmRSS` (now) or `VmHWM` (the peak so far;
 * summed over the processes, so at most their peak together).
 */
export const memory = (pid: number, field: "VmRSS" | "VmHWM") =>
  processTree(pid).reduce((sum, each) => sum + ownMemory(each, field), 0)

const clockTicks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100
const ownCpuSeconds = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) / clockTicks
}

/** CPU time so far of a process alone and of its descendants (the service's stream process), in seconds. */
export const cpuOfTree = (pid: number) => {
  const [, ...descendants] = processTree(pid)
  return { own: ownCpuSeconds(pid), descendants: descendants.reduce((sum, each) => sum + ownCpuSeconds(each), 0) }
}

/** CPU time a process and its descendants have used so far (user + system), in seconds. */
export const cpuSeconds = (pid: number) => {
  const { descendants, own } = cpuOfTree(pid)
  return own + descendants
}

/**
 * How long the main thread (the event loop) of a process has waited, runnable, for a CPU so far (the
 * scheduler's `run_delay`, /proc/<pid>/schedstat), in seconds; 0 where the kernel does not tell.
 */
export const waitedForCpu = (pid: number) => {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, "utf8").split(" ")[1]) / 1e9 || 0
  } catch {
    return 0
  }
}

/** Runs `task` over `items` with at most `limit` at once. */
export const pooled = async <A, B>(
  items: ReadonlyArray<A>,
  limit: number,
  task: (item: A, i: number) => Promise<B>
) => {
  const results = new Array<B>(items.length)
  let next = 0
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++
      results[i] = await task(items[i]!, i)
    }
  }))
  return results
}
