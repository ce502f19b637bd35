/**
 * What open streams cost the writers: the same sequential changes (`BENCH_SLOWDOWN_WRITES`) timed with
 * a few streams open, then with all of them, then with a few again, in one process. The ratio of the
 * medians is what matters (the machine's speed cancels out); the few-stream runs before and after
 * bracket any drift of the run itself.
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

export interface WriterSlowdown {
  readonly fewStreams: number
  readonly manyStreams: number
  readonly writes: number
  readonly fewBeforeMs: Summary
  readonly manyMs: Summary
  readonly fewAfterMs: Summary
  readonly cpuPerWriteMicros: {
    readonly fewBefore: CpuPerWrite
    readonly many: CpuPerWrite
    readonly fewAfter: CpuPerWrite
  }
  /** Median with many streams over the median of both few-stream runs together. */
  readonly p50Ratio: number
  readonly p99Ratio: number
}

export const writerSlowdown = (
  counts: { readonly few: number; readonly many: number },
  fewBefore: Changes,
  many: Changes,
  fewAfter: Changes
): WriterSlowdown => {
  const few = summary([...fewBefore.writeMs, ...fewAfter.writeMs])
  const loaded = summary(many.writeMs)
  return {
    fewStreams: counts.few,
    manyStreams: counts.many,
    writes: many.writeMs.length,
    fewBeforeMs: summary(fewBefore.writeMs),
    manyMs: loaded,
    fewAfterMs: summary(fewAfter.writeMs),
    cpuPerWriteMicros: { fewBefore: cpuPerWrite(fewBefore), many: cpuPerWrite(many), fewAfter: cpuPerWrite(fewAfter) },
    p50Ratio: loaded.p50 / few.p50,
    p99Ratio: loaded.p99 / few.p99
  }
}

export const report = (s: WriterSlowdown): ReadonlyArray<string> => {
  const cell = (label: string, ms: Summary, cpu: CpuPerWrite) => [
    `  ${label.padEnd(50)}p50 ${fixed(ms.p50)} ms   p99 ${fixed(ms.p99)} ms   max ${fixed(ms.max)} ms`,
    `  ${"  per write: service CPU (waited for the CPU)".padEnd(50)}${fixed(cpu.service, 0)} us (${
      fixed(cpu.serviceWaited, 0)
    } us); its stream process's CPU ${fixed(cpu.streamProcess, 0)} us; the bench's driver waited ${
      fixed(cpu.driverWaited, 0)
    } us`
  ]
  return [
    "",
    `Writers: ${s.writes} sequential changes (3-7 ms apart), timed with ${s.fewStreams} and with ${
      grouped(s.manyStreams)
    } streams open`,
    ...cell(`${s.fewStreams} streams, before`, s.fewBeforeMs, s.cpuPerWriteMicros.fewBefore),
    ...cell(`${grouped(s.manyStreams)} streams`, s.manyMs, s.cpuPerWriteMicros.many),
    ...cell(`${s.fewStreams} streams, after`, s.fewAfterMs, s.cpuPerWriteMicros.fewAfter),
    `  ${"slowdown (many / few, both few runs together)".padEnd(50)}p50 ${fixed(s.p50Ratio)}x   p99 ${
      fixed(s.p99Ratio)
    }x`
  ]
}
