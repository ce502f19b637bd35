import { assert, describe, it, layer } from "@effect/vitest"
import { DateTime, Effect, Result } from "effect"
import fc from "fast-check"
import type { ConstraintInput } from "../src/schema/Constraint.ts"
import { decodeConstraintInput, questionId } from "../src/schema/Constraint.ts"
import type { Answer, Interpretation, InterpretInput } from "../src/services/Interpreter.ts"
import { Interpreter, interpretRequest, layerLive, layerTest } from "../src/services/Interpreter.ts"

/** A Tuesday. */
const createdAt = DateTime.makeUnsafe("2026-03-10T10:00:00Z")

interface Case {
  readonly request: string
  readonly given?: ReadonlyArray<ConstraintInput>
  readonly answers?: Readonly<Record<string, string>>
  readonly kind: string | null
  readonly constraints: ReadonlyArray<ConstraintInput>
  readonly questions: ReadonlyArray<string>
}

const toAnswers = (answers: Readonly<Record<string, string>> = {}): Array<Answer> =>
  Object.entries(answers).map(([questionId, answer]) => ({ questionId, question: "", answer }))

const interpret = (
  request: string,
  options: { given?: ReadonlyArray<ConstraintInput>; answers?: Readonly<Record<string, string>>; at?: DateTime.Utc } =
    {}
): Interpretation =>
  interpretRequest({
    request,
    constraints: options.given ?? [],
    answers: toAnswers(options.answers),
    createdAt: options.at ?? createdAt
  })

const questionIds = (result: Interpretation) => result._tag === "NeedsInput" ? result.questions.map((q) => q.id) : []

/**
 * Requests as people write them, each with everything the interpreter must read from it and nothing more.
 * Created on Tuesday 10 March 2026, 10:00 UTC; Lisbon is on UTC until 29 March.
 */
