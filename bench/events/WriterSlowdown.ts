/**
 * What open streams cost the writers: the same sequential changes (`BENCH_SLOWDOWN_WRITES`) timed in
 * phases with a few streams open and with all of them, alternately, in one service process: a few, all
 * (while the deliveries are checked), a few, then `BENCH_SLOWDOWN_ROUNDS` more rounds of all and a few.
 * The ratio of the medians of every write with all the streams open and every write with a few is what
 * matters: the machine's speed cancels out, and alternating spreads its drift over both.
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

/** One timed run of the writers, with `streams` open. */
export interface Phase {
  readonly label: string
  readonly streams: number
  readonly changes: Changes
}

export interface PhaseFigures {
  readonly label: string
  readonly streams: number
  readonly ms: Summary
  readonly cpuPerWriteMicros: CpuPerWrite
}

export interface WriterSlowdown {
  readonly fewStreams: number
  readonly manyStreams: number
  readonly phases: ReadonlyArray<PhaseFigures>
  /** Every write of the phases with a few streams, and of those with many. */
  readonly fewMs: Summary
  readonly manyMs: Summary
  /** Median with many streams over the median with a few, every phase's writes together. */
  readonly p50Ratio: number
  readonly p99Ratio: number
}

export const writerSlowdown = (
  counts: { readonly few: number; readonly many: number },
  phases: ReadonlyArray<Phase>
): WriterSlowdown => {
  const pooled = (streams: number) =>
    summary(phases.filter((phase) => phase.streams === streams).flatMap((phase) => phase.changes.writeMs))
  const few = pooled(counts.few)
  const many = pooled(counts.many)
  return {
    fewStreams: counts.few,
    manyStreams: counts.many,
    phases: phases.map(({ changes, label, streams }) => ({
      label,
      streams,
      ms: summary(changes.writeMs),
      cpuPerWriteMicros: cpuPerWrite(changes)
    })),
    fewMs: few,
    manyMs: many,
    p50Ratio: many.p50 / few.p50,
    p99Ratio: many.p99 / few.p99
  }
}

export const report = (s: WriterSlowdown): ReadonlyArray<string> => {
  const line = (label: string, ms: Summary) =>
    `  ${label.padEnd(50)}p50 ${fixed(ms.p50)} ms   p99 ${fixed(ms.p99)} ms   max ${fixed(ms.max)} ms`
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
    line(`every write with ${s.fewStreams} streams (${s.fewMs.count})`, s.fewMs),
    line(`every write with ${grouped(s.manyStreams)} streams (${s.manyMs.count})`, s.manyMs),
    `  ${"slowdown (many / few, every phase's writes)".padEnd(50)}p50 ${fixed(s.p50Ratio)}x   p99 ${fixed(s.p99Ratio)}x`
  ]
}
