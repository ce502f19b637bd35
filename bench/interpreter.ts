/**
 * How the Interpreter's time grows with the length of a request, as ratios measured in one run (never an
 * absolute bound, and never in `npm test`: on a busy machine a wall-clock bound fails for being slow).
 * A reading of 50 characters is the unit; 10,000 characters of a sentence said over and over, and of
 * texts built to make a reader backtrack, are measured against it. It prints each median and its ratio,
 * and exits 1 when a ratio passes 400 (linear growth is 200).
 *
 *   npm run bench:interpreter
 */
import { DateTime } from "effect"
import { interpretRequest } from "../src/services/interpreter/Request.ts"

const createdAt = DateTime.makeUnsafe("2026-03-10T10:00:00Z")
const interpret = (request: string) => interpretRequest({ request, constraints: [], answers: [], createdAt })

const median = (request: string, runs: number) => {
  const times: Array<number> = []
  for (let i = 0; i < runs; i++) {
    const start = performance.now()
    interpret(request)
    times.push(performance.now() - start)
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)]!
}

const short = "Book a table for 4 in Lisbon tomorrow at 7pm €200"
interpret(short)
const unit = median(short, 200)
const long = `${short} `.repeat(Math.ceil(10_000 / (short.length + 1))).slice(0, 10_000)
const texts = [
  long,
  "1,".repeat(5_000),
  "at 7 ".repeat(2_000),
  "the ".repeat(2_500),
  "$1-".repeat(3_333),
  "Lisbon ".repeat(1_428)
]
console.log(`50 characters: ${unit.toFixed(2)} ms (median of 200)`)
let worst = 0
for (const text of texts) {
  const time = median(text, 5)
  worst = Math.max(worst, time / unit)
  console.log(
    `${JSON.stringify(text.slice(0, 12))}... (${text.length} characters): ${time.toFixed(1)} ms, ${
      (time / unit).toFixed(0)
    }x`
  )
}
process.exitCode = worst > 400 ? 1 : 0
