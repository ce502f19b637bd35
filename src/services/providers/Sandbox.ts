import { cityMapping } from "city-timezones"
import countryToCurrency from "country-to-currency"
import type * as BigDecimal from "effect/BigDecimal"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { Constraint } from "../../schema/Constraint.ts"
import type { Unavailable } from "../../schema/Errors.ts"
import * as Money from "../../schema/Money.ts"
import type { ProposalDocument } from "../../schema/Proposal.ts"
import { canonicalJson } from "../text/CanonicalJson.ts"
import { findPlace } from "../text/Places.ts"
import { sha256Hex } from "../text/Sha256.ts"
import type { Inspection, Quote, QuoteRequest } from "./Provider.ts"
import { ProviderPermanent, Providers, ProviderTimeout, ProviderTransient } from "./Provider.ts"

/**
 * The sandbox provider: deterministic offers, and a ledger of what each idempotency key did, kept in
 * the service's database (`SqlSandbox.layer`) so that a test, the demo or an operator can see that no side
 * effect ever happened twice. Like a payment sandbox's magic card numbers, a caller constraint
 * `{type: "note", text: "sandbox:<directive>"}` makes it misbehave in one precise way (see `directives`).
 */

export const directives = [
  "transient-once",
  "permanent",
  "timeout-once",
  "verify-mismatch",
  "cancel-fails",
  "no-offers",
  "free",
  "slow"
] as const
export type Directive = typeof directives[number]

export const LedgerState = Schema.Literals(["succeeded", "failed", "compensated"])
export type LedgerState = typeof LedgerState.Type

/** One key, as the CLI prints it: requests that carried it, side effects performed (0 or 1), and where it stands. */
export interface LedgerEntry {
  readonly key: string
  readonly jobId: string
  readonly proposalHash: string
  readonly calls: number
  readonly effects: number
  readonly state: LedgerState
}

export class SandboxLedger extends Context.Service<SandboxLedger, {
  /** Every key (of one Job, when given), in the order they were first sent. */
  readonly entries: (jobId?: string) => Effect.Effect<ReadonlyArray<LedgerEntry>, Unavailable>
}>()("SandboxLedger") {}

const directivesOf = (constraints: ReadonlyArray<Constraint>): ReadonlySet<Directive> =>
  new Set(
    constraints.flatMap((constraint) => {
      if (constraint.type !== "note") return []
      const text = constraint.text.trim()
      const name = text.startsWith("sandbox:") ? text.slice("sandbox:".length).trim() : ""
      return (directives as ReadonlyArray<string>).includes(name) ? [name as Directive] : []
    })
  )

/** The sandbox prices in hundredths, whatever the currency's own minor units. */
const cents = 2
const nothing = Money.fromMinorUnits(0, cents)
const money = (value: BigDecimal.BigDecimal, currency: string): Money.Money => ({
  amount: Money.format(value, cents),
  currency
})

const tiers = [["Premium", 90], ["Standard", 75], ["Basic", 60]] as const

const currencyOf = countryToCurrency as Readonly<Record<string, string>>

let zoneCountries: { readonly zones: Map<string, string>; readonly cities: Map<string, string> } | undefined
const cityOf = (zone: string) => zone.slice(zone.lastIndexOf("/") + 1)
/**
 * The country of a zone: that of its most populous city in the gazetteer (none for `UTC`, `Etc/GMT+2`, ...).
 * A link (`US/Eastern`) reads as the zone it names, an older name (`America/Buenos_Aires`) by its city.
 */
const countryOfZone = (zone: string): string | undefined => {
  if (zoneCountries === undefined) {
    // Some places of the gazetteer have no zone.
    const byPopulation = cityMapping.filter((city) => typeof city.timezone === "string").sort((a, b) => a.pop - b.pop)
    zoneCountries = {
      zones: new Map(byPopulation.map((city) => [city.timezone, city.iso2])),
      cities: new Map(byPopulation.map((city) => [cityOf(city.timezone), city.iso2]))
    }
  }
  const canonical = new Intl.DateTimeFormat("en-US", { timeZone: zone }).resolvedOptions().timeZone
  const { cities, zones } = zoneCountries
  return zones.get(zone) ?? zones.get(canonical) ?? (zone.includes("/") ? cities.get(cityOf(zone)) : undefined)
}

const countryOfPlace = (place: string): string | undefined => {
  const found = findPlace(place)
  return found?._tag === "Zone" && found.country !== "" ? found.country : undefined
}

/**
 * The currency of the place the constraints name, when no budget names one: a time zone's country, else a
 * location's (the first that has a currency of its own); none when nothing names a place.
 */
