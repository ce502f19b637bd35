import { currencyCodes, placeMaxLength } from "../../schema/Constraint.ts"
import { months, weekdays } from "./DateWords.ts"
import { countryCurrencies, getGazetteer, zoneCurrency } from "./PlaceWords.ts"
import type { Reader } from "./Reader.ts"
import {
  isCapitalised,
  keptPrepositions,
  notPlaces,
  placeConnectors,
  placeNouns,
  placePrepositions
} from "./Reading.ts"
import { stripAccents } from "./Tokens.ts"

export const cityAt = (r: Reader, i: number): { end: number; name: string; zone: string } | undefined => {
  const { cities } = getGazetteer()
  for (let n = 4; n >= 1; n--) {
    const words = r.tokens.slice(i, i + n)
    if (words.length < n || words.some((t) => t.kind !== "word")) continue
    const key = stripAccents(words.map((t) => t.lower).join(" "))
    const city = cities.get(key)
    if (city !== undefined) return { end: i + n, ...city }
  }
  return undefined
}

export const countryAt = (r: Reader, i: number): { end: number; currency: string } | undefined => {
  for (let n = 3; n >= 1; n--) {
    const words = r.tokens.slice(i, i + n)
    if (words.length < n || words.some((t) => t.kind !== "word")) continue
    const key = words.map((t) => t.lower).join(" ")
    // "us" the pronoun is not the country; "US" is.
    if (key === "us" || key === "america" && r.lower(i - 1) === "south") continue
    const currency = countryCurrencies[key]
    if (currency !== undefined) return { end: i + n, currency }
  }
  if (r.tokens[i]?.text === "US" || r.tokens[i]?.text === "USA") return { end: i + 1, currency: "USD" }
  return undefined
}

export const readPlace = (r: Reader, i: number): number | undefined => {
  const w = r.lower(i)
  let k = i + 1
  let preposition = w
  if ((w === "close" || w === "next") && r.lower(i + 1) === "to") {
    preposition = "near"
    k = i + 2
  } else if (!placePrepositions.has(w)) {
    return undefined
  }
  const start = k
  let the = false
  if (r.lower(k) === "the") {
    the = true
    k++
  }
  const parts: Array<string> = []
  let end = k
  let zone: string | undefined
  let currency: string | undefined
  // A known city or country, whatever its casing.
  const city = r.cityAt(k)
  const country = r.countryAt(k)
  if (city !== undefined && (city.end >= (country?.end ?? 0))) {
    zone = city.zone
    currency = zoneCurrency(city.zone)
    parts.push(
      isCapitalised(r.tokens[k]) ? r.tokens.slice(k, city.end).map((t) => t.text).join(" ") : city.name
    )
    end = city.end
  } else if (country !== undefined) {
    currency = country.currency
    parts.push(
      r.tokens.slice(k, country.end).map((t) =>
        isCapitalised(t) || t.kind !== "word" ? t.text : t.text[0]!.toUpperCase() + t.text.slice(1)
      ).join(" ")
    )
    end = country.end
  }
  // Then capitalised words, connectors between them, a house number before them, place nouns after.
  let n = end
  const maxWords = 8
  while (n < r.tokens.length && parts.length < maxWords) {
    const token = r.tokens[n]!
    const lower = token.lower
    if (
      isCapitalised(token) && !notPlaces.has(lower) && months[lower] === undefined && weekdays[lower] === undefined &&
      !(token.text.length === 3 && currencyCodes.has(token.text))
    ) {
      parts.push(token.text)
      n++
      continue
    }
    const nextText = r.tokens[n + 1]?.text ?? ""
    if (
      parts.length === 0 && token.kind === "num" && /^\d{1,5}[a-z]?$/i.test(token.text) &&
      isCapitalised(r.tokens[n + 1]) && nextText !== nextText.toUpperCase() && !notPlaces.has(r.lower(n + 1)) &&
      months[r.lower(n + 1)] === undefined && weekdays[r.lower(n + 1)] === undefined
    ) {
      parts.push(token.text)
      n++
      continue
    }
    // Rua Augusta 10
    if (
      parts.length > 0 && token.kind === "num" && /^\d{1,5}[a-z]?$/i.test(token.text) &&
      (r.tokens[n + 1] === undefined || [",", ".", ";", "to"].includes(r.lower(n + 1))) &&
      r.readDay(n) === undefined &&
      r.readTime(n, false) === undefined
    ) {
      parts.push(token.text)
      n++
      continue
    }
    if (parts.length > 0 && placeConnectors.has(lower) && isCapitalised(r.tokens[n + 1])) {
      parts.push(token.text)
      n++
      continue
    }
    if (
      parts.length > 0 && token.text === "," && isCapitalised(r.tokens[n + 1]) &&
      !notPlaces.has(r.lower(n + 1)) && months[r.lower(n + 1)] === undefined &&
      weekdays[r.lower(n + 1)] === undefined
    ) {
      parts[parts.length - 1] += ","
      n++
      continue
    }
    if ((parts.length > 0 || the) && placeNouns.has(lower) && token.kind === "word") {
      parts.push(token.text)
      n++
      continue
    }
    break
  }
  end = n
  if (parts.length === 0) return undefined
  // "the airport" needs its noun; "the Ritz" its capital.
  if (parts[parts.length - 1]!.endsWith(",")) parts[parts.length - 1] = parts[parts.length - 1]!.slice(0, -1)
  if (zone === undefined) {
    for (let c = start; c < end; c++) {
      const inner = r.cityAt(c)
      if (inner !== undefined && isCapitalised(r.tokens[c])) {
        zone = inner.zone
        currency = zoneCurrency(inner.zone)
        break
      }
      const innerCountry = r.countryAt(c)
      if (innerCountry !== undefined && isCapitalised(r.tokens[c])) currency ??= innerCountry.currency
    }
  }
  const name = the ? `the ${parts.join(" ")}` : parts.join(" ")
  const place = keptPrepositions.has(preposition) ? `${preposition} ${name}` : name
  const clipped = Array.from(place).slice(0, placeMaxLength).join("").trim()
  r.out.places.push({ place: clipped, zone, currency })
  return end
}

/** An IANA name or "UTC"/"GMT", or "<City> time". */
export const readZone = (r: Reader, i: number): number | undefined => {
  const token = r.tokens[i]
  if (token === undefined || token.kind !== "word") return undefined
  const { zones } = getGazetteer()
  // Europe/Lisbon, America/Argentina/Buenos_Aires
  let k = i
  let name = token.text
  while (
    r.lower(k + 1) === "/" && r.attached(k + 1) && r.tokens[k + 2]?.kind === "word" && r.attached(k + 2)
  ) {
    name += "/" + r.tokens[k + 2]!.text
    k += 2
    while (r.lower(k + 1) === "_" && r.attached(k + 1) && r.tokens[k + 2]?.kind === "word") {
      name += "_" + r.tokens[k + 2]!.text
      k += 2
    }
  }
  const known = zones.get(name.toLowerCase())
  if (known !== undefined && (name.includes("/") || ["UTC", "GMT"].includes(token.text))) {
    r.out.zones.push(known)
    return k + 1
  }
  const timeFollows = [1, 2, 3, 4].some((n) => r.lower(i + n) === "time")
  const city = timeFollows ? r.cityAt(i) : undefined
  if (city !== undefined && r.lower(city.end) === "time") {
    r.out.zones.push(city.zone)
    return city.end + 1
  }
  return undefined
}
