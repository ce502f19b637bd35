import { assert, describe, it } from "@effect/vitest"
import type { Constraint, ConstraintInput, Objective } from "../src/schema/Constraint.ts"
import type { JobId } from "../src/schema/JobRef.ts"
import { quotes } from "../src/services/providers/Sandbox.ts"

/** The sandbox's offers: in the budget's currency, else in the currency of the place the Job names. */

const objective: Objective = { kind: "reservation", summary: "Dinner for 2" }
const named = (constraints: ReadonlyArray<ConstraintInput>, source: Constraint["source"] = "interpreted") =>
  constraints.map((constraint, i) => ({ ...constraint, id: `con_${i}`, source }) as Constraint)
const offered = (constraints: ReadonlyArray<Constraint>, goal: Objective = objective) =>
  quotes({ jobId: "job_1" as JobId, jobRevision: 1, objective: goal, constraints })
const currencies = (constraints: ReadonlyArray<Constraint>) => [
  ...new Set(
    offered(constraints).flatMap((quote) => [
      quote.price.currency,
      quote.terms.cancellationFee.currency,
      (quote.offer.details.unitPrice as { currency: string }).currency
    ])
  )
]

const paris = { type: "location", place: "Paris" } as const
const zone = (name: string) => ({ type: "timezone", zone: name }) as const

describe("Sandbox.quotes", () => {
  it("prices in the budget's currency, whatever place the Job names", () => {
    const budget = { type: "budget", max: { amount: "150.00", currency: "CHF" } } as const
    assert.deepStrictEqual(currencies(named([paris, zone("Asia/Tokyo"), budget])), ["CHF"])
  })

  it("prices a Job with no budget in the currency of its time zone's country", () => {
    assert.deepStrictEqual(currencies(named([zone("Europe/Paris")])), ["EUR"])
    assert.deepStrictEqual(currencies(named([zone("Asia/Tokyo")])), ["JPY"])
    assert.deepStrictEqual(currencies(named([zone("Europe/London")])), ["GBP"])
    // A link names the zone it points to; an older name is read by its city.
    assert.deepStrictEqual(currencies(named([zone("US/Eastern")])), ["USD"])
    assert.deepStrictEqual(currencies(named([zone("America/Buenos_Aires")])), ["ARS"])
  })

  it("prices a Job with no budget and no known zone in the currency of its location", () => {
    assert.deepStrictEqual(currencies(named([paris])), ["EUR"])
    assert.deepStrictEqual(currencies(named([{ type: "location", place: "Rua Augusta 10, Lisbon" }])), ["EUR"])
    assert.deepStrictEqual(currencies(named([zone("Etc/GMT-2"), { type: "location", place: "Zurich" }])), ["CHF"])
    // A caller's place counts as much as an interpreted one.
    assert.deepStrictEqual(currencies(named([{ type: "location", place: "near Shibuya station" }], "caller")), ["JPY"])
  })

  it("prices in US dollars only when nothing names a place it knows", () => {
    assert.deepStrictEqual(currencies(named([])), ["USD"])
    assert.deepStrictEqual(currencies(named([{ type: "quantity", count: 2 }, zone("UTC")])), ["USD"])
    assert.deepStrictEqual(currencies(named([{ type: "location", place: "my sister's place" }])), ["USD"])
  })

  it("prices in hundredths rounded down: a share of the budget per unit, times the quantity", () => {
    const prices = (constraints: ReadonlyArray<ConstraintInput>) =>
      offered(named(constraints)).map((quote) => [
        quote.price.amount,
        (quote.offer.details.unitPrice as { amount: string }).amount,
        quote.terms.cancellationFee.amount
      ])
    const budget = (amount: string, currency: string) => ({ type: "budget", max: { amount, currency } }) as const
    const quantity = (count: number) => ({ type: "quantity", count }) as const
    assert.deepStrictEqual(prices([budget("100.00", "EUR"), quantity(3)]), [
      ["90.00", "30.00", "0.00"],
      ["75.00", "25.00", "0.00"],
      ["60.00", "20.00", "0.00"]
    ])
    // Whatever the currency's own minor units: hundredths of a dinar (the budget's finer digits dropped
    // first: 90% of 11.11, not of 11.1199), and of a yen.
    assert.deepStrictEqual(prices([budget("11.1199", "KWD")]), [
      ["9.99", "9.99", "0.00"],
      ["8.33", "8.33", "0.00"],
      ["6.66", "6.66", "0.00"]
    ])
    assert.deepStrictEqual(prices([budget("40000", "JPY"), quantity(7)]), [
      ["35999.95", "5142.85", "0.00"],
      ["29999.97", "4285.71", "0.00"],
      ["23999.99", "3428.57", "0.00"]
    ])
    // Nothing is offered for nothing, unless asked.
    assert.deepStrictEqual(prices([budget("0.01", "EUR")]), [])
    assert.deepStrictEqual(prices([{ type: "note", text: "sandbox:free" }]), [
      ["0.00", "0.00", "0.00"],
      ["0.00", "0.00", "0.00"],
      ["0.00", "0.00", "0.00"]
    ])
    // No budget: a price derived from the request, the same every time.
    assert.deepStrictEqual(prices([paris]), [
      ["81.18", "81.18", "0.00"],
      ["67.65", "67.65", "0.00"],
      ["54.12", "54.12", "0.00"]
    ])
  })

  it("quotes the same offers whatever words the facts were read from", () => {
    const bare = named([paris, { type: "quantity", count: 2 }])
    const read = bare.map((constraint, i): Constraint => ({
      ...constraint,
      evidence: [{ text: "Paris", start: i, end: i + 5 }]
    }))
    const cited = { ...objective, evidence: [{ text: "Dinner", start: 0, end: 6 }] } as const
    assert.strictEqual(offered(bare).length, 3)
    assert.deepStrictEqual(offered(read, cited), offered(bare))
  })
})
