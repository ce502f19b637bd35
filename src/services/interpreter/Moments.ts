import { Temporal } from "temporal-polyfill"
import type { When } from "./When.ts"

type Local = Temporal.PlainDateTime

const bySpan = (a: When, b: When) => a.span[0] - b.span[0]
const later = (w: When, days: number): When => ({ ...w, from: w.from.add({ days }), to: w.to.add({ days }) })

/**
 * Times said in pieces, made whole: a time joins the day said nearest before it (else after it); days
 * listed with "and" share the time said last ("Saturday and Sunday at noon"); a weekday comes on or
 * after the day said before it ("Friday out, back Sunday"). "this weekend, Saturday at 7pm" is the
 * narrower; "7pm or 8pm" a window from the first to the last.
 */
export const combine = (input: Array<When>, text: string, now: Local): Array<When> => {
  let whens: Array<When> = []
  let day: number | undefined
  let last: When | undefined
  let alone: When | undefined
  for (const w of [...input].sort(bySpan)) {
    if (w.part === "day" && !w.deadline && alone !== undefined) {
      whens.push(join(w, alone, now))
      alone = undefined
    } else if (w.part === "day" && !w.deadline) {
      day = whens.push(w) - 1
      last = w
    } else if (w.part === "time" && day !== undefined) {
      whens[day] = join(whens[day]!, w, now)
      day = undefined
    } else if (w.part === "both" && !w.deadline) {
      // "Tuesday 01:30 (my flight lands 00:50)": a time said after a whole moment is of the same day.
      whens.push(w)
      last = {
        ...w,
        part: "day",
        from: w.from.with({ hour: 0, minute: 0 }),
        to: w.from.with({ hour: 0, minute: 0 }).add({ days: 1 })
      }
    } else if (w.part === "time" && last !== undefined) {
      // "Saturday, out on the 10:12, back on the 17:40": a second time of the day said.
      whens.push({ ...join(last, w, now), span: w.span })
    } else if (w.part === "time" && alone === undefined) alone = w
    else whens.push(w)
  }
  whens = (alone === undefined ? whens : [...whens, alone]).sort(bySpan)
  whens = whens.map((w, i) => {
    const next = whens[i + 1]
    const listed = next !== undefined && /^\s*(?:and|&)\s*$/.test(text.slice(w.span[1], next.span[0]))
    return w.part === "day" && !w.deadline && next?.part === "both" && listed
      ? { ...join(w, { ...next, part: "time" }, now), span: w.span }
      : w
  })
  for (let i = 1; i < whens.length; i++) {
    const [before, w] = [whens[i - 1]!, whens[i]!]
    let moved = w
    while (moved.weekday && Temporal.PlainDate.compare(moved.from.toPlainDate(), before.from.toPlainDate()) < 0) {
      moved = later(moved, 7)
    }
    const gap = text.slice(before.span[1], w.span[0])
    const list =
      /^\s*[,;&]|\b(?:and|back|return(?:ing)?|until|till|to|then|check(?:ing)? out|out|leaving|departing|drop(?:ping)? off)\b/i
    whens[i] = list.test(gap) && !/\bor\b/i.test(gap) ? { ...moved, linked: true } : moved
  }
  if (whens.length !== 2) return whens
  const [a, b] = whens as [When, When]
  const sameDay = a.part === "time" || b.part === "time" || a.from.toPlainDate().equals(b.from.toPlainDate())
  if (
    /^\s*or\s*$/.test(text.slice(a.span[1], b.span[0])) && a.problem === undefined && b.problem === undefined && sameDay
  ) {
    const from = a.part === "time" && b.part === "both"
      ? b.from.with({ hour: a.from.hour, minute: a.from.minute })
      : a.from
    const to = b.part === "time" && a.part === "both" ? a.to.with({ hour: b.to.hour, minute: b.to.minute }) : b.to
    return [{
      ...a,
      text: `${a.text} or ${b.text}`,
      from,
      to,
      span: [a.span[0], b.span[1]],
      words: [...a.words, ...b.words]
    }]
  }
  const inside = (x: When, y: When) =>
    Temporal.PlainDateTime.compare(x.from, y.from) >= 0 && Temporal.PlainDateTime.compare(x.to, y.to) <= 0
  if (!a.deadline && !b.deadline && a.problem === undefined && inside(b, a)) return [b]
  if (!a.deadline && !b.deadline && b.problem === undefined && inside(a, b)) return [a]
  return whens
}

/** A day and a time said apart are one moment: "dinner at 8 ... on Friday", or a day answered to "12/03 at 8pm". */
export const join = (day: When, time: When, now: Local): When => {
  const from = day.from.with({ hour: time.from.hour, minute: time.from.minute })
  const { problem: _, ...rest } = time
  const problem = day.problem ??
    (time.problem === "meridiem" ? "meridiem" : Temporal.PlainDateTime.compare(from, now) <= 0 ? "past" : undefined)
  const joined = {
    ...rest,
    text: `${day.text} ${time.text}`,
    words: [...day.words, ...time.words],
    from,
    // A time of day lasts what it said ("6 to 11pm"), never longer than that day.
    to: time.to.since(time.from).total("hours") >= 24 ? from.add({ minutes: 1 }) : from.add(time.to.since(time.from))
  }
  const { weekday: _w, wide: _d, ...moment } = joined
  return {
    ...moment,
    part: "both",
    ...(day.weekday ? { weekday: true } : {}),
    ...(day.wide ? { wide: true } : {}),
    ...(problem === undefined ? {} : { problem })
  }
}
