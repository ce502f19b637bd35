/**
 * Delivery to many streams: `BENCH_CHANGES` changes made while every stream is open, and the delay from
 * each event's `occurredAt` (the server's clock when the change was made, just before its transaction)
 * to its arrival at each stream (the readers' process's clock: the same machine). Every stream must receive
 * every event of the account once, in order: the bench exits 1 if not.
 */
import { isDeepStrictEqual } from "node:util"
import type { EventJson } from "./Api.ts"
import type { Changes } from "./Changes.ts"
import type { StreamRecord } from "./Streams.ts"
import { fixed, grouped, summary } from "./Support.ts"

/**
 * Every stream against the account's events as the JSON pages answer them (`expected`); the delays of
 * the events after `lastBefore`, made by `changes`.
 */
export const delivery = (
  streams: ReadonlyArray<StreamRecord>,
  expected: ReadonlyArray<EventJson>,
  lastBefore: number,
  changes: Changes
) => {
  const answered = changes.answered
  // Every stream against the account's events as the JSON pages answer them.
  const index = new Map(expected.map((event, i) => [event.position, i]))
  let missing = 0
  let duplicated = 0
  let outOfOrder = 0
  let unexpected = 0
  let wrongType = 0
  let dataMismatches = 0
  let badIds = 0
  let heartbeats = 0
  const streamsWithProblems = new Set<number>()
  const delays: Array<number> = []
  const sinceAnswer: Array<number> = []
  const liveEvents = expected.filter((event) => event.position > lastBefore)
  const occurred = new Map(liveEvents.map((event) => [event.position, Date.parse(event.occurredAt)]))
  const answeredAt = new Map(liveEvents.flatMap((event) => {
    const at = answered.get(`${event.jobId}|${event.type}|${event.jobRevision}`)
    return at === undefined ? [] : [[event.position, at] as const]
  }))
  const firstArrival = new Map<number, number>()
  const lastArrival = new Map<number, number>()
  for (const stream of streams) {
    const seen = new Set<number>()
    const before = missing + duplicated + outOfOrder + unexpected + wrongType
    stream.positions.forEach((position, i) => {
      const at = index.get(position)
      if (at === undefined) unexpected++
      else if (expected[at]!.type !== stream.types[i]) wrongType++
      if (seen.has(position)) duplicated++
      seen.add(position)
      if (i > 0 && position <= stream.positions[i - 1]!) outOfOrder++
      const when = occurred.get(position)
      if (when !== undefined) {
        const arrived = stream.arrivals[i]!
        delays.push(arrived - when)
        const answer = answeredAt.get(position)
        if (answer !== undefined) sinceAnswer.push(arrived - answer)
        firstArrival.set(position, Math.min(firstArrival.get(position) ?? Infinity, arrived))
        lastArrival.set(position, Math.max(lastArrival.get(position) ?? -Infinity, arrived))
      }
    })
    for (const event of expected) if (!seen.has(event.position)) missing++
    if (stream.data !== undefined) {
      stream.data.forEach((data, i) => {
        const at = index.get(stream.positions[i]!)
        if (at !== undefined && !isDeepStrictEqual(data, expected[at])) dataMismatches++
      })
    }
    badIds += stream.badIds
    heartbeats += stream.heartbeats
    if (missing + duplicated + outOfOrder + unexpected + wrongType > before || stream.error !== undefined) {
      streamsWithProblems.add(stream.index)
    }
  }
  const endedEarly = streams.filter((stream) => stream.error !== undefined).length
  const delay = summary(delays)
  const firstDelay = summary(
    liveEvents.map((event) => (firstArrival.get(event.position) ?? NaN) - Date.parse(event.occurredAt)).filter(
      Number.isFinite
    )
  )
  const spread = summary(
    liveEvents.flatMap((event) => {
      const first = firstArrival.get(event.position)
      const last = lastArrival.get(event.position)
      return first === undefined || last === undefined ? [] : [last - first]
    })
  )
  const eventTypes: Record<string, number> = {}
  for (const event of liveEvents) eventTypes[event.type] = (eventTypes[event.type] ?? 0) + 1
  return {
    changes: {
      total: changes.writeMs.length,
      creates: changes.creates,
      constraintChanges: changes.constraintChanges,
      cancels: changes.cancels,
      seconds: changes.seconds,
      writeMs: summary(changes.writeMs)
    },
    historyEvents: expected.length - liveEvents.length,
    liveEvents: liveEvents.length,
    liveEventTypes: eventTypes,
    deliveries: delays.length,
    expectedDeliveries: liveEvents.length * streams.length,
    delayMs: delay,
    /** Events made by the bench's own writes only: arrival - when the write's HTTP answer came back. */
    afterWriteAnswerMs: { events: answeredAt.size, ...summary(sinceAnswer) },
    firstStreamDelayMs: firstDelay,
    fanOutSpreadMs: spread,
    check: {
      missing,
      duplicated,
      outOfOrder,
      unexpected,
      wrongType,
      streamsEndedEarly: endedEarly,
      streamsWithProblems: streamsWithProblems.size,
      sampledStreams: streams.filter((stream) => stream.data !== undefined).length,
      dataMismatches,
      idNotPosition: badIds
    },
    heartbeats
  }
}

