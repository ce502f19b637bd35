/**
 * How a country writes dates, times and numbers, from the runtime's CLDR data (Intl): the language a
 * country's locale maximises to, with the country ("GB" → en-GB). Nothing here is our own table.
 */
const locales = new Map<string, string>()
export const localeOf = (country: string): string | undefined => {
  if (!/^[A-Z]{2}$/.test(country)) return undefined
  if (!locales.has(country)) {
    let locale = ""
    try {
      locale = `${new Intl.Locale(`und-${country}`).maximize().language}-${country}`
    } catch {
      locale = ""
    }
    locales.set(country, locale)
  }
  return locales.get(country) || undefined
}

/** Whether "5/6" is the 5th of June there (day first) or May the 6th (month first); undefined with no country. */
export const dayFirst = (countries: ReadonlyArray<string>): boolean | undefined => {
  const orders = new Set(countries.flatMap((country) => {
    const locale = localeOf(country)
    if (locale === undefined) return []
    const parts = new Intl.DateTimeFormat(locale, { day: "numeric", month: "numeric" }).formatToParts(
      new Date(2026, 2, 4)
    )
    return [parts.find((p) => p.type === "day" || p.type === "month")?.type === "day"]
  }))
  return orders.size === 1 ? [...orders][0] : undefined
}

/**
 * Whether a time written with minutes ("8:40", "10:00") is on a 24-hour clock there: where the clock
 * is, and the language is not English (in English-speaking countries "6:30" is still either half of the day).
 */
export const clock24 = (countries: ReadonlyArray<string>): boolean =>
  countries.length > 0 && countries.every((country) => {
    const locale = localeOf(country)
    return locale !== undefined && !locale.startsWith("en-") &&
      new Intl.DateTimeFormat(locale, { hour: "numeric" }).resolvedOptions().hourCycle === "h23"
  })
