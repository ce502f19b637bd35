import { stripAccents } from "./Tokens.ts"

// ---------------------------------------------------------------------------------------------------
// Places: what the runtime's time zone database knows (its exemplar cities), a few more cities, and the
// countries whose money or clocks the readers need.

/** Zones whose exemplar name is a common word or not a place anyone books in. */
const unusableZones = /^(?:Antarctica|Etc|Arctic)\/|Christmas|Easter|Wake|Midway|Truk|Chuuk|Faroe|Johnston$/

const cityAliases: Record<string, string> = {
  "porto": "Europe/Lisbon",
  "faro": "Europe/Lisbon",
  "coimbra": "Europe/Lisbon",
  "barcelona": "Europe/Madrid",
  "seville": "Europe/Madrid",
  "sevilla": "Europe/Madrid",
  "valencia": "Europe/Madrid",
  "malaga": "Europe/Madrid",
  "milan": "Europe/Rome",
  "florence": "Europe/Rome",
  "venice": "Europe/Rome",
  "naples": "Europe/Rome",
  "munich": "Europe/Berlin",
  "münchen": "Europe/Berlin",
  "hamburg": "Europe/Berlin",
  "frankfurt": "Europe/Berlin",
  "cologne": "Europe/Berlin",
  "köln": "Europe/Berlin",
  "lyon": "Europe/Paris",
  "marseille": "Europe/Paris",
  "nice": "Europe/Paris",
  "bordeaux": "Europe/Paris",
  "edinburgh": "Europe/London",
  "manchester": "Europe/London",
  "glasgow": "Europe/London",
  "liverpool": "Europe/London",
  "bristol": "Europe/London",
  "geneva": "Europe/Zurich",
  "genève": "Europe/Zurich",
  "basel": "Europe/Zurich",
  "bern": "Europe/Zurich",
  "lausanne": "Europe/Zurich",
  "krakow": "Europe/Warsaw",
  "kraków": "Europe/Warsaw",
  "rotterdam": "Europe/Amsterdam",
  "the hague": "Europe/Amsterdam",
  "antwerp": "Europe/Brussels",
  "gothenburg": "Europe/Stockholm",
  "bergen": "Europe/Oslo",
  "kiev": "Europe/Kyiv",
  "st petersburg": "Europe/Moscow",
  "saint petersburg": "Europe/Moscow",
  "osaka": "Asia/Tokyo",
  "kyoto": "Asia/Tokyo",
  "yokohama": "Asia/Tokyo",
  "sapporo": "Asia/Tokyo",
  "shibuya": "Asia/Tokyo",
  "shinjuku": "Asia/Tokyo",
  "ginza": "Asia/Tokyo",
  "beijing": "Asia/Shanghai",
  "shenzhen": "Asia/Shanghai",
  "guangzhou": "Asia/Shanghai",
  "busan": "Asia/Seoul",
  "mumbai": "Asia/Kolkata",
  "delhi": "Asia/Kolkata",
  "new delhi": "Asia/Kolkata",
  "bangalore": "Asia/Kolkata",
  "bengaluru": "Asia/Kolkata",
  "chennai": "Asia/Kolkata",
  "kolkata": "Asia/Kolkata",
  "calcutta": "Asia/Kolkata",
  "hyderabad": "Asia/Kolkata",
  "lahore": "Asia/Karachi",
  "islamabad": "Asia/Karachi",
  "abu dhabi": "Asia/Dubai",
  "saigon": "Asia/Ho_Chi_Minh",
  "hanoi": "Asia/Bangkok",
  "phuket": "Asia/Bangkok",
  "bali": "Asia/Makassar",
  "san francisco": "America/Los_Angeles",
  "seattle": "America/Los_Angeles",
  "san diego": "America/Los_Angeles",
  "las vegas": "America/Los_Angeles",
  "portland": "America/Los_Angeles",
  "washington": "America/New_York",
  "boston": "America/New_York",
  "miami": "America/New_York",
  "atlanta": "America/New_York",
  "philadelphia": "America/New_York",
  "brooklyn": "America/New_York",
  "manhattan": "America/New_York",
  "nyc": "America/New_York",
  "dallas": "America/Chicago",
  "houston": "America/Chicago",
  "austin": "America/Chicago",
  "new orleans": "America/Chicago",
  "montreal": "America/Toronto",
  "montréal": "America/Toronto",
  "ottawa": "America/Toronto",
  "calgary": "America/Edmonton",
  "rio": "America/Sao_Paulo",
  "rio de janeiro": "America/Sao_Paulo",
  "cape town": "Africa/Johannesburg",
  "marrakech": "Africa/Casablanca",
  "marrakesh": "Africa/Casablanca",
  "canberra": "Australia/Sydney",
  "wellington": "Pacific/Auckland",
  "queenstown": "Pacific/Auckland",
  "guadalajara": "America/Mexico_City",
  "cancún": "America/Cancun"
}

