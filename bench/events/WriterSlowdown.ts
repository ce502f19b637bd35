/**
 * What open streams cost the writers: the same sequential changes (`BENCH_SLOWDOWN_WRITES`) timed in
 * phases with a few streams open and with all of them, in one service process. First a few, then all
 * while every delivery is checked (the readers parse every event), then a few again: the ratio of those
 * medians. Then `BENCH_SLOWDOWN_ROUNDS` rounds of all the streams opened again as thin clients (they
 * only count the bytes: 1,000 clients elsewhere than on the service's two cores) and a few: the ratio of
 * the medians of every write of those rounds, the slowdown the service itself causes. Alternating
 * spreads the machine's drift over both.
 */
import type { Changes } from "./Changes.ts"
import type { Summary } from "./Support.ts"
import { fixed, grouped, summary } from "./Support.ts"

/** Service CPU per write, µs, over the whole timed run (the stream process's includes its fan-out). */
export interface CpuPerWrite {
  readonly service: number
  readonly streamProcess: number
  /** How long the service's event loop waited, runnable, for the CPU (another process had it). */
  readonly serviceWaited: number
  /** The same for the bench's process that times the writes. */
  readonly driverWaited: number
}

const cpuPerWrite = (changes: Changes): CpuPerWrite => {
  const perWrite = (seconds: number) => (seconds * 1e6) / changes.writeMs.length
  return {
    service: perWrite(changes.serviceCpu.service),
    streamProcess: perWrite(changes.serviceCpu.streamProcess),
    serviceWaited: perWrite(changes.serviceWaitedForCpu),
    driverWaited: perWrite(changes.driverWaitedForCpu)
  }
}

/** One timed run of the writers, with `streams` open, in `round` (0: around the checked deliveries). */
export interface Phase {
  readonly label: string
  readonly round: number
  readonly streams: number
  readonly changes: Changes
}

export interface PhaseFigures {
  readonly label: string
  readonly streams: number
  readonly ms: Summary
  readonly cpuPerWriteMicros: CpuPerWrite
}

/** Every write with a few streams and with many, of some phases, and the ratios of their medians and p99s. */
export interface Comparison {
  readonly fewMs: Summary
  readonly manyMs: Summary
  readonly p50Ratio: number
  readonly p99Ratio: number
}

export interface WriterSlowdown {
  readonly fewStreams: number
  readonly manyStreams: number
  readonly phases: ReadonlyArray<PhaseFigures>
  /** Round 0: every stream a full reader, while the deliveries are checked. */
  readonly checkedDeliveries: Comparison
  /** The rounds after it: the many streams thin clients. The slowdown the service causes. */
  readonly rounds: Comparison | undefined
}

export const writerSlowdown = (
  counts: { readonly few: number; readonly many: number },
  phases: ReadonlyArray<Phase>
): WriterSlowdown => {
  const compare = (some: ReadonlyArray<Phase>): Comparison => {
    const pooled = (streams: number) =>
      summary(some.filter((phase) => phase.streams === streams).flatMap((phase) => phase.changes.writeMs))
    const few = pooled(counts.few)
    const many = pooled(counts.many)
    return { fewMs: few, manyMs: many, p50Ratio: many.p50 / few.p50, p99Ratio: many.p99 / few.p99 }
  }
  const rounds = phases.filter((phase) => phase.round > 0)
  return {
    fewStreams: counts.few,
    manyStreams: counts.many,
    phases: phases.map(({ changes, label, streams }) => ({
      label,
      streams,
      ms: summary(changes.writeMs),
      cpuPerWriteMicros: cpuPerWrite(changes)
    })),
    checkedDeliveries: compare(phases.filter((phase) => phase.round === 0)),
    rounds: rounds.length > 0 ? compare(rounds) : undefined
  }
}

export const report = (s: WriterSlowdown): ReadonlyArray<string> => {
  const line = (label: string, ms: Summary) =>
    `  ${label.padEnd(50)}p50 ${fixed(ms.p50)} ms   p99 ${fixed(ms.p99)} ms   max ${fixed(ms.max)} ms`
  const comparison = (what: string, c: Comparison) => [
    line(`${what}: every write with ${s.fewStreams} streams (${c.fewMs.count})`, c.fewMs),
    line(`${what}: every write with ${grouped(s.manyStreams)} streams (${c.manyMs.count})`, c.manyMs),
    `  ${`slowdown, ${what} (many / few)`.padEnd(50)}p50 ${fixed(c.p50Ratio)}x   p99 ${fixed(c.p99Ratio)}x`
  ]
  return [
    "",
    `Writers: sequential changes (3-7 ms apart), timed in phases with ${s.fewStreams} and with ${
      grouped(s.manyStreams)
    } streams open`,
    ...s.phases.flatMap(({ cpuPerWriteMicros: cpu, label, ms, streams }) => [
      line(`${grouped(streams)} streams, ${label} (${ms.count} writes)`, ms),
      `  ${"  per write: service CPU (waited for the CPU)".padEnd(50)}${fixed(cpu.service, 0)} us (${
        fixed(cpu.serviceWaited, 0)
      } us); its stream process's CPU ${fixed(cpu.streamProcess, 0)} us; the bench's driver waited ${
        fixed(cpu.driverWaited, 0)
      } us`
    ]),
    ...comparison("around the checked deliveries", s.checkedDeliveries),
    ...(s.rounds === undefined ? [] : comparison("the rounds, thin clients", s.rounds))
  ]
}
