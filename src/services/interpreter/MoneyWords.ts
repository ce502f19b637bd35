import type { Decimal } from "./Numbers.ts"

// ---------------------------------------------------------------------------------------------------
// Money.

const minorUnits = (currency: string): number =>
  "BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF".includes(currency)
    ? 0
    : "BHD IQD JOD KWD LYD OMR TND".includes(currency)
    ? 3
    : currency === "CLF" || currency === "UYW"
    ? 4
    : 2

/** The contract's amount for a number in a currency: its minor units written out, or why it cannot be. */
export const formatAmount = (d: Decimal, currency: string): string | "too-large" | "too-precise" => {
  const frac = d.frac.replace(/0+$/, "")
  if (d.int.length > 15) return "too-large"
  if (frac.length > 4) return "too-precise"
  const digits = Math.max(minorUnits(currency), frac.length)
  return digits === 0 ? d.int : `${d.int}.${frac.padEnd(digits, "0")}`
}

/**
 * A currency named by a sign or word that several currencies share. The dollar alone reads as USD unless
 * the request is set where another dollar is spent; the others need the place to say which.
 */
type Family = "dollar" | "yen" | "krone" | "rupee" | "peso" | "franc" | "dirham"

export const families: Record<Family, ReadonlyArray<string>> = {
  dollar: ["USD", "CAD", "AUD", "NZD", "SGD", "HKD", "TWD", "MXN", "ARS", "CLP", "COP"],
  yen: ["JPY", "CNY"],
  krone: ["SEK", "NOK", "DKK", "ISK"],
  rupee: ["INR", "PKR", "LKR", "NPR"],
  peso: ["MXN", "ARS", "CLP", "COP", "PHP"],
  franc: ["CHF"],
  dirham: ["AED", "MAD"]
}

export type CurrencyMention = { readonly code: string } | { readonly family: Family }

export const currencySymbols: Record<string, CurrencyMention> = {
  "$": { family: "dollar" },
  "€": { code: "EUR" },
  "£": { code: "GBP" },
  "¥": { family: "yen" },
  "円": { code: "JPY" },
  "元": { code: "CNY" },
  "₹": { code: "INR" },
  "₩": { code: "KRW" },
  "₽": { code: "RUB" },
  "₺": { code: "TRY" },
  "₪": { code: "ILS" },
  "₫": { code: "VND" },
  "฿": { code: "THB" },
  "₱": { code: "PHP" },
  "₦": { code: "NGN" },
  "₴": { code: "UAH" },
  "₸": { code: "KZT" },
  "₡": { code: "CRC" },
  "₲": { code: "PYG" },
  "₵": { code: "GHS" },
  "₾": { code: "GEL" },
  "₼": { code: "AZN" },
  "₨": { family: "rupee" }
}

export const dollarPrefixes: Record<string, string> = {
  us: "USD",
  u: "USD",
  c: "CAD",
  ca: "CAD",
  can: "CAD",
  a: "AUD",
  au: "AUD",
  nz: "NZD",
  hk: "HKD",
  s: "SGD",
  sg: "SGD",
  r: "BRL",
  mx: "MXN",
  nt: "TWD"
}

export const lowerCodes = new Set(
  "usd eur gbp jpy chf cad aud nzd cny inr brl mxn sek nok dkk pln czk huf zar sgd hkd krw".split(" ")
)

export const currencyWords: Record<string, CurrencyMention> = {
  dollar: { family: "dollar" },
  dollars: { family: "dollar" },
  buck: { family: "dollar" },
  bucks: { family: "dollar" },
  euro: { code: "EUR" },
  euros: { code: "EUR" },
  pound: { code: "GBP" },
  pounds: { code: "GBP" },
  quid: { code: "GBP" },
  sterling: { code: "GBP" },
  yen: { code: "JPY" },
  yuan: { code: "CNY" },
  rmb: { code: "CNY" },
  renminbi: { code: "CNY" },
  rupee: { family: "rupee" },
  rupees: { family: "rupee" },
  rs: { family: "rupee" },
  kr: { family: "krone" },
  krona: { code: "SEK" },
  kronor: { code: "SEK" },
  krone: { family: "krone" },
  kroner: { family: "krone" },
  peso: { family: "peso" },
  pesos: { family: "peso" },
  franc: { family: "franc" },
  francs: { family: "franc" },
  reais: { code: "BRL" },
  zloty: { code: "PLN" },
  "złoty": { code: "PLN" },
  "zł": { code: "PLN" },
  zlotys: { code: "PLN" },
  forint: { code: "HUF" },
  koruna: { code: "CZK" },
  "kč": { code: "CZK" },
  baht: { code: "THB" },
  lira: { code: "TRY" },
  shekel: { code: "ILS" },
  shekels: { code: "ILS" },
  rand: { code: "ZAR" },
  ringgit: { code: "MYR" },
  rupiah: { code: "IDR" },
  naira: { code: "NGN" },
  dirham: { family: "dirham" },
  dirhams: { family: "dirham" }
}

/** Adjectives that name which dollar, peso or franc. */
export const currencyAdjectives: Record<string, string> = {
  us: "USD",
  american: "USD",
  canadian: "CAD",
  australian: "AUD",
  aussie: "AUD",
  "new zealand": "NZD",
  kiwi: "NZD",
  singapore: "SGD",
  singaporean: "SGD",
  "hong kong": "HKD",
  taiwan: "TWD",
  taiwanese: "TWD",
  mexican: "MXN",
  argentine: "ARS",
  argentinian: "ARS",
  chilean: "CLP",
  colombian: "COP",
  philippine: "PHP",
  swiss: "CHF",
  indian: "INR",
  pakistani: "PKR",
  swedish: "SEK",
  norwegian: "NOK",
  danish: "DKK",
  icelandic: "ISK",
  japanese: "JPY",
  chinese: "CNY",
  emirati: "AED",
  moroccan: "MAD"
}