export type Delivery = ReturnType<typeof delivery>

/** Whether some stream did not get every event exactly once, in order, as sent. */
export const failed = ({ check }: Delivery) =>
  check.missing + check.duplicated + check.outOfOrder + check.unexpected + check.wrongType + check.dataMismatches
      + check.idNotPosition + check.streamsEndedEarly > 0

export const report = (s: Delivery): ReadonlyArray<string> => {
  const out: Array<string> = []
  const row = (label: string, value: string) => out.push(`  ${label.padEnd(50)}${value}`)
  const { creates, constraintChanges, cancels } = s.changes
  const writeTimes = s.changes.writeMs
  const eventTypes = s.liveEventTypes
  const { delayMs: delay, afterWriteAnswerMs: afterAnswer, firstStreamDelayMs: firstDelay, fanOutSpreadMs: spread } = s
  const { missing, duplicated, outOfOrder, unexpected, wrongType, dataMismatches } = s.check
  const endedEarly = s.check.streamsEndedEarly
  const badIds = s.check.idNotPosition
  const heartbeats = s.heartbeats
  const answeredAt = { size: afterAnswer.events }
  row(
    "changes made (sequential, 3-7 ms apart)",
    `${s.changes.total} (${creates} creates, ${constraintChanges} constraint changes, ${cancels} cancels) in ${
      fixed(s.changes.seconds, 1)
    } s; write p50 ${fixed(writeTimes.p50)} ms, p99 ${fixed(writeTimes.p99)} ms`
  )
  row(
    "events they made",
    `${s.liveEvents} (${
      Object.entries(eventTypes).map(([type, n]) => `${type} ${n}`).join(", ")
    }), after ${s.historyEvents} of history`
  )
  row("deliveries (event x stream)", `${grouped(s.deliveries)} of ${grouped(s.expectedDeliveries)} expected`)
  out.push("  delay = arrival at the stream (the readers' clock) - the event's occurredAt (the server's clock,")
  out.push("          taken when the change began, just before its transaction); both on this machine")
  row(
    "delay over all deliveries",
    `p50 ${fixed(delay.p50)} ms   p99 ${fixed(delay.p99)} ms   max ${fixed(delay.max)} ms`
  )
  row(
    `arrival - the write's answer (${answeredAt.size} events)`,
    `p50 ${fixed(afterAnswer.p50)} ms   p99 ${fixed(afterAnswer.p99)} ms   max ${fixed(afterAnswer.max)} ms`
  )
  row(
    "delay to the first stream, per event",
    `p50 ${fixed(firstDelay.p50)} ms   p99 ${fixed(firstDelay.p99)} ms   max ${fixed(firstDelay.max)} ms`
  )
  row(
    "fan-out spread (last - first stream)",
    `p50 ${fixed(spread.p50)} ms   p99 ${fixed(spread.p99)} ms   max ${fixed(spread.max)} ms`
  )
  row(
    "every stream, every event, once, in order",
    `missing: ${missing}, duplicated: ${duplicated}, out of order: ${outOfOrder}, unexpected: ${unexpected}, wrong type: ${wrongType}`
  )
  row(
    "",
    `streams ended early: ${endedEarly}; data compared on ${s.check.sampledStreams} streams: ${dataMismatches} mismatches, ${badIds} ids not the position`
  )
  row("heartbeats received (all streams)", `${grouped(heartbeats)}`)
  return out
}
