import type { DaySpec, Hint, Moment, TimeSpec } from "./DateWords.ts"
import type { CurrencyMention } from "./MoneyWords.ts"
import type { Decimal } from "./Numbers.ts"
import * as ReadDays from "./ReadDays.ts"
import type { Reading } from "./Reading.ts"
import * as ReadMoney from "./ReadMoney.ts"
import * as ReadPlaces from "./ReadPlaces.ts"
import * as ReadQuantities from "./ReadQuantities.ts"
import * as ReadTimes from "./ReadTimes.ts"
import type { Token } from "./Tokens.ts"
import { tokenize } from "./Tokens.ts"

export class Reader {
  readonly tokens: Array<Token>
  readonly out: Reading

  constructor(text: string) {
    this.tokens = tokenize(text)
    this.out = {
      money: [],
      currencies: [],
      whens: [],
      zones: [],
      places: [],
      quantities: [],
      hints: new Set(),
      noBudget: false,
      words: this.tokens.filter((t) => t.kind === "word").length
    }
  }

  lower(i: number): string {
    return this.tokens[i]?.lower ?? ""
  }

  /** Token i follows token i-1 with no space ("7pm", "$200"). */
  attached(i: number): boolean {
    const token = this.tokens[i]
    return token !== undefined && !token.gap
  }

  read(): Reading {
    const n = this.tokens.length
    let i = 0
    while (i < n) {
      const end = this.readWhen(i) ?? this.readMoney(i) ?? this.readQuantity(i) ?? this.readPlace(i) ??
        this.readZone(i) ?? this.readCurrencyAlone(i) ?? this.readHint(i)
      i = end ?? i + 1
    }
    return this.out
  }

  // ---- hints: parts of the day that settle "at 7" -------------------------------------------------

  readHint(i: number): number | undefined {
    return ReadMoney.readHint(this, i)
  }

  readCurrency(i: number): { end: number; currency: CurrencyMention } | undefined {
    return ReadMoney.readCurrency(this, i)
  }

  readAmountNumber(i: number): { end: number; amount: Decimal | "ambiguous" } | undefined {
    return ReadMoney.readAmountNumber(this, i)
  }

  budgetCue(i: number): "max" | "min" | undefined {
    return ReadMoney.budgetCue(this, i)
  }

  perUnitAt(i: number): number | undefined {
    return ReadMoney.perUnitAt(this, i)
  }

  readMoney(i: number): number | undefined {
    return ReadMoney.readMoney(this, i)
  }

  readCurrencyAlone(i: number): number | undefined {
    return ReadMoney.readCurrencyAlone(this, i)
  }

  ordinalAt(i: number): { end: number; day: number } | undefined {
    return ReadDays.ordinalAt(this, i)
  }

  yearAt(i: number): { end: number; year: number } | undefined {
    return ReadDays.yearAt(this, i)
  }

  monthAt(i: number): { end: number; month: number } | undefined {
    return ReadDays.monthAt(this, i)
  }

  readDay(i: number): { end: number; day: DaySpec; hint?: Hint; text: string } | undefined {
    return ReadDays.readDay(this, i)
  }

  readDayInner(i: number): { end: number; day: DaySpec; hint?: Hint } | undefined {
    return ReadDays.readDayInner(this, i)
  }

  readTime(i: number, bare: boolean): { end: number; time: TimeSpec } | undefined {
    return ReadTimes.readTime(this, i, bare)
  }

  readClock(i: number, bare: boolean): { end: number; time: TimeSpec } | undefined {
    return ReadTimes.readClock(this, i, bare)
  }

  timeHint(i: number): { end: number; hint: Hint } | undefined {
    return ReadTimes.timeHint(this, i)
  }

  readMoment(i: number, bare: boolean): { end: number; moment: Moment } | undefined {
    return ReadTimes.readMoment(this, i, bare)
  }

  readDuration(
    i: number
  ): { end: number; count: number; unit: "minute" | "hour" | "day" | "week" | "month" } | undefined {
    return ReadTimes.readDuration(this, i)
  }

  readWhen(i: number): number | undefined {
    return ReadTimes.readWhen(this, i)
  }

  readCount(i: number): { end: number; count: number | "too-large" } | undefined {
    return ReadQuantities.readCount(this, i)
  }

  readQuantity(i: number): number | undefined {
    return ReadQuantities.readQuantity(this, i)
  }

  quantityWithUnit(k: number, count: number | "too-large"): number | undefined {
    return ReadQuantities.quantityWithUnit(this, k, count)
  }

  cityAt(i: number): { end: number; name: string; zone: string } | undefined {
    return ReadPlaces.cityAt(this, i)
  }

  countryAt(i: number): { end: number; currency: string } | undefined {
    return ReadPlaces.countryAt(this, i)
  }

  readPlace(i: number): number | undefined {
    return ReadPlaces.readPlace(this, i)
  }

  readZone(i: number): number | undefined {
    return ReadPlaces.readZone(this, i)
  }
}
