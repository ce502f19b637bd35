import { assert, describe, it } from "@effect/vitest"
import { readPlaces, readZoneAnswer } from "../../src/services/interpreter/PlaceWords.ts"
import { findPlace, namedZones } from "../../src/services/text/Places.ts"

describe("Places", () => {
  const read: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
    ["Book a table at Cervejaria Ramiro in Lisbon on Friday", ["Cervejaria Ramiro", "Lisbon"]],
    ["Dinner at Noma, Copenhagen, on 14 March", ["Noma, Copenhagen"]],
    ["sushi near Shibuya station for 3", ["near Shibuya station"]],
    ["Flight from Lisbon to Berlin next Friday", ["from Lisbon", "to Berlin"]],
    ["Courier from Rua Augusta 10, Lisbon to Madrid", ["from Rua Augusta 10, Lisbon", "to Madrid"]],
    ["can u book a resturant in lisbon", ["Lisbon"]],
    ["TABLE IN LISBON", ["Lisbon"]],
    ["taxi to the airport at 5am", ["to the airport"]],
    ["flights to Tokyo 7pm Tokyo time", ["to Tokyo"]],
    ["dinner in Lisbon on Friday at 8", ["Lisbon"]]
  ]
  for (const [words, places] of read) {
    it(`reads the places in "${words}"`, () => assert.deepStrictEqual(readPlaces(words).map((p) => p.text), places))
  }

  it("knows a place only the person knows", () => {
    for (const words of ["dinner by my sister's", "at our regular spot", "at the usual place", "at Anna's place"]) {
      assert.deepStrictEqual(readPlaces(words).map((p) => p.vague), [true], words)
    }
    assert.deepStrictEqual(readPlaces("at my usual place in Paris").map((p) => [p.text, p.vague]), [["Paris", false]])
  })

  const zones: ReadonlyArray<readonly [string, string]> = [
    ["Lisbon", "Europe/Lisbon"],
    ["São Paulo", "America/Sao_Paulo"],
    ["Sao Paulo", "America/Sao_Paulo"],
    ["London", "Europe/London"],
    ["Portland, Maine", "America/New_York"],
    ["Portland, OR", "America/Los_Angeles"],
    ["Frankfurt am Main", "Europe/Berlin"],
    ["Bali", "Asia/Makassar"],
    ["NYC", "America/New_York"],
    ["Nairobi", "Africa/Nairobi"],
    ["Buenos Aires", "America/Argentina/Buenos_Aires"],
    ["Sydney", "Australia/Sydney"],
    ["Rua Augusta 10, Lisbon", "Europe/Lisbon"],
    ["Central London", "Europe/London"],
    ["Portugal", "Europe/Lisbon"]
  ]
  for (const [place, zone] of zones) {
    it(`${place} is in ${zone}`, () => {
      const found = findPlace(place)
      assert.strictEqual(found?._tag === "Zone" ? found.zone : found?._tag, zone)
    })
  }

  it("asks only where a name is truly ambiguous, or unknown", () => {
    for (const place of ["Portland", "Springfield", "Birmingham", "USA"]) {
      assert.strictEqual(findPlace(place)?._tag, "Ambiguous", place)
    }
    assert.strictEqual(findPlace("Sintra"), undefined)
    const qualified = findPlace("Portland", "Book a table in Portland, it's in Maine")
    assert.strictEqual(qualified?._tag === "Zone" ? qualified.zone : undefined, "America/New_York")
  })

  it("reads zones named outright and answers to the time-zone question", () => {
    assert.deepStrictEqual(namedZones("at 9pm Asia/Tokyo, or 10am EST, 7pm Tokyo time, UTC+2"), [
      "Asia/Tokyo",
      "America/New_York",
      "Asia/Tokyo",
      "Etc/GMT-2"
    ])
    for (
      const [answer, zone] of [["Lisbon", "Europe/Lisbon"], ["Europe/Paris", "Europe/Paris"], [
        "it's in Oregon",
        "America/Los_Angeles"
      ]]
    ) {
      const found = readZoneAnswer(answer!)
      assert.strictEqual(found?._tag === "Zone" ? found.zone : undefined, zone, answer)
    }
  })
})
