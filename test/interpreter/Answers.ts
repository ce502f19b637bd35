import type { ConstraintInput } from "../../src/schema/Constraint.ts"
import type { Case } from "./Table.ts"

const lisbon: ConstraintInput = { type: "timezone", zone: "Europe/Lisbon" }

/** Answers that carry several facts at once: one answer closes every question it settles. */
export const answered: ReadonlyArray<Case> = [
  {
    request: "Book a table",
    answers: { q_date: "Friday at 7pm at Nopa in San Francisco, 3 of us" },
    kind: "reservation",
    ask: [],
    facts: { window: "2026-03-13T19:00:00-07:00", people: 3, zone: "America/Los_Angeles" }
  },
  {
    request: "Book a table for 4 at an Italian restaurant in Lisbon",
    answers: { q_date: "next Friday at 8pm" },
    kind: "reservation",
    ask: [],
    facts: { window: "2026-03-13T20:00:00+00:00", people: 4 }
  },
  {
    request: "Dinner reservation",
    answers: { q_location: "Lisbon, tomorrow at 8pm, for 2" },
    kind: "reservation",
    ask: [],
    facts: { window: "2026-03-11T20:00:00+00:00", people: 2, zone: "Europe/Lisbon" }
  },
  {
    request: "Book a table for 2 at our regular spot on Friday at 8pm",
    answers: { q_location: "Cervejaria Ramiro in Lisbon" },
    kind: "reservation",
    ask: [],
    facts: { window: "2026-03-13T20:00:00+00:00" }
  },
  {
    request: "Table for 4 on 12/03 at 8pm in Lisbon",
    answers: { q_date: "12 March" },
    kind: "reservation",
    ask: [],
    facts: { window: "2026-03-12T20:00:00+00:00" }
  },
  {
    request: "Table for 4 on 12/03 at 8pm in Lisbon",
    answers: { q_date: "12 March at 8pm" },
    kind: "reservation",
    ask: [],
    facts: { window: "2026-03-12T20:00:00+00:00" }
  },
  {
    request: "Dinner in Toronto for 2 on Saturday under $120",
    answers: { q_budget_currency: "US dollars" },
    kind: "reservation",
    ask: ["q_time"],
    facts: { budget: "120.00 USD" }
  },
  {
    request: "Taxi tomorrow at 6am",
    answers: { q_location: "from my hotel in Berlin to Tegel" },
    kind: "transport",
    ask: [],
    facts: { window: "2026-03-11T06:00:00+01:00", zone: "Europe/Berlin" }
  },
  {
    request: "Taxi tomorrow at 6am",
    answers: { q_location: "from Lisbon airport to Cascais" },
    kind: "transport",
    ask: [],
    facts: { window: "2026-03-11T06:00:00+00:00" }
  },
  {
    request: "Plumber at 9 tomorrow",
    answers: { q_timezone: "Lisbon" },
    kind: "service",
    ask: ["q_location_to"],
    facts: { window: "2026-03-11T09:00:00+00:00", zone: "Europe/Lisbon" }
  },
  {
    request: "Plumber at 9 tomorrow",
    answers: { q_timezone: "Europe/Paris" },
    kind: "service",
    ask: ["q_location_to"],
    facts: { window: "2026-03-11T09:00:00+01:00" }
  },
  {
    request: "Plumber at 9 tomorrow",
    answers: { q_timezone: "Sintra" },
    kind: "service",
    ask: ["q_location_to", "q_timezone"]
  },
  {
    request: "Plumber at 9 tomorrow",
    answers: { q_timezone: "Portugal" },
    kind: "service",
    ask: ["q_location_to"],
    facts: { window: "2026-03-11T09:00:00+00:00" }
  },
  {
    request: "Book a table for 3 in Portland on Friday at 7pm",
    answers: { q_location: "Maine" },
    kind: "reservation",
    ask: [],
    facts: { zone: "America/New_York" }
  },
  {
    request: "Book a table for 3 in Portland on Friday at 7pm",
    answers: { q_location: "Portland, Oregon" },
    kind: "reservation",
    ask: [],
    facts: { zone: "America/Los_Angeles", window: "2026-03-13T19:00:00-07:00" }
  },
  {
    request: "Flight to Paris",
    answers: { q_date: "next Monday" },
    kind: "transport",
    ask: ["q_location_from", "q_time"],
    facts: { window: "2026-03-16T00:00:00+01:00" }
  },
  { request: "Flight to Paris", answers: { q_date: "blah" }, kind: "transport", ask: ["q_location_from", "q_date"] },
  {
    request: "Flight to Paris",
    answers: { q_date: "Friday morning from Lisbon, 2 of us, under 400 euros" },
    kind: "transport",
    ask: ["q_time"],
    facts: { budget: "400.00 EUR", people: 2, zone: "Europe/Lisbon", window: "2026-03-13T00:00:00+00:00" }
  },
  {
    request: "Book a manicure tomorrow at 7",
    given: [lisbon],
    answers: { q_time: "in the evening" },
    kind: "appointment",
    ask: ["q_location"],
    facts: { window: "2026-03-11T19:00:00+00:00" }
  },
  {
    request: "Book a manicure tomorrow at 7",
    given: [lisbon],
    answers: { q_time: "7pm" },
    kind: "appointment",
    ask: ["q_location"],
    facts: { window: "2026-03-11T19:00:00+00:00" }
  },
  {
    request: "Book a manicure tomorrow at 7",
    given: [lisbon],
    answers: { q_time: "whatever" },
    kind: "appointment",
    ask: ["q_location", "q_time"]
  },
  {
    request: "Spend at most 200 on a gift",
    answers: { q_budget_currency: "€" },
    kind: "purchase",
    ask: [],
    facts: { budget: "200.00 EUR" }
  },
  {
    request: "Spend at most 200 on a gift",
    answers: { q_budget_currency: "Canadian dollars" },
    kind: "purchase",
    ask: [],
    facts: { budget: "200.00 CAD" }
  },
  {
    request: "buy a sofa for under 1.200 euros",
    answers: { q_budget_amount: "1200 EUR" },
    kind: "purchase",
    ask: [],
    facts: { budget: "1200.00 EUR" }
  },
  {
    request: "table at Nobu",
    given: [lisbon],
    answers: { q_date: "Saturday at 9pm, 6 people" },
    kind: "reservation",
    ask: [],
    facts: { window: "2026-03-14T21:00:00+00:00", people: 6 }
  },
  {
    request: "table at Nobu",
    given: [lisbon],
    answers: { q_date: "Saturday at 9pm", q_quantity_people: "6" },
    kind: "reservation",
    ask: [],
    facts: { people: 6 }
  },
  {
    request: "Get tickets for the match on Saturday",
    answers: { q_event: "Benfica vs Porto at the Estádio da Luz, 2 tickets, under €100" },
    kind: "purchase",
    ask: [],
    facts: { budget: "100.00 EUR", quantity: [2, "tickets"] }
  },
  {
    request: "Send a package within 2 days",
    answers: { q_location: "to my office at 5 Main Street, Dublin" },
    kind: "delivery",
    ask: ["q_location_from"],
    facts: { zone: "Europe/Dublin" }
  },
  {
    request: "Book a doctor's appointment",
    answers: { q_date: "Monday at 10am in Boston" },
    kind: "appointment",
    ask: [],
    facts: { window: "2026-03-16T10:00:00-04:00" }
  },
  {
    request: "A haircut",
    answers: { q_date: "Saturday afternoon in Madrid, max 30 euros" },
    kind: "appointment",
    ask: ["q_time"],
    facts: { window: ["2026-03-14T00:00:00+01:00", "2026-03-15T00:00:00+01:00"], budget: "30.00 EUR" }
  },
  {
    request: "Book me a flight to São Paulo",
    answers: { q_date: "from New York on 2 April, back on 9 April, max $1200" },
    kind: "transport",
    ask: ["q_time"],
    facts: { budget: "1200.00 USD", zone: "America/New_York" }
  },
  {
    request: "Book a hotel for the conference",
    answers: { q_location: "Berlin, 4 to 6 May, 2 rooms" },
    kind: "reservation",
    ask: [],
    facts: { window: ["2026-05-04T00:00:00+02:00", "2026-05-07T00:00:00+02:00"], quantity: [2, "rooms"] }
  },
  {
    request: "Dinner at our regular spot on Saturday at 8, 4 of us",
    answers: { q_location: "Nopa, San Francisco" },
    kind: "reservation",
    ask: [],
    facts: { window: "2026-03-14T20:00:00-07:00" }
  },
  {
    request: "Table for 2 in Lisbon today at 9am",
    answers: { q_date: "tomorrow, same time" },
    kind: "reservation",
    ask: [],
    facts: { window: "2026-03-11T09:00:00+00:00" }
  },
  {
    request: "Hotel in Lisbon on 2025-12-03",
    answers: { q_date: "3 December 2026 for 2 nights" },
    kind: "reservation",
    ask: [],
    facts: { window: "2026-12-03T00:00:00+00:00", quantity: [2, "nights"] }
  }
]
