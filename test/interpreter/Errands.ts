import type { ConstraintInput } from "../../src/schema/Constraint.ts"
import type { Case } from "./Table.ts"

const lisbon: ConstraintInput = { type: "timezone", zone: "Europe/Lisbon" }

/** Every other request: shopping and tickets, appointments, services, deliveries, and the edge cases. */
export const errands: ReadonlyArray<Case> = [
  // ---- groceries, gifts, shopping, tickets
  {
    request: "Buy a dozen eggs, 2 litres of milk and a loaf of bread",
    kind: "purchase",
    ask: [],
    facts: { quantity: [12, "eggs"] }
  },
  {
    request: "order groceries for delivery by 6pm today, budget £40",
    given: [{ type: "timezone", zone: "Europe/London" }],
    kind: "purchase",
    ask: ["q_objective"],
    facts: { budget: "40.00 GBP", deadline: "2026-03-10T18:00:00+00:00" }
  },
  {
    request: "Get me 3 bottles of red wine under 60 euros",
    kind: "purchase",
    ask: [],
    facts: { budget: "60.00 EUR", quantity: [3, "bottles of red wine"] }
  },
  {
    request: "Weekly groceries, no more than 120 EUR, deliver before Friday",
    kind: "purchase",
    ask: [],
    facts: { budget: "120.00 EUR", deadline: "2026-03-13T00:00:00Z" }
  },
  { request: "Buy a birthday gift for my sister under $50", kind: "purchase", ask: [], facts: { budget: "50.00 USD" } },
  {
    request: "Send flowers to my mum in Manchester for Mother's Day, around £35",
    kind: "purchase",
    ask: ["q_location_to"],
    facts: { budget: "35.00 GBP", places: ["Manchester"] }
  },
  { request: "Gift card worth 100 CAD", kind: "purchase", ask: [], facts: { budget: "100.00 CAD" } },
  {
    request: "buy two tickets for the Coldplay concert in Coimbra",
    kind: "purchase",
    ask: [],
    facts: { quantity: [2, "tickets"] }
  },
  { request: "Buy a laptop under 1.5k USD", kind: "purchase", ask: [], facts: { budget: "1500.00 USD" } },
  { request: "Buy a TV between 400 and 600 dollars", kind: "purchase", ask: [], facts: { budget: "600.00 USD" } },
  { request: "buy a sofa for under 1.200 euros", kind: "purchase", ask: ["q_budget_amount"] },
  { request: "Spend at most 200 on a gift", kind: "purchase", ask: ["q_budget_currency"] },
  { request: "Get tickets for the match on Saturday", kind: "purchase", ask: ["q_event", "q_quantity"] },
  { request: "Two tickets for the show tonight, max $80 each", kind: "purchase", ask: ["q_event"] },
  {
    request: "Two tickets for Hamilton in New York on Saturday, max $150 each",
    kind: "purchase",
    ask: [],
    facts: { budget: "300.00 USD", quantity: [2, "tickets"] }
  },
  {
    request: "4 tickets to the Arsenal vs Chelsea match on Sunday under £100 per ticket",
    kind: "purchase",
    ask: [],
    facts: { budget: "400.00 GBP" }
  },
  { request: "Order a pizza for tonight, under 25 euros", kind: "purchase", ask: [], facts: { budget: "25.00 EUR" } },
  {
    request: "Buy groceries in Lisbon, budget 80",
    kind: "purchase",
    ask: ["q_objective"],
    facts: { budget: "80.00 EUR" }
  },
  { request: "Buy a phone for under 30,000 yen", kind: "purchase", ask: [], facts: { budget: "30000 JPY" } },
  { request: "Order 20 kg of dog food, max 70 GBP", kind: "purchase", ask: [], facts: { budget: "70.00 GBP" } },
  { request: "Buy a cake for Saturday, up to R$ 150", kind: "purchase", ask: [], facts: { budget: "150.00 BRL" } },
  { request: "Buy running shoes, 120 to 150 CHF", kind: "purchase", ask: [], facts: { budget: "150.00 CHF" } },
  {
    request: "Buy a present for Anna, 100 Australian dollars max",
    kind: "purchase",
    ask: [],
    facts: { budget: "100.00 AUD" }
  },
  {
    request: "Buy 3 books, $20 each",
    kind: "purchase",
    ask: [],
    facts: { budget: "60.00 USD", quantity: [3, "books"] }
  },
  { request: "buy a gift under 200 in Mexico City", kind: "purchase", ask: [], facts: { budget: "200.00 MXN" } },
  {
    request: "Buy concert tickets for Taylor Swift in Singapore, under S$300",
    kind: "purchase",
    ask: ["q_quantity"],
    facts: { budget: "300.00 SGD" }
  },
  {
    request: "Groceries delivered by Thursday, around 60 quid",
    kind: "purchase",
    ask: ["q_location_to"],
    // Quid are pounds, so the day is read on the United Kingdom's clock.
    facts: { budget: "60.00 GBP", deadline: "2026-03-13T00:00:00+00:00" }
  },
  { request: "Buy a bike for less than 500 zł", kind: "purchase", ask: [], facts: { budget: "500.00 PLN" } },
  { request: "Please buy 2 kg of apples", kind: "purchase", ask: [], facts: { quantity: [2, "kg of apples"] } },
  // ---- appointments
  {
    request: "Dentist appointment next week, mornings only",
    kind: "appointment",
    ask: ["q_location", "q_date"],
    facts: { window: ["2026-03-16T00:00:00Z", "2026-03-23T00:00:00Z"] }
  },
  {
    request: "Haircut on Saturday at 11am",
    given: [lisbon],
    kind: "appointment",
    ask: ["q_location"],
    facts: { window: "2026-03-14T11:00:00+00:00" }
  },
  {
    request: "vet appointment for my dog tomorrow afternoon",
    given: [lisbon],
    kind: "appointment",
    ask: ["q_location", "q_time"],
    facts: { window: ["2026-03-11T00:00:00+00:00", "2026-03-12T00:00:00+00:00"] }
  },
  { request: "Book a doctor's appointment", kind: "appointment", ask: ["q_location", "q_date"] },
  {
    request: "Massage in Bali on 1 May",
    kind: "appointment",
    ask: ["q_time"],
    facts: { window: "2026-05-01T00:00:00+08:00", zone: "Asia/Makassar" }
  },
  {
    request: "Haircut in Paris on Friday at 3",
    kind: "appointment",
    ask: [],
    facts: { window: "2026-03-13T15:00:00+01:00" }
  },
  {
    request: "Doctor in Boston on Monday at 10",
    kind: "appointment",
    ask: [],
    facts: { window: "2026-03-16T10:00:00-04:00", zone: "America/New_York" }
  },
  {
    request: "Physio appointment in Melbourne on Wednesday at 4:30",
    kind: "appointment",
    ask: [],
    facts: { window: "2026-03-11T16:30:00+11:00" }
  },
  { request: "Book a manicure tomorrow at 7", given: [lisbon], kind: "appointment", ask: ["q_location", "q_time"] },
  { request: "Dentist in London today at 9am", kind: "appointment", ask: ["q_date"] },
  {
    request: "Eye test in Glasgow on 2 April at 14:00",
    kind: "appointment",
    ask: [],
    facts: { window: "2026-04-02T14:00:00+01:00", zone: "Europe/London" }
  },
  {
    request: "Barber appointment at the usual place on Friday at 5pm",
    kind: "appointment",
    ask: ["q_location"]
  },
  { request: "A haircut", kind: "appointment", ask: ["q_location", "q_date"] },
  {
    request: "Vaccination for my cat in Auckland next Monday at 9am",
    kind: "appointment",
    ask: [],
    facts: { zone: "Pacific/Auckland", window: "2026-03-16T09:00:00+13:00" }
  },
  {
    request: "Spa day in Istanbul on Sunday",
    kind: "appointment",
    ask: ["q_time"],
    facts: { zone: "Europe/Istanbul", window: "2026-03-15T00:00:00+03:00" }
  },
  {
    request: "Dentist appointment in 1 month",
    kind: "appointment",
    ask: ["q_location", "q_time"],
    facts: { window: "2026-04-10T00:00:00Z" }
  },
  { request: "A massage this afternoon at 3 in Bangkok", kind: "appointment", ask: ["q_date"] },
  // ---- services
  {
    request: "My sink is leaking, get a plumber today",
    given: [lisbon],
    kind: "service",
    ask: ["q_location_to", "q_time"],
    facts: { window: ["2026-03-10T00:00:00+00:00", "2026-03-11T00:00:00+00:00"] }
  },
  {
    request: "Fix my bike before the weekend",
    kind: "service",
    ask: ["q_location_to"],
    facts: { deadline: "2026-03-14T00:00:00Z" }
  },
  {
    request: "Need an electrician to install 4 ceiling lights, up to 250 GBP",
    kind: "service",
    ask: ["q_location_to", "q_date"],
    facts: { budget: "250.00 GBP", quantity: [4, "ceiling lights"] }
  },
  { request: "Cleaner for my flat every week", kind: "service", ask: ["q_location_to", "q_date"] },
  {
    request: "A cleaner at my place on Thursday at 10, £15 an hour",
    given: [{ type: "timezone", zone: "Europe/London" }],
    kind: "service",
    ask: ["q_location"],
    facts: { window: "2026-03-12T10:00:00+00:00", budget: null }
  },
  {
    request: "Movers in Chicago on Saturday at 9am, max $800",
    kind: "service",
    ask: ["q_location_from", "q_location_to"],
    facts: { budget: "800.00 USD", window: "2026-03-14T09:00:00-05:00" }
  },
  {
    request: "Boiler repair in Leeds tomorrow morning",
    kind: "service",
    ask: ["q_location_to"],
    facts: { zone: "Europe/London", window: ["2026-03-11T00:00:00+00:00", "2026-03-12T00:00:00+00:00"] }
  },
  { request: "Get my car serviced on Friday", kind: "service", ask: ["q_location_to", "q_time"] },
  {
    request: "Book an appointment for a car service in Munich on Wednesday at 8",
    kind: "service",
    ask: ["q_location_to"],
    facts: { window: "2026-03-11T08:00:00+01:00" }
  },
  {
    request: "Locksmith now in Amsterdam, I'm locked out",
    kind: "service",
    ask: ["q_location_to"],
    facts: { window: "2026-03-10T11:00:00+01:00", zone: "Europe/Amsterdam" }
  },
  { request: "Plumber at 9 tomorrow", kind: "service", ask: ["q_location_to", "q_timezone"] },
  {
    request: "Babysitter in Denver on Saturday from 6 to 11pm",
    kind: "service",
    ask: ["q_location_to"],
    facts: { window: ["2026-03-14T18:00:00-06:00", "2026-03-14T23:00:00-06:00"] }
  },
  {
    request: "Handyman to assemble 2 wardrobes next week",
    kind: "service",
    ask: ["q_location_to", "q_date"],
    facts: { quantity: [2, "wardrobes"] }
  },
  {
    request: "fix my boiler by end of month",
    kind: "service",
    ask: ["q_location_to"],
    facts: { deadline: "2026-04-01T00:00:00Z" }
  },
  {
    request: "Gardener in Hamburg every Friday, 25 EUR per hour",
    kind: "service",
    ask: ["q_location_to", "q_time"],
    facts: { budget: null }
  },
  {
    request: "I need a plumber this morning",
    given: [lisbon],
    kind: "service",
    ask: ["q_location_to"],
    facts: { window: ["2026-03-10T00:00:00+00:00", "2026-03-11T00:00:00+00:00"] }
  },
  // ---- deliveries and couriers
  {
    request: "Send a parcel to Hamburg within 3 days",
    kind: "delivery",
    ask: ["q_location_from", "q_location_to"],
    facts: { deadline: "2026-03-13T11:00:00+01:00", zone: "Europe/Berlin" }
  },
  {
    request: "Courier 2 boxes from Rua Augusta 10, Lisbon to Madrid by end of month",
    kind: "delivery",
    ask: ["q_location_to"],
    facts: { deadline: "2026-04-01T00:00:00+02:00", quantity: [2, "boxes"] }
  },
  {
    request: "Deliver a sofa to Rua do Ouro, Lisbon",
    given: [{ type: "location", place: "Rua do Ouro 12, 1100-060 Lisboa" }],
    kind: "delivery",
    ask: ["q_date"]
  },
  { request: "Send a package within 2 days", kind: "delivery", ask: ["q_location_from", "q_location_to"] },
  {
    request: "Ship these documents to my sister's by Friday",
    kind: "delivery",
    ask: ["q_location", "q_location_from"]
  },
  {
    request: "Courier a letter to Nairobi by tomorrow at 5pm",
    kind: "delivery",
    ask: ["q_location_from", "q_location_to"],
    facts: { deadline: "2026-03-11T17:00:00+03:00", zone: "Africa/Nairobi" }
  },
  { request: "Ship a parcel to Porto", kind: "delivery", ask: ["q_location_from", "q_location_to", "q_date"] },
  {
    request: "Send a package from Boston to Chicago, under $40",
    kind: "delivery",
    ask: ["q_location_to", "q_date"],
    facts: { budget: "40.00 USD" }
  },
  {
    request: "Deliver my suitcase from the hotel to the airport by 2pm",
    kind: "delivery",
    ask: ["q_location_from", "q_timezone"]
  },
  {
    request: "Send a bouquet of roses to my wife at her office by 3pm tomorrow",
    kind: "purchase",
    ask: ["q_location"]
  },
  // ---- things that are not requests, or say too little
  { request: "hello", kind: null, ask: ["q_objective"] },
  { request: "!!!", kind: null, ask: ["q_objective"] },
  { request: "asdf", kind: null, ask: ["q_objective"] },
  // ---- caller constraints
  {
    request: "book a table for 2 tomorrow",
    given: [lisbon, { type: "window", start: "2026-03-11T19:00:00Z", end: "2026-03-11T21:00:00Z" }],
    kind: "reservation",
    ask: ["q_location"]
  },
  {
    request: "book a table for 2 tomorrow",
    given: [lisbon, { type: "window", start: "2026-03-15T19:00:00Z", end: "2026-03-15T21:00:00Z" }],
    kind: "reservation",
    ask: ["q_location", "q_date"]
  },
  {
    request: "flight to Rome on Friday under €200",
    given: [{ type: "budget", max: { amount: "250.00", currency: "EUR" } }],
    kind: "transport",
    ask: ["q_location_from", "q_time"]
  },
  {
    request: "flight to Rome on Friday under €200",
    given: [{ type: "budget", max: { amount: "180.00", currency: "EUR" } }],
    kind: "transport",
    ask: ["q_location_from", "q_budget", "q_time"],
    facts: { budget: null }
  },
  {
    request: "Book a table at 7pm",
    given: [lisbon, { type: "quantity", count: 2 }],
    kind: "reservation",
    ask: ["q_location"],
    facts: { window: "2026-03-10T19:00:00+00:00" }
  },
  {
    // The caller's place sets the clock (8pm Lisbon time), but no words name a zone: no timezone fact.
    request: "Dinner at 8pm on Friday",
    given: [{ type: "location", place: "Lisbon" }],
    kind: "reservation",
    ask: ["q_quantity_people"],
    facts: { window: "2026-03-13T20:00:00+00:00", zone: null }
  },
  {
    request: "Flowers for Ann, 40 EUR",
    given: [{ type: "budget", max: { amount: "40.00", currency: "EUR" } }],
    kind: "purchase",
    ask: [],
    facts: { budget: null }
  },
  // ---- other days and clocks
  {
    request: "train on Friday to Porto",
    at: "2026-03-13T09:00:00Z",
    kind: "transport",
    ask: ["q_location_from", "q_time"]
  },
  {
    request: "train next Friday to Porto",
    at: "2026-03-13T09:00:00Z",
    kind: "transport",
    ask: ["q_location_from", "q_time"],
    facts: { window: "2026-03-20T00:00:00+00:00" }
  },
  {
    request: "train this Friday to Porto",
    at: "2026-03-13T09:00:00Z",
    kind: "transport",
    ask: ["q_location_from", "q_time"],
    facts: { window: "2026-03-13T00:00:00+00:00" }
  },
  {
    request: "dinner in Tokyo today at 6pm",
    at: "2026-03-10T10:00:00Z",
    kind: "reservation",
    ask: ["q_date", "q_quantity_people"]
  },
  {
    request: "plumber in Tokyo today",
    at: "2026-03-10T23:30:00Z",
    kind: "service",
    ask: ["q_location_to", "q_time"],
    facts: { window: ["2026-03-11T00:00:00+09:00", "2026-03-12T00:00:00+09:00"] }
  },
  {
    request: "hotel in Lisbon this weekend",
    at: "2026-03-27T12:00:00Z",
    kind: "reservation",
    ask: [],
    facts: { window: ["2026-03-28T00:00:00+00:00", "2026-03-30T00:00:00+01:00"] }
  },
  {
    request: "taxi in Lisbon on Sunday at 1:30am",
    at: "2026-03-27T12:00:00Z",
    kind: "transport",
    ask: ["q_location_from", "q_location_to"],
    facts: { window: "2026-03-29T02:30:00+01:00" }
  },
  {
    request: "taxi in Lisbon on Sunday at 1:30am",
    at: "2026-10-23T12:00:00Z",
    kind: "transport",
    ask: ["q_location_from", "q_location_to"],
    facts: { window: "2026-10-25T01:30:00+01:00" }
  },
  {
    request: "plumber in New York tomorrow",
    at: "2026-03-07T15:00:00Z",
    kind: "service",
    ask: ["q_location_to", "q_time"],
    facts: { window: ["2026-03-08T00:00:00-05:00", "2026-03-09T00:00:00-04:00"] }
  },
  {
    request: "train to Madrid on 29 February",
    at: "2027-03-01T09:00:00Z",
    kind: "transport",
    ask: ["q_location_from", "q_time"],
    facts: { window: "2028-02-29T00:00:00+01:00" }
  },
  {
    request: "hotel in Rome on 3 March",
    kind: "reservation",
    ask: ["q_date"],
    facts: { window: "2027-03-03T00:00:00+01:00" }
  },
  {
    request: "hotel in Rome by the end of the year",
    at: "2026-01-31T09:00:00Z",
    kind: "reservation",
    ask: ["q_date"],
    facts: { deadline: "2027-01-01T00:00:00+01:00" }
  }
]
