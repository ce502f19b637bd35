/** The writers' workload: sequential changes of one account's Jobs, a few ms apart, each timed. */
import type { Client, JobView } from "./Api.ts"
import { clock, cpuOfTree, sleep, waitedForCpu } from "./Support.ts"

export interface Changes {
  readonly creates: number
  readonly constraintChanges: number
  readonly cancels: number
  /** Each change's HTTP request, start to answer, ms. */
  readonly writeMs: ReadonlyArray<number>
  /** When the answer to the write that made each event came back, by `jobId|type|jobRevision`. */
  readonly answered: ReadonlyMap<string, number>
  readonly seconds: number
  /** CPU the service used meanwhile, seconds: its own process, and its stream process. */
  readonly serviceCpu: { readonly service: number; readonly streamProcess: number }
  /** How long the service's event loop waited, runnable, for the CPU meanwhile, seconds. */
  readonly serviceWaitedForCpu: number
  /** The same for this process, which makes and times the requests (the load generator's own queueing). */
  readonly driverWaitedForCpu: number
}

/**
 * `count` changes of the Jobs in `live` (kept up to date), sequential, 3-7 ms apart: a new Job every
 * 20th, constraint changes round robin, and with `cancelLast` the last three cancel a Job each.
 */
export const makeChanges = async (
  api: Client,
  live: Array<JobView>,
  count: number,
  options: { readonly label: string; readonly cancelLast: boolean; readonly servicePid: number }
): Promise<Changes> => {
  const writeMs: Array<number> = []
  const answered = new Map<string, number>()
  const made = (job: JobView, ...types: ReadonlyArray<string>) => {
    const now = clock()
    for (const type of types) answered.set(`${job.id}|${type}|${job.jobRevision}`, now)
    return job
  }
  let creates = 0
  let constraintChanges = 0
  let cancels = 0
  const started = clock()
  const cpuBefore = cpuOfTree(options.servicePid)
  const waitedBefore = waitedForCpu(options.servicePid)
  const driverWaitedBefore = waitedForCpu(process.pid)
  for (let i = 0; i < count; i++) {
    const before = clock()
    if (options.cancelLast && i >= count - 3 && live.length > 1) {
      const job = live.pop()!
      made(await api.cancel(job.id), "job.cancelled")
      cancels++
    } else if (i % 20 === 0) {
      live.push(made(
        await api.create(`Book a table for ${2 + (i % 6)} at an Italian restaurant in Lisbon, ${options.label} ${i}`),
        "job.created"
      ))
      creates++
    } else {
      const at = i % live.length
      live[at] = made(await api.change(live[at]!, `${options.label} ${i}`), "job.revised", "work.invalidated")
      constraintChanges++
    }
    writeMs.push(clock() - before)
    await sleep(3 + Math.random() * 4)
  }
  const cpuAfter = cpuOfTree(options.servicePid)
  const serviceCpu = {
    service: cpuAfter.own - cpuBefore.own,
    streamProcess: cpuAfter.descendants - cpuBefore.descendants
  }
  const serviceWaitedForCpu = waitedForCpu(options.servicePid) - waitedBefore
  return {
    creates,
    constraintChanges,
    cancels,
    writeMs,
    answered,
    seconds: (clock() - started) / 1000,
    serviceCpu,
    serviceWaitedForCpu,
    driverWaitedForCpu: waitedForCpu(process.pid) - driverWaitedBefore
  }
}
