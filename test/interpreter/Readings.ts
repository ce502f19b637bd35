import type { Case } from "./Table.ts"

/**
 * The classes of reading the Interpreter's second part settled, one request each, written for this
 * table (the development set in ../shared/interpreter is measured apart, never copied here): a clock
 * time said loosely, a stay of N nights, several times kept, a venue with its city, an amount in the
 * place's currency, local forms, and what makes it ask (Needs.json). Created Tuesday 10 March 2026.
 */
export const readings: ReadonlyArray<Case> = [
  {
    request: "Dinner for 2 tonight in Paris around 8, nothing too pricey",
    kind: "reservation",
    ask: [],
    facts: { window: "2026-03-10T20:00:00+01:00", people: 2, zone: "Europe/Paris", places: ["Paris"] }
  },
  {
    request: "Table at Brasserie Lipp, Paris, Thursday 20h30 for 3, under 150",
    kind: "reservation",
    ask: [],
    facts: { window: "2026-03-12T20:30:00+01:00", people: 3, budget: "150.00 EUR", places: ["Brasserie Lipp, Paris"] }
  },
  {
    request: "Hotel Kämp, Helsinki, 3 nights from 20 March, €600 all up",
    kind: "reservation",
    ask: [],
    facts: { window: ["2026-03-20T00:00:00+02:00", "2026-03-24T00:00:00+02:00"], budget: "600.00 EUR" }
  },
  {
    request: "Room at the Ritz Madrid, in on the 20th and out on the 22nd, so three nights",
    kind: "reservation",
    ask: ["q_date"]
  },
  {
    request: "Van hire at Manchester Airport, pick up Friday 09:00, drop off Sunday 18:00",
    kind: "reservation",
    ask: [],
    facts: { window: ["2026-03-13T09:00:00+00:00", "2026-03-15T18:00:00+00:00"] }
  },
  { request: "Car hire at Lisbon airport from Saturday 10am", kind: "reservation", ask: ["q_date"] },
  {
    request: "Two adult returns Glasgow to Edinburgh on Saturday, out on the 09:15, back on the 18:40",
    kind: "transport",
    ask: [],
    facts: { window: "2026-03-14T09:15:00+00:00", places: ["Glasgow", "to Edinburgh"] }
  },
  {
    request: "Taxi from Hotel Arts to Barcelona Sants at 7:40am tomorrow",
    kind: "transport",
    ask: [],
    facts: { window: "2026-03-11T07:40:00+01:00", zone: "Europe/Madrid" }
  },
  {
    request: "Physio at Balance Clinic, 12 Harley Street, London, Wednesday at 6:30",
    kind: "appointment",
    ask: ["q_time"]
  },
  {
    request: "Dentist at Smile Studio, Rua Garrett 50, Lisbon, Thursday at 10",
    kind: "appointment",
    ask: [],
    facts: { window: "2026-03-12T10:00:00+00:00" }
  },
  {
    request: "Courier a signed contract to Kate at 14 Baggot Street, Dublin by 5pm tomorrow",
    kind: "delivery",
    ask: ["q_location_from"]
  },
  {
    request: "Order 20 branded mugs delivered to Unit 3, 8 Canal Road, Leeds by Friday",
    kind: "purchase",
    ask: [],
    facts: { quantity: [20, "branded mugs"], deadline: "2026-03-14T00:00:00+00:00" }
  },
  {
    request: "Order custom t-shirts for the choir, delivered to 5 Rose Lane, Bristol by the 20th",
    kind: "purchase",
    ask: ["q_quantity"]
  },
  {
    request: "Window cleaner at 9 Elm Road, Cambridge on Tuesday 9 to 12",
    kind: "service",
    ask: [],
    facts: { window: ["2026-03-17T09:00:00+00:00", "2026-03-17T12:00:00+00:00"] }
  },
  {
    request: "Movers from 2 Oak Street to 40 Pine Avenue, Boston, Saturday 8am, $900 max",
    kind: "service",
    ask: [],
    facts: { window: "2026-03-14T08:00:00-04:00", budget: "900.00 USD" }
  },
  { request: "Tickets for the Lakers game on Sunday", kind: "purchase", ask: ["q_quantity"] },
  { request: "Cancel my gym membership by the end of the month", kind: "other", ask: [] },
  { request: "Brunch for 4 at Granger & Co, Notting Hill, this weekend", kind: "reservation", ask: ["q_date"] },
  { request: "Boiler service at home on Monday 8-12", kind: "service", ask: ["q_location"] },
  {
    request: "Dinner for 4 at Noma, Copenhagen, Friday at 7pm, max 6 000 kr",
    kind: "reservation",
    ask: [],
    facts: { window: "2026-03-13T19:00:00+01:00", budget: "6000.00 DKK", people: 4 }
  },
  {
    request: "Sea view suite at Hotel Caruso, Ravello: check in 9 June, check out 6 June",
    kind: "reservation",
    ask: ["q_date"]
  }
]