/** Countries that decide which currency a shared sign or word means: by English name. */
export const countryCurrencies: Record<string, string> = {
  "usa": "USD",
  "united states": "USD",
  "america": "USD",
  "canada": "CAD",
  "australia": "AUD",
  "new zealand": "NZD",
  "singapore": "SGD",
  "hong kong": "HKD",
  "taiwan": "TWD",
  "mexico": "MXN",
  "argentina": "ARS",
  "chile": "CLP",
  "colombia": "COP",
  "philippines": "PHP",
  "japan": "JPY",
  "china": "CNY",
  "sweden": "SEK",
  "norway": "NOK",
  "denmark": "DKK",
  "iceland": "ISK",
  "india": "INR",
  "pakistan": "PKR",
  "sri lanka": "LKR",
  "nepal": "NPR",
  "switzerland": "CHF",
  "uae": "AED",
  "united arab emirates": "AED",
  "morocco": "MAD"
}

/** The currency spent where a zone's clocks are, for the currencies that share a sign or word. */
export const zoneCurrency = (zone: string): string | undefined => {
  if (zone.startsWith("Australia/")) return "AUD"
  if (zone.startsWith("America/Argentina/") || zone === "America/Buenos_Aires") return "ARS"
  const table: Record<string, string> = {
    "America/New_York": "USD",
    "America/Chicago": "USD",
    "America/Denver": "USD",
    "America/Los_Angeles": "USD",
    "America/Phoenix": "USD",
    "America/Anchorage": "USD",
    "America/Detroit": "USD",
    "Pacific/Honolulu": "USD",
    "America/Toronto": "CAD",
    "America/Vancouver": "CAD",
    "America/Edmonton": "CAD",
    "America/Winnipeg": "CAD",
    "America/Halifax": "CAD",
    "America/Regina": "CAD",
    "America/St_Johns": "CAD",
    "Pacific/Auckland": "NZD",
    "Asia/Singapore": "SGD",
    "Asia/Hong_Kong": "HKD",
    "Asia/Taipei": "TWD",
    "America/Mexico_City": "MXN",
    "America/Cancun": "MXN",
    "America/Monterrey": "MXN",
    "America/Tijuana": "MXN",
    "America/Santiago": "CLP",
    "America/Bogota": "COP",
    "Asia/Manila": "PHP",
    "Asia/Tokyo": "JPY",
    "Asia/Shanghai": "CNY",
    "Europe/Stockholm": "SEK",
    "Europe/Oslo": "NOK",
    "Europe/Copenhagen": "DKK",
    "Atlantic/Reykjavik": "ISK",
    "Asia/Kolkata": "INR",
    "Asia/Calcutta": "INR",
    "Asia/Karachi": "PKR",
    "Asia/Colombo": "LKR",
    "Asia/Kathmandu": "NPR",
    "Europe/Zurich": "CHF",
    "Asia/Dubai": "AED",
    "Africa/Casablanca": "MAD"
  }
  return table[zone]
}

interface Gazetteer {
  /** Lower-case, accent-free name (1 to 4 words) to its spelling and zone. */
  readonly cities: ReadonlyMap<string, { readonly name: string; readonly zone: string }>
  /** Lower-case zone name to the zone's spelling. */
  readonly zones: ReadonlyMap<string, string>
}

let gazetteer: Gazetteer | undefined

export const getGazetteer = (): Gazetteer => {
  if (gazetteer !== undefined) return gazetteer
  const cities = new Map<string, { name: string; zone: string }>()
  const zones = new Map<string, string>()
  for (const zone of Intl.supportedValuesOf("timeZone")) {
    zones.set(zone.toLowerCase(), zone)
    if (unusableZones.test(zone) || !zone.includes("/")) continue
    const name = zone.slice(zone.lastIndexOf("/") + 1).replaceAll("_", " ")
    cities.set(stripAccents(name.toLowerCase()), { name, zone })
  }
  for (const [alias, zone] of Object.entries(cityAliases)) {
    const name = alias.split(" ").map((w) => w.length <= 3 && w === "nyc" ? "NYC" : w[0]!.toUpperCase() + w.slice(1))
      .join(" ").replace("De ", "de ").replace("The ", "The ")
    cities.set(stripAccents(alias), { name, zone })
  }
  zones.set("utc", "UTC")
  zones.set("gmt", "UTC")
  gazetteer = { cities, zones }
  return gazetteer
}