const table: ReadonlyArray<Case> = [
  {
    request: "Book a table for 4 at Cervejaria Ramiro in Lisbon on Friday at 8pm",
    kind: "reservation",
    constraints: [
      { "type": "window", "start": "2026-03-13T20:00:00+00:00", "end": "2026-03-13T20:01:00+00:00" },
      { "type": "location", "place": "Cervejaria Ramiro" },
      { "type": "location", "place": "Lisbon" },
      { "type": "quantity", "count": 4, "unit": "people" },
      { "type": "timezone", "zone": "Europe/Lisbon" }
    ],
    questions: []
  },
  {
    request: "BOOK A TABLE FOR 2 TONIGHT AT 9PM",
    given: [{ "type": "timezone", "zone": "Europe/Lisbon" }],
    kind: "reservation",
    constraints: [{ "type": "window", "start": "2026-03-10T21:00:00+00:00", "end": "2026-03-10T21:01:00+00:00" }, {
      "type": "quantity",
      "count": 2,
      "unit": "people"
    }],
    questions: []
  },
  {
    request: "can u book a resturant for 6 ppl tmrw at 7:30pm",
    given: [{ "type": "timezone", "zone": "Europe/Lisbon" }],
    kind: "reservation",
    constraints: [{ "type": "window", "start": "2026-03-11T19:30:00+00:00", "end": "2026-03-11T19:31:00+00:00" }, {
      "type": "quantity",
      "count": 6,
      "unit": "people"
    }],
    questions: []
  },
  {
    request: "Dinner reservation for two at Noma, Copenhagen, on 14 March at 19:00",
    kind: "reservation",
    constraints: [
      { "type": "window", "start": "2026-03-14T19:00:00+01:00", "end": "2026-03-14T19:01:00+01:00" },
      { "type": "location", "place": "Noma, Copenhagen" },
      { "type": "quantity", "count": 2, "unit": "people" },
      { "type": "timezone", "zone": "Europe/Copenhagen" }
    ],
    questions: []
  },
  {
    request: "Find a sushi restaurant near Shibuya station for 3 people on Saturday evening",
    kind: "reservation",
    constraints: [
      { "type": "window", "start": "2026-03-14T00:00:00+09:00", "end": "2026-03-15T00:00:00+09:00" },
      { "type": "location", "place": "near Shibuya station" },
      { "type": "quantity", "count": 3, "unit": "people" },
      { "type": "timezone", "zone": "Asia/Tokyo" }
    ],
    questions: []
  },
  {
    request: "Lunch for 8 colleagues next Thursday at 1",
    given: [{ "type": "timezone", "zone": "Europe/Lisbon" }],
    kind: "reservation",
    constraints: [{ "type": "window", "start": "2026-03-12T13:00:00+00:00", "end": "2026-03-12T13:01:00+00:00" }, {
      "type": "quantity",
      "count": 8,
      "unit": "people"
    }],
    questions: []
  },
  {
    request: "table at Nobu",
    given: [{ "type": "timezone", "zone": "Europe/Lisbon" }],
    kind: "reservation",
    constraints: [{ "type": "location", "place": "Nobu" }],
    questions: ["q_date", "q_quantity_people"]
  },
  {
    request: "Flight from Lisbon to Berlin next Friday, under €300",
    kind: "transport",
    constraints: [
      { "type": "budget", "max": { "amount": "300.00", "currency": "EUR" } },
      { "type": "window", "start": "2026-03-13T00:00:00Z", "end": "2026-03-14T00:00:00Z" },
      { "type": "location", "place": "from Lisbon" },
      { "type": "location", "place": "to Berlin" }
    ],
    questions: []
  },
  {
    request: "one-way flight to New York on 2026-04-02, economy, max 600 USD",
    kind: "transport",
    constraints: [
      { "type": "budget", "max": { "amount": "600.00", "currency": "USD" } },
      { "type": "window", "start": "2026-04-02T00:00:00-04:00", "end": "2026-04-03T00:00:00-04:00" },
      { "type": "location", "place": "to New York" },
      { "type": "timezone", "zone": "America/New_York" }
    ],
    questions: []
  },
  {
    request: "Two train tickets from Paris to Lyon this weekend",
    kind: "transport",
    constraints: [
      { "type": "window", "start": "2026-03-14T00:00:00+01:00", "end": "2026-03-16T00:00:00+01:00" },
      { "type": "location", "place": "from Paris" },
      { "type": "location", "place": "to Lyon" },
      { "type": "quantity", "count": 2, "unit": "train tickets" },
      { "type": "timezone", "zone": "Europe/Paris" }
    ],
    questions: []
  },
  {
    request: "taxi to the airport at 5am tomorrow",
    given: [{ "type": "timezone", "zone": "Europe/Lisbon" }],
    kind: "transport",
    constraints: [{ "type": "window", "start": "2026-03-11T05:00:00+00:00", "end": "2026-03-11T05:01:00+00:00" }, {
      "type": "location",
      "place": "to the airport"
    }],
    questions: []
  },
  {
    request: "I need a cab from Heathrow to Central London in 2 hours",
    kind: "transport",
    constraints: [
      { "type": "window", "start": "2026-03-10T12:00:00+00:00", "end": "2026-03-10T12:01:00+00:00" },
      { "type": "location", "place": "from Heathrow" },
      { "type": "location", "place": "to Central London" },
      { "type": "timezone", "zone": "Europe/London" }
    ],
    questions: []
  },
  {
    request: "Book me a flight to São Paulo",
    kind: "transport",
    constraints: [{ "type": "location", "place": "to São Paulo" }],
    questions: ["q_date"]
  },
  {
    request: "ferry to Tangier between 15 and 17 April",
    given: [{ "type": "timezone", "zone": "Europe/Madrid" }],
    kind: "transport",
    constraints: [{ "type": "window", "start": "2026-04-15T00:00:00+02:00", "end": "2026-04-18T00:00:00+02:00" }, {
      "type": "location",
      "place": "to Tangier"
    }],
    questions: []
  },
  {
    request: "Buy a dozen eggs, 2 litres of milk and a loaf of bread",
    kind: "purchase",
    constraints: [{ "type": "quantity", "count": 12, "unit": "eggs" }, {
      "type": "quantity",
      "count": 2,
      "unit": "litres of milk"
    }],
    questions: []
  },
  {
    request: "order groceries for delivery by 6pm today, budget £40",
    given: [{ "type": "timezone", "zone": "Europe/London" }],
    kind: "purchase",
    constraints: [{ "type": "budget", "max": { "amount": "40.00", "currency": "GBP" } }, {
      "type": "deadline",
      "by": "2026-03-10T18:00:00+00:00"
    }],
    questions: []
  },
  {
    request: "Get me 3 bottles of red wine under 60 euros",
    kind: "purchase",
    constraints: [{ "type": "budget", "max": { "amount": "60.00", "currency": "EUR" } }, {
      "type": "quantity",
      "count": 3,
      "unit": "bottles of red wine"
    }],
    questions: []
  },
  {
    request: "Weekly groceries, no more than 120 EUR, deliver before Friday",
    kind: "purchase",
    constraints: [{ "type": "budget", "max": { "amount": "120.00", "currency": "EUR" } }, {
      "type": "deadline",
      "by": "2026-03-13T00:00:00Z"
    }],
    questions: []
  },
  {
    request: "Hotel in Kyoto from 2 to 5 April, 2 rooms, under ¥40,000 per night",
    kind: "reservation",
    constraints: [
      { "type": "window", "start": "2026-04-02T00:00:00+09:00", "end": "2026-04-06T00:00:00+09:00" },
      { "type": "location", "place": "Kyoto" },
      { "type": "quantity", "count": 2, "unit": "rooms" },
      { "type": "timezone", "zone": "Asia/Tokyo" }
    ],
    questions: ["q_budget_amount"]
  },
  {
    request: "Book a hotel room in Porto for 3 nights from 28 March",
    kind: "reservation",
    constraints: [
      { "type": "window", "start": "2026-03-28T00:00:00+00:00", "end": "2026-03-29T00:00:00+00:00" },
      { "type": "location", "place": "Porto" },
      { "type": "quantity", "count": 3, "unit": "nights" },
      { "type": "timezone", "zone": "Europe/Lisbon" }
    ],
    questions: []
  },
  {
    request: "airbnb in Barcelona this weekend for 4 guests, max 500 EUR",
    kind: "reservation",
    constraints: [
      { "type": "budget", "max": { "amount": "500.00", "currency": "EUR" } },
      { "type": "window", "start": "2026-03-14T00:00:00+01:00", "end": "2026-03-16T00:00:00+01:00" },
      { "type": "location", "place": "Barcelona" },
      { "type": "quantity", "count": 4, "unit": "people" },
      { "type": "timezone", "zone": "Europe/Madrid" }
    ],
    questions: []
  },
  {
    request: "Reserve a double room at Hotel Adlon in Berlin for 12-14 March",
    kind: "reservation",
    constraints: [
      { "type": "window", "start": "2026-03-12T00:00:00+01:00", "end": "2026-03-15T00:00:00+01:00" },
      { "type": "location", "place": "Hotel Adlon" },
      { "type": "location", "place": "Berlin" },
      { "type": "timezone", "zone": "Europe/Berlin" }
    ],
    questions: []
  },
  {
    request: "Cheap hostel in Reykjavík next month",
    kind: "reservation",
    constraints: [{ "type": "window", "start": "2026-04-01T00:00:00+00:00", "end": "2026-05-01T00:00:00+00:00" }, {
      "type": "location",
      "place": "Reykjavík"
    }, { "type": "timezone", "zone": "Atlantic/Reykjavik" }],
    questions: []
  },
  {
    request: "My sink is leaking, get a plumber today",
    given: [{ "type": "timezone", "zone": "Europe/Lisbon" }],
    kind: "service",
    constraints: [{ "type": "window", "start": "2026-03-10T00:00:00+00:00", "end": "2026-03-11T00:00:00+00:00" }],
    questions: []
  },
  {
    request: "Fix my bike before the weekend",
    kind: "service",
    constraints: [{ "type": "window", "start": "2026-03-14T00:00:00Z", "end": "2026-03-16T00:00:00Z" }],
    questions: []
  },
  {
    request: "Need an electrician to install 4 ceiling lights, up to 250 GBP",
    kind: "service",
    constraints: [{ "type": "budget", "max": { "amount": "250.00", "currency": "GBP" } }, {
      "type": "quantity",
      "count": 4,
      "unit": "ceiling lights"
    }],
    questions: []
  },
  {
    request: "Cleaner for my flat every week",
    kind: "service",
    constraints: [],
    questions: []
  },
  {
    request: "Buy a birthday gift for my sister under $50",
    kind: "purchase",
    constraints: [{ "type": "budget", "max": { "amount": "50.00", "currency": "USD" } }],
    questions: []
  },
  {
    request: "Send flowers to my mum in Manchester for Mother's Day, around £35",
    kind: "purchase",
    constraints: [{ "type": "budget", "max": { "amount": "35.00", "currency": "GBP" } }, {
      "type": "location",
      "place": "Manchester"
    }],
    questions: []
  },
  {
    request: "Gift card worth 100 CAD",
    kind: "purchase",
    constraints: [{ "type": "budget", "max": { "amount": "100.00", "currency": "CAD" } }],
    questions: []
  },
  {
    request: "buy two tickets for the Coldplay concert in Coimbra",
    kind: "purchase",
    constraints: [{ "type": "location", "place": "Coimbra" }, { "type": "quantity", "count": 2, "unit": "tickets" }],
    questions: []
  },
  {
    request: "Dentist appointment next week, mornings only",
    kind: "appointment",
    constraints: [{ "type": "window", "start": "2026-03-16T00:00:00Z", "end": "2026-03-23T00:00:00Z" }],
    questions: []
  },
  {
    request: "Haircut on Saturday at 11am",
    given: [{ "type": "timezone", "zone": "Europe/Lisbon" }],
    kind: "appointment",
    constraints: [{ "type": "window", "start": "2026-03-14T11:00:00+00:00", "end": "2026-03-14T11:01:00+00:00" }],
    questions: []
  },
  {
    request: "vet appointment for my dog tomorrow afternoon",
    given: [{ "type": "timezone", "zone": "Europe/Lisbon" }],
    kind: "appointment",
    constraints: [{ "type": "window", "start": "2026-03-11T00:00:00+00:00", "end": "2026-03-12T00:00:00+00:00" }],
    questions: []
  },
  {
    request: "Book a doctor's appointment",
    kind: "appointment",
    constraints: [],
    questions: ["q_date"]
  },
  {
    request: "Massage in Bali on 1 May",
    kind: "appointment",
    constraints: [{ "type": "window", "start": "2026-05-01T00:00:00+08:00", "end": "2026-05-02T00:00:00+08:00" }, {
      "type": "location",
      "place": "Bali"
    }, { "type": "timezone", "zone": "Asia/Makassar" }],
    questions: []
  },
  {
    request: "Send a parcel to Hamburg within 3 days",
    kind: "delivery",
    constraints: [{ "type": "deadline", "by": "2026-03-13T11:00:00+01:00" }, {
      "type": "location",
      "place": "to Hamburg"
    }, { "type": "timezone", "zone": "Europe/Berlin" }],
    questions: []
  },
  {
    request: "Courier 2 boxes from Rua Augusta 10, Lisbon to Madrid by end of month",
    kind: "delivery",
    constraints: [
      { "type": "deadline", "by": "2026-04-01T00:00:00Z" },
      { "type": "location", "place": "from Rua Augusta 10, Lisbon" },
      { "type": "location", "place": "to Madrid" },
      { "type": "quantity", "count": 2, "unit": "boxes" }
    ],
    questions: []
  },
  {
    request: "hello",
    kind: null,
    constraints: [],
    questions: ["q_objective"]
  },
  {
    request: "!!!",
    kind: null,
    constraints: [],
    questions: ["q_objective"]
  },
  {
    request: "Buy a laptop under 1.5k USD",
    kind: "purchase",
    constraints: [{ "type": "budget", "max": { "amount": "1500.00", "currency": "USD" } }],
    questions: []
  },
  {
    request: "Buy a TV between 400 and 600 dollars",
    kind: "purchase",
    constraints: [{ "type": "budget", "max": { "amount": "600.00", "currency": "USD" } }],
    questions: []
  },
  {
    request: "buy a sofa for under 1.200 euros",
    kind: "purchase",
    constraints: [],
    questions: ["q_budget_amount"]
  },
  {
    request: "Spend at most 200 on a gift",
    kind: "purchase",
    constraints: [],
    questions: ["q_budget_currency"]
  },
  {
    request: "Dinner in Toronto for 2 on Saturday under $120",
    kind: "reservation",
    constraints: [
      { "type": "window", "start": "2026-03-14T00:00:00-04:00", "end": "2026-03-15T00:00:00-04:00" },
      { "type": "location", "place": "Toronto" },
      { "type": "quantity", "count": 2, "unit": "people" },
      { "type": "timezone", "zone": "America/Toronto" }
    ],
    questions: ["q_budget_currency"]
  },
  {
    request: "Dinner in Toronto for 2 on Saturday under $120",
    answers: { q_budget_currency: "Canadian dollars" },
    kind: "reservation",
    constraints: [
      { "type": "budget", "max": { "amount": "120.00", "currency": "CAD" } },
      { "type": "window", "start": "2026-03-14T00:00:00-04:00", "end": "2026-03-15T00:00:00-04:00" },
      { "type": "location", "place": "Toronto" },
      { "type": "quantity", "count": 2, "unit": "people" },
      { "type": "timezone", "zone": "America/Toronto" }
    ],
    questions: []
  },
  {
    request: "Table for 4 on 12/03 at 8pm",
    given: [{ "type": "timezone", "zone": "Europe/Lisbon" }],
    kind: "reservation",
    constraints: [{ "type": "quantity", "count": 4, "unit": "people" }],
    questions: ["q_date"]
  },
  {
    request: "Table for 4 on 12/03 at 8pm",
    given: [{ "type": "timezone", "zone": "Europe/Lisbon" }],
    answers: { q_date: "12 March" },
    kind: "reservation",
    constraints: [{ "type": "window", "start": "2026-03-12T20:00:00+00:00", "end": "2026-03-12T20:01:00+00:00" }, {
      "type": "quantity",
      "count": 4,
      "unit": "people"
    }],
    questions: []
  },
  {
    request: "Table for 4 on 12/03 at 8pm",
    given: [{ "type": "timezone", "zone": "Europe/Lisbon" }],
    answers: { q_date: "12 March at 8pm" },
    kind: "reservation",
    constraints: [{ "type": "window", "start": "2026-03-12T20:00:00+00:00", "end": "2026-03-12T20:01:00+00:00" }, {
      "type": "quantity",
      "count": 4,
      "unit": "people"
    }],
    questions: []
  },
  {
    request: "Book a table for 2 on Friday the 13th",
    given: [{ "type": "timezone", "zone": "Europe/Lisbon" }],
    kind: "reservation",
    constraints: [{ "type": "window", "start": "2026-03-13T00:00:00+00:00", "end": "2026-03-14T00:00:00+00:00" }, {
      "type": "quantity",
      "count": 2,
      "unit": "people"
    }],
    questions: []
  },
  {
    request: "Table for 2 on Friday 13 March",
    given: [{ "type": "timezone", "zone": "Europe/Lisbon" }],
    kind: "reservation",
    constraints: [{ "type": "window", "start": "2026-03-13T00:00:00+00:00", "end": "2026-03-14T00:00:00+00:00" }, {
      "type": "quantity",
      "count": 2,
      "unit": "people"
    }],
    questions: []
  },
  {
    request: "Table for 2 on Friday 14 March",
    given: [{ "type": "timezone", "zone": "Europe/Lisbon" }],
    kind: "reservation",
    constraints: [{ "type": "quantity", "count": 2, "unit": "people" }],
    questions: ["q_date"]
  },
  {
    request: "dinner at 8 for 2 in Porto on Friday",
    kind: "reservation",
    constraints: [
      { "type": "window", "start": "2026-03-13T20:00:00+00:00", "end": "2026-03-13T20:01:00+00:00" },
      { "type": "location", "place": "Porto" },
      { "type": "quantity", "count": 2, "unit": "people" },
      { "type": "timezone", "zone": "Europe/Lisbon" }
    ],
    questions: []
  },
  {
    request: "Book a table for 2 at 7",
    given: [{ "type": "timezone", "zone": "Europe/Lisbon" }],
    answers: { q_time: "in the evening" },
    kind: "reservation",
    constraints: [{ "type": "window", "start": "2026-03-10T19:00:00+00:00", "end": "2026-03-10T19:01:00+00:00" }, {
      "type": "quantity",
      "count": 2,
      "unit": "people"
    }],
    questions: []
  },
  {
    request: "Book a table for 2 at 7",
    given: [{ "type": "timezone", "zone": "Europe/Lisbon" }],
    answers: { q_time: "whatever" },
    kind: "reservation",
    constraints: [{ "type": "quantity", "count": 2, "unit": "people" }],
    questions: ["q_time"]
  },
  {
    request: "book a table for 2 tomorrow",
    given: [{ "type": "timezone", "zone": "Europe/Lisbon" }, {
      "type": "window",
      "start": "2026-03-11T19:00:00Z",
      "end": "2026-03-11T21:00:00Z"
    }],
    kind: "reservation",
    constraints: [{ "type": "quantity", "count": 2, "unit": "people" }],
    questions: []
  },
  {
    request: "book a table for 2 tomorrow",
    given: [{ "type": "timezone", "zone": "Europe/Lisbon" }, {
      "type": "window",
      "start": "2026-03-15T19:00:00Z",
      "end": "2026-03-15T21:00:00Z"
    }],
    kind: "reservation",
    constraints: [{ "type": "quantity", "count": 2, "unit": "people" }],
    questions: ["q_date"]
  },
  {
    request: "flight to Rome on Friday under €200",
    given: [{ "type": "budget", "max": { "amount": "250.00", "currency": "EUR" } }],
    kind: "transport",
    constraints: [{ "type": "window", "start": "2026-03-13T00:00:00+01:00", "end": "2026-03-14T00:00:00+01:00" }, {
      "type": "location",
      "place": "to Rome"
    }, { "type": "timezone", "zone": "Europe/Rome" }],
    questions: ["q_budget"]
  },
  {
    request: "flight to Rome on Friday under €200",
    given: [{ "type": "budget", "max": { "amount": "180.00", "currency": "EUR" } }],
    kind: "transport",
    constraints: [{ "type": "window", "start": "2026-03-13T00:00:00+01:00", "end": "2026-03-14T00:00:00+01:00" }, {
      "type": "location",
      "place": "to Rome"
    }, { "type": "timezone", "zone": "Europe/Rome" }],
    questions: []
  },
  {
    request: "Deliver a sofa to Rua do Ouro, Lisbon",
    given: [{ "type": "location", "place": "Rua do Ouro 12, 1100-060 Lisboa" }],
    kind: "delivery",
    constraints: [],
    questions: []
  },
  {
    request: "train to Porto yesterday",
    kind: "transport",
    constraints: [{ "type": "location", "place": "to Porto" }],
    questions: ["q_date"]
  },
  {
    request: "hotel in Lisbon on 2025-12-03",
    kind: "reservation",
    constraints: [{ "type": "location", "place": "Lisbon" }],
    questions: ["q_date"]
  },
  {
    request: "flights to Tokyo 7pm Tokyo time on Friday",
    kind: "transport",
    constraints: [{ "type": "window", "start": "2026-03-13T19:00:00+09:00", "end": "2026-03-13T19:01:00+09:00" }, {
      "type": "location",
      "place": "to Tokyo"
    }, { "type": "timezone", "zone": "Asia/Tokyo" }],
    questions: []
  },
  {
    request: "Book a table at 7pm",
    given: [{ "type": "timezone", "zone": "Europe/Lisbon" }, { "type": "quantity", "count": 2 }],
    kind: "reservation",
    constraints: [{ "type": "window", "start": "2026-03-10T19:00:00+00:00", "end": "2026-03-10T19:01:00+00:00" }],
    questions: []
  },
  {
    request: "Flight to Paris",
    answers: { q_date: "next Monday" },
    kind: "transport",
    constraints: [{ "type": "window", "start": "2026-03-16T00:00:00+01:00", "end": "2026-03-17T00:00:00+01:00" }, {
      "type": "location",
      "place": "to Paris"
    }, { "type": "timezone", "zone": "Europe/Paris" }],
    questions: []
  },
  {
    request: "Flight to Paris",
    answers: { q_date: "blah" },
    kind: "transport",
    constraints: [{ "type": "location", "place": "to Paris" }],
    questions: ["q_date"]
  }
]

describe("Interpreter: the table", () => {
  it("has at least 50 requests", () => assert.isAtLeast(table.length, 50))
  for (const c of table) {
    const label = `${c.request}${c.given === undefined ? "" : ` + ${JSON.stringify(c.given)}`}${
      c.answers === undefined ? "" : ` + answers ${JSON.stringify(c.answers)}`
    }`
    it(label, () => {
      const options = {
        ...(c.given === undefined ? {} : { given: c.given }),
        ...(c.answers === undefined ? {} : { answers: c.answers })
      }
      const result = interpret(c.request, options)
      assert.strictEqual(result.objective?.kind ?? null, c.kind)
      assert.deepStrictEqual(result.constraints, c.constraints)
      assert.deepStrictEqual(questionIds(result), c.questions)
      assert.strictEqual(result._tag, c.questions.length === 0 ? "Understood" : "NeedsInput")
    })
  }
})