export const placeCurrency = (constraints: ReadonlyArray<Constraint>): string | undefined => {
  const zones = constraints.flatMap((constraint) => constraint.type === "timezone" ? [constraint.zone] : [])
  const places = constraints.flatMap((constraint) => constraint.type === "location" ? [constraint.place] : [])
  const countries = [
    ...zones.map((zone) => () => countryOfZone(zone)),
    ...places.map((place) => () => countryOfPlace(place))
  ]
  for (const country of countries) {
    const currency = currencyOf[country() ?? ""]
    if (currency !== undefined && Money.currencyCodes.has(currency)) return currency
  }
  return undefined
}

/**
 * Up to three offers, the same for the same objective and constraints (their ids, sources and evidence
 * aside): within the budget when there is one, the price of one unit times the quantity; in the budget's
 * currency, else in that of the place the Job names, else in US dollars.
 */
export const quotes = (request: QuoteRequest): ReadonlyArray<Quote> => {
  const wants = directivesOf(request.constraints)
  if (wants.has("no-offers")) return []
  const { evidence: _words, ...objective } = request.objective
  const seed = sha256Hex(
    canonicalJson({
      objective,
      constraints: request.constraints.map(({ evidence: _evidence, id: _id, source: _source, ...input }) => input)
    })
  )
  const budget = request.constraints.find((constraint) => constraint.type === "budget")
  const budgetCents = budget === undefined ? undefined : Money.roundDown(Money.valueOf(budget.max), cents)
  const quantity = request.constraints.find((constraint) => constraint.type === "quantity")?.count ?? 1
  const currency = budget?.max.currency ?? placeCurrency(request.constraints) ?? "USD"
  const base = Money.fromMinorUnits(2000 + Number.parseInt(seed.slice(0, 8), 16) % 18000, cents)
  const summary = request.objective.summary.length > 80
    ? `${request.objective.summary.slice(0, 79)}…`
    : request.objective.summary
  return tiers.flatMap(([tier, percent], i) => {
    const unit = wants.has("free")
      ? nothing
      : budgetCents === undefined
      ? Money.divideDown(Money.times(base, percent), 90, cents)
      : Money.divideDown(Money.divideDown(Money.times(budgetCents, percent), 100, cents), quantity, cents)
    const unitPrice = money(unit, currency)
    if (Money.isZero(unitPrice) && !wants.has("free")) return []
    return [{
      offer: {
        id: `sbx_${seed.slice(0, 12)}_${i + 1}`,
        title: `${tier} ${request.objective.kind}: ${summary}`,
        details: { tier: tier.toLowerCase(), quantity, unitPrice }
      },
      price: money(Money.times(unit, quantity), currency),
      terms: { cancellable: true, cancellationFee: money(nothing, currency) }
    }]
  })
}

const isFirstOffer = (document: ProposalDocument) => document.offer.id.endsWith("_1")

export interface Row {
  readonly key: string
  readonly jobId: string
  readonly proposalHash: string
  readonly document: ProposalDocument
  readonly calls: number
  readonly effects: number
  readonly state: LedgerState
  readonly reference: string
}

/** What a call does to a key's row, decided from the row as it is (none before the key's first execute). */
interface Decision<A> {
  readonly row: Row | undefined
  readonly answer: Effect.Effect<A, ProviderTransient | ProviderPermanent | ProviderTimeout>
}

const executeDecision = (
  current: Row | undefined,
  key: string,
  document: ProposalDocument,
  proposalHash: string
): Decision<{ readonly reference: string }> => {
  const wants = directivesOf(document.constraints)
  const row: Row = current === undefined
    ? {
      key,
      jobId: document.jobId,
      proposalHash,
      document,
      calls: 1,
      effects: 0,
      state: "failed",
      reference: `sbx_ref_${sha256Hex(key).slice(0, 16)}`
    }
    : { ...current, calls: current.calls + 1 }
  if (wants.has("permanent") && isFirstOffer(document)) {
    return {
      row,
      answer: Effect.fail(new ProviderPermanent({ message: "sandbox:permanent: this offer cannot be had" }))
    }
  }
  if (wants.has("transient-once") && current === undefined) {
    return { row, answer: Effect.fail(new ProviderTransient({ message: "sandbox:transient-once: try again" })) }
  }
  if (row.state === "compensated") {
    return { row, answer: Effect.fail(new ProviderPermanent({ message: "this key's side effect was cancelled" })) }
  }
  if (row.effects === 1) return { row, answer: Effect.succeed({ reference: row.reference }) }
  const performed: Row = { ...row, effects: 1, state: "succeeded" }
  return {
    row: performed,
    answer: wants.has("timeout-once")
      ? Effect.fail(new ProviderTimeout({ message: "sandbox:timeout-once: the answer was lost" }))
      : Effect.succeed({ reference: performed.reference })
  }
}

