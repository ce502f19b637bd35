import { assert, describe, it } from "@effect/vitest"
import countryToCurrency from "country-to-currency"
import fc from "fast-check"
import { formatAmount, mentionOf, readMoney, resolveCurrency } from "../../src/services/interpreter/Money.ts"
import { normalize } from "../../src/services/text/Words.ts"

/** [words, the place's countries, amount, currency as the place resolves it ("-": none, "A|B": either), per]. */
type Row = readonly [string, ReadonlyArray<string>, string, string, string?]
const reads = (words: string, countries: ReadonlyArray<string>) =>
  readMoney(words, countries).map((m) => {
    const currency = m.currency === undefined ? "-" : [resolveCurrency(m.currency, countries)].flat().join("|")
    return [m.amount, currency, m.per] as const
  })
const check = (rows: ReadonlyArray<Row>) => {
  for (const [words, countries, amount, currency, per] of rows) {
    it(`${words}${countries.length > 0 ? ` (${countries.join(", ")})` : ""}`, () =>
      assert.deepStrictEqual(reads(words, countries), [[amount, currency, per]]))
  }
}

describe("Money", () => {
  describe("caps, signs and words", () => {
    check([
      ["under €300", [], "300", "EUR"],
      ["max 600 USD", [], "600", "USD"],
      ["no more than 120 EUR", [], "120", "EUR"],
      ["no more than 12,000 yen for both", ["JP"], "12000", "JPY"],
      ["budget £40", [], "40", "GBP"],
      ["under 60 Euros", [], "60", "EUR"],
      ["under ¥40,000 per night", [], "40000", "JPY", "night"],
      ["€50 per person", [], "50", "EUR", "person"],
      ["£20 an hour", [], "20", "GBP", "hour"],
      ["5 dollars each", [], "5", "USD", "item"],
      ["under 1.5k USD", [], "1500", "USD"],
      ["between 400 and 600 dollars", [], "600", "USD"],
      ["$100-$200", [], "200", "USD"],
      ["200 Canadian dollars", [], "200", "CAD"],
      ["400 Danish kroner", [], "400", "DKK"],
      ["around 900 Egyptian pounds", [], "900", "EGP"],
      ["at most 200 on a gift", [], "200", "-"],
      ["budget 80 for 4 people", [], "80", "-"],
      ["hasta 2.000 pesos", ["AR"], "2000", "ARS"],
      ["até 250 reais", [], "250", "BRL"],
      ["jusqu'à 300 €", [], "300", "EUR"],
      ["bis 150 Euro", [], "150", "EUR"],
      ["max. 90", ["DE"], "90", "-"],
      ["Budget: 400", [], "400", "-"],
      ["250 tops", [], "250", "-"],
      ["300 ALL UP", [], "300", "-"],
      ["a sofa, 1,800 all up", ["AU"], "1800", "-"],
      ["2,200 AUD tops", [], "2200", "AUD"],
      ["NT$3,500 in total", [], "3500", "TWD"],
      ["45 quid max", [], "45", "GBP"],
      ["60 bucks", ["US"], "60", "USD"],
      ["70 bucks a lesson", ["NZ"], "70", "NZD", "lesson"],
      ["$80", ["CO"], "80", "COP"],
      ["$80", ["PH"], "80", "USD"],
      ["Kč 900", [], "900", "CZK"],
      ["max 400 zł", [], "400", "PLN"],
      ["3,000 birr", [], "3000", "ETB"],
      ["RM 65 max", [], "65", "MYR"],
      ["S/ 120", [], "120", "PEN"],
      ["S/. 45", [], "45", "PEN"],
      ["120 soles", [], "120", "PEN"],
      ["C$75", [], "75", "CAD"],
      ["NZ$180", [], "180", "NZD"],
      ["A$95", [], "95", "AUD"],
      ["AU$240", [], "240", "AUD"],
      ["HK$800", [], "800", "HKD"],
      ["S$60", [], "60", "SGD"],
      ["US$150", [], "150", "USD"],
      ["R$ 220", [], "220", "BRL"],
      ["₦25,000", [], "25000", "NGN"],
      ["₱2,000", [], "2000", "PHP"],
      ["₫800,000", [], "800000", "VND"],
      ["300,000 dong", [], "300000", "VND"],
      ["1,200 baht", [], "1200", "THB"],
      ["฿900", [], "900", "THB"],
      ["150 ringgit", [], "150", "MYR"],
      ["700 rand", [], "700", "ZAR"],
      ["450,000 rupiah", [], "450000", "IDR"],
      ["250 lei", ["RO"], "250", "RON"],
      ["30,000 forint", [], "30000", "HUF"],
      ["180 zloty", [], "180", "PLN"],
      ["₪350", [], "350", "ILS"],
      ["200 shekels", [], "200", "ILS"],
      ["QAR 90", [], "90", "QAR"],
      ["250 riyals", ["QA"], "250", "QAR"],
      ["250 riyals", ["SA"], "250", "SAR"],
      ["600 dirhams", ["AE"], "600", "AED"],
      ["600 dirhams", ["MA"], "600", "MAD"],
      ["900 pesos", ["MX"], "900", "MXN"],
      ["EUR 75", [], "75", "EUR"],
      ["75€", [], "75", "EUR"],
      ["5000 francs CFA", ["CI"], "5000", "XOF"],
      ["2,500 KES", [], "2500", "KES"],
      ["MOP 200", [], "200", "MOP"]
    ])
  })

  describe("the place or the currency decides how thousands are written", () => {
    check([
      ["under 240.000 kr", ["IS"], "240000", "ISK"],
      ["1.800 kr", [], "1800", "DKK|ISK|NOK|SEK"],
      ["budget 650.000 CLP", [], "650000", "CLP"],
      ["max 2.400 dirhams", ["MA"], "2400", "MAD"],
      ["520.000 pesos max", ["CO"], "520000", "COP"],
      ["₺45.000", [], "45000", "TRY"],
      ["IDR 7.500.000", [], "7500000", "IDR"],
      ["UYU 6.500", [], "6500", "UYU"],
      ["até R$ 4.200", [], "4200", "BRL"],
      ["max 1.200", ["DE"], "1200", "-"],
      ["€2.500", ["PT"], "2500", "EUR"],
      ["$1.500", ["AR"], "1500", "ARS"],
      ["¥3.000", [], "3000", "JPY"],
      ["4.150,75 €", [], "4150.75", "EUR"],
      ["1.750,00 €", [], "1750.00", "EUR"],
      ["2,350.50 EUR", [], "2350.50", "EUR"],
      ["1.200 USD", [], "ambiguous", "USD"],
      ["under 1.200 euros", [], "ambiguous", "EUR"],
      ["€2.500", ["IE"], "ambiguous", "EUR"],
      ["1.200 pesos", ["MX"], "ambiguous", "MXN"],
      ["max 1.200", [], "ambiguous", "-"],
      ["max 1.200", ["US"], "ambiguous", "-"]
    ])
  })

  describe("thousands with spaces and apostrophes", () => {
    check([
      ["max 95 000 Ft", [], "95000", "HUF"],
      ["14 000 Ft", [], "14000", "HUF"],
      ["Max R8 000.", [], "8000", "ZAR"],
      ["R2 400 budget", [], "2400", "ZAR"],
      ["R 1 500", ["ZA"], "1500", "ZAR"],
      ["150 000 FCFA max", ["SN"], "150000", "XOF"],
      ["150 000 FCFA max", ["CM"], "150000", "XAF"],
      ["150 000 FCFA", [], "150000", "XAF|XOF"],
      ["3 200 kr", ["NO"], "3200", "NOK"],
      ["€1 450,50", [], "1450.50", "EUR"],
      ["CHF 1'900 max", [], "1900", "CHF"],
      ["CHF 3’250", [], "3250", "CHF"]
    ])
  })

  describe("Indian amounts", () => {
    check([
      ["Budget 1.5 lakh", ["IN"], "150000", "-"],
      ["3 lakh", [], "300000", "-"],
      ["2 crore", [], "20000000", "-"],
      ["₹2.5 lakh", [], "250000", "INR"],
      ["Rs 1,800", ["IN"], "1800", "INR"],
      ["Rs. 650", ["PK"], "650", "PKR"],
      ["₹4,000", [], "4000", "INR"],
      ["max Rs 2,500", ["IN"], "2500", "INR"],
      ["₹1,50,000", [], "150000", "INR"]
    ])
  })

  describe("a place or a word the sign needs", () => {
    check([
      ["R520 max", [], "520", "ZAR"],
      ["R380", ["ZA"], "380", "ZAR"],
      ["950 kr", ["SE"], "950", "SEK"],
      ["420 kr", ["DK"], "420", "DKK"],
      ["Rs 900", [], "900", "INR|LKR|MUR|NPR|PKR|SCR"],
      ["300 francs", ["RW"], "300", "RWF"],
      ["£60", ["GI"], "60", "GIP"],
      ["£60", ["FR"], "60", "GBP"],
      ["750 pounds", ["EG"], "750", "EGP"]
    ])
  })

  it("reads no money in times, counts, sizes, addresses and minimums", () => {
    const none = [
      "for 4 at 8",
      "under 30 minutes",
      "over 100 euros",
      "table for 2 at 7pm",
      "mount a 55\" TV",
      "a 4x4 like a Duster",
      "max 2-bedroom flat",
      "under 32GB",
      "max 15-inch",
      "Terminal 2",
      "No. 12",
      "KG 9 Ave",
      "size M",
      "max 3 kg",
      "88 rue Oberkampf",
      "Unit 7",
      "bis 20h30",
      "max 8u15",
      "18:45",
      "max 9.40pm",
      "on 5/6",
      "31/07/2026",
      "take the R62 to Oudtshoorn",
      "R2 road",
      "R900",
      "up to 6 of us",
      "kids under 12",
      "max 4 people",
      "table for 6 max",
      "3 pounds of cherries",
      "at 41 Dong Khoi",
      "between 8 and 10pm"
    ]
    for (const words of none) assert.deepStrictEqual(readMoney(words), [], words)
  })

  it("spans the amount and its currency, and only those", () => {
    const text = "Taxi to Cape Town at 6, R1 200 max; table for 4, up to 90 euros per person. Budget: 2.500,00 €"
    assert.deepStrictEqual(readMoney(text).map((m) => [text.slice(...m.span), m.text]), [
      ["R1 200", "R1 200"],
      ["90 euros per person", "90 euros per person"],
      ["2.500,00 €", "2.500,00 €"]
    ])
    assert.deepStrictEqual(readMoney("Max 4 000 kr.", ["NO"]).map((m) => m.text), ["4 000 kr"])
    assert.deepStrictEqual(readMoney("Room under €120 a night, €200 total max").map((m) => m.text), [
      "€120 a night",
      "€200"
    ])
  })

  it("knows a currency by its code, sign or word, as an answer gives it", () => {
    assert.deepStrictEqual(
      ["eur", "Euros", "kr", "Swiss francs", "RM", "bucks", "for", "constructor"].map(mentionOf),
      [
        { code: "EUR" },
        { code: "EUR" },
        { family: "krone" },
        { code: "CHF" },
        { code: "MYR" },
        { family: "dollar" },
        undefined,
        undefined
      ]
    )
  })

  it("reads an amount as each country formats its own currency", () => {
    const currencyOf = countryToCurrency as Record<string, string>
    const countries = ("AR AT BE BR CA CH CL CO CZ DE DK ES FR GB HK HU ID IN IS IT JP KR MX MY NG NL NO NZ PE PH PL " +
      "PT SE SG TH TR TW US UY VN ZA").split(" ")
    fc.assert(
      fc.property(fc.constantFrom(...countries), fc.integer({ min: 1, max: 999_999_999 }), (country, cents) => {
        const currency = currencyOf[country]!
        const locale = `${new Intl.Locale(`und-${country}`).maximize().language}-${country}`
        const written = normalize(new Intl.NumberFormat(locale, { style: "currency", currency }).format(cents / 100))
        const [m, ...rest] = readMoney(written, [country])
        const exact = new Intl.NumberFormat("en", { style: "currency", currency }).formatToParts(cents / 100)
          .filter((p) => p.type === "integer" || p.type === "fraction").map((p) => p.value).join("")
        assert.deepStrictEqual(rest, [], written)
        assert.strictEqual(m?.amount.replace(".", ""), exact, written)
        assert.strictEqual(m.currency === undefined ? undefined : resolveCurrency(m.currency, [country]), currency)
        assert.strictEqual(m.text, written.replace(/\.$/, ""))
      })
    )
  })

  it("knows which dollar by the place, and writes minor units", () => {
    assert.strictEqual(resolveCurrency({ family: "dollar" }, ["CA"]), "CAD")
    assert.strictEqual(resolveCurrency({ family: "dollar" }, ["PT"]), "USD")
    assert.strictEqual(resolveCurrency({ family: "yen" }, ["JP", "JP"]), "JPY")
    assert.deepStrictEqual(resolveCurrency({ family: "$" }, ["CA", "US"]), ["CAD", "USD"])
    assert.deepStrictEqual(
      [
        formatAmount("1500", "USD"),
        formatAmount("40000", "JPY", 3),
        formatAmount("12.5", "EUR", 4),
        formatAmount("1.23456", "USD")
      ],
      ["1500.00", "120000", "50.00", "too-precise"]
    )
  })
})