const inspection = (row: Row): Inspection => {
  const spend = row.document.spend
  const overcharged = directivesOf(row.document.constraints).has("verify-mismatch") && isFirstOffer(row.document)
  return {
    key: row.key,
    state: row.state,
    reference: row.reference,
    offerId: row.document.offer.id,
    spent: overcharged
      ? money(Money.plus(Money.valueOf(spend), Money.fromMinorUnits(100, cents)), spend.currency)
      : spend,
    terms: row.document.terms
  }
}

const cancelDecision = (current: Row): Decision<void> => {
  const row = { ...current, calls: current.calls + 1 }
  if (directivesOf(row.document.constraints).has("cancel-fails")) {
    return { row, answer: Effect.fail(new ProviderTransient({ message: "sandbox:cancel-fails: cannot cancel" })) }
  }
  return { row: row.state === "succeeded" ? { ...row, state: "compensated" } : row, answer: Effect.void }
}

/** How long each call takes under `sandbox:slow` (2 s); a test may shorten it. */
export const SlowCall = Context.Reference<Duration.Duration>("SandboxSlowCall", {
  defaultValue: () => Duration.seconds(2)
})

/**
 * `sandbox:slow`: every call takes `SlowCall` (2 s). A call that changes something does it
 * halfway through, as a remote provider would: a caller that stops waiting, or dies, meanwhile cannot
 * know whether it was done.
 */
const slowly = (constraints: ReadonlyArray<Constraint>, part = 1) =>
  directivesOf(constraints).has("slow")
    ? SlowCall.use((slowCall) => Effect.sleep(Duration.times(slowCall, part)))
    : Effect.void

const halfway = <A, E, R>(constraints: ReadonlyArray<Constraint>, change: Effect.Effect<A, E, R>) =>
  slowly(constraints, 0.5).pipe(
    Effect.andThen(Effect.exit(change)),
    Effect.tap(() => slowly(constraints, 0.5)),
    Effect.flatten
  )

export const toEntry = (row: Row): LedgerEntry => ({
  key: row.key,
  jobId: row.jobId,
  proposalHash: row.proposalHash,
  calls: row.calls,
  effects: row.effects,
  state: row.state
})

/** The two services over one ledger: `read` a key's row (locked, in a transaction on PostgreSQL) and `write` it. */
interface Ledger {
  readonly change: <A>(
    key: string,
    decide: (row: Row | undefined) => Decision<A> | undefined
  ) => Effect.Effect<Option.Option<A>, ProviderTransient | ProviderPermanent | ProviderTimeout>
  readonly row: (key: string) => Effect.Effect<Option.Option<Row>, ProviderTransient>
  readonly entries: (jobId?: string) => Effect.Effect<ReadonlyArray<LedgerEntry>, Unavailable>
}

export const make = (ledger: Ledger) =>
  Context.make(Providers, {
    name: "sandbox",
    quote: (request) => Effect.andThen(slowly(request.constraints), Effect.sync(() => quotes(request))),
    execute: ({ document, key, proposalHash }) =>
      halfway(
        document.constraints,
        ledger.change(key, (row) => executeDecision(row, key, document, proposalHash))
      ).pipe(Effect.map(Option.getOrThrow)),
    inspect: (key) =>
      Effect.gen(function*() {
        const found = yield* ledger.row(key)
        if (Option.isNone(found)) return Option.none()
        yield* slowly(found.value.document.constraints)
        const counted = yield* ledger.change(
          key,
          (row) =>
            row === undefined ? undefined : { row: { ...row, calls: row.calls + 1 }, answer: Effect.succeed(row) }
        ).pipe(
          Effect.catchTag(
            ["ProviderPermanent", "ProviderTimeout"],
            (error) => Effect.fail(new ProviderTransient(error))
          )
        )
        return Option.map(counted, inspection)
      }),
    cancel: (key) =>
      Effect.gen(function*() {
        const found = yield* ledger.row(key)
        if (Option.isNone(found)) return
        yield* halfway(
          found.value.document.constraints,
          ledger.change(key, (row) => row === undefined ? undefined : cancelDecision(row))
        )
      })
  }).pipe(Context.add(SandboxLedger, { entries: ledger.entries }))
