import { assert, describe, it, layer } from "@effect/vitest"
import { DateTime, Effect, Result } from "effect"
import fc from "fast-check"
import type { ConstraintInput } from "../src/schema/Constraint.ts"
import { decodeConstraintInput, questionId } from "../src/schema/Constraint.ts"
import type { Answer, Interpretation, InterpretInput } from "../src/services/interpreter/Interpreter.ts"
import { Interpreter, interpretRequest, layerLive, layerTest } from "../src/services/interpreter/Interpreter.ts"

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
  },
  {
    request: "train to Porto 2026-12-03T19:00",
    kind: "transport",
    constraints: [
      { type: "window", start: "2026-12-03T19:00:00+00:00", end: "2026-12-03T19:01:00+00:00" },
      { type: "location", place: "to Porto" },
      { type: "timezone", zone: "Europe/Lisbon" }
    ],
    questions: []
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

const lisbon: ConstraintInput = { type: "timezone", zone: "Europe/Lisbon" }
const newYork: ConstraintInput = { type: "timezone", zone: "America/New_York" }
const at = (iso: string) => DateTime.makeUnsafe(iso)

describe("Interpreter: calendars and clocks", () => {
  it("a weekend across Lisbon's spring-forward starts at +00:00 and ends at +01:00", () => {
    const result = interpret("Hotel in Lisbon this weekend", { given: [lisbon], at: at("2026-03-27T12:00:00Z") })
    assert.deepStrictEqual(result.constraints[0], {
      type: "window",
      start: "2026-03-28T00:00:00+00:00",
      end: "2026-03-30T00:00:00+01:00"
    })
  })

  it("within 3 days keeps the wall-clock time across the change, so it is 71 hours", () => {
    const result = interpret("send a parcel within 3 days", { given: [lisbon], at: at("2026-03-27T12:00:00Z") })
    assert.deepStrictEqual(result.constraints, [{ type: "deadline", by: "2026-03-30T12:00:00+01:00" }])
  })

  it("a time the spring-forward skips moves forward an hour, as the clocks do", () => {
    const result = interpret("taxi on Sunday at 1:30am", { given: [lisbon], at: at("2026-03-27T12:00:00Z") })
    assert.deepStrictEqual(result.constraints, [{
      type: "window",
      start: "2026-03-29T02:30:00+01:00",
      end: "2026-03-29T02:31:00+01:00"
    }])
  })

  it("a time the fall-back repeats is its first occurrence", () => {
    const result = interpret("taxi on Sunday at 1:30am", { given: [lisbon], at: at("2026-10-23T12:00:00Z") })
    assert.deepStrictEqual(result.constraints, [{
      type: "window",
      start: "2026-10-25T01:30:00+01:00",
      end: "2026-10-25T01:31:00+01:00"
    }])
  })

  it("tomorrow in New York on the day its clocks spring forward is a 23-hour day", () => {
    const result = interpret("plumber tomorrow", { given: [newYork], at: at("2026-03-07T15:00:00Z") })
    assert.deepStrictEqual(result.constraints, [{
      type: "window",
      start: "2026-03-08T00:00:00-05:00",
      end: "2026-03-09T00:00:00-04:00"
    }])
  })

  it("today is the zone's today, not UTC's", () => {
    // 23:30 UTC on the 10th is already the 11th in Tokyo.
    const result = interpret("plumber today", {
      given: [{ type: "timezone", zone: "Asia/Tokyo" }],
      at: at("2026-03-10T23:30:00Z")
    })
    assert.deepStrictEqual(result.constraints, [{
      type: "window",
      start: "2026-03-11T00:00:00+09:00",
      end: "2026-03-12T00:00:00+09:00"
    }])
  })

  it("the end of January is the start of February; a month from the 31st is the month's last day", () => {
    const january31 = at("2026-01-31T09:00:00Z")
    assert.deepStrictEqual(interpret("fix my boiler by end of month", { at: january31 }).constraints, [{
      type: "deadline",
      by: "2026-02-01T00:00:00Z"
    }])
    assert.deepStrictEqual(interpret("dentist appointment in 1 month", { at: january31 }).constraints, [{
      type: "window",
      start: "2026-02-28T00:00:00Z",
      end: "2026-03-01T00:00:00Z"
    }])
    assert.deepStrictEqual(interpret("hotel next month", { at: january31 }).constraints, [{
      type: "window",
      start: "2026-02-01T00:00:00Z",
      end: "2026-03-01T00:00:00Z"
    }])
    assert.deepStrictEqual(interpret("hotel by the end of the year", { at: january31 }).constraints, [{
      type: "deadline",
      by: "2027-01-01T00:00:00Z"
    }])
  })

  it("29 February is the next leap year's; tomorrow from the 28th of a leap year is the 29th", () => {
    assert.deepStrictEqual(interpret("train on 29 February", { at: at("2027-03-01T09:00:00Z") }).constraints, [{
      type: "window",
      start: "2028-02-29T00:00:00Z",
      end: "2028-03-01T00:00:00Z"
    }])
    assert.deepStrictEqual(interpret("train tomorrow", { at: at("2028-02-28T09:00:00Z") }).constraints, [{
      type: "window",
      start: "2028-02-29T00:00:00Z",
      end: "2028-03-01T00:00:00Z"
    }])
    assert.deepStrictEqual(questionIds(interpret("train on 29 February 2027")), ["q_date"])
    assert.deepStrictEqual(questionIds(interpret("train on 2027-02-29")), ["q_date"])
  })

  it("a date without a year that has passed this year is next year's", () => {
    assert.deepStrictEqual(interpret("hotel on 3 March").constraints, [{
      type: "window",
      start: "2027-03-03T00:00:00Z",
      end: "2027-03-04T00:00:00Z"
    }])
  })

  it("a weekday said on that weekday is asked about; next Friday on a Friday is a week away", () => {
    const friday = at("2026-03-13T09:00:00Z")
    assert.deepStrictEqual(questionIds(interpret("train on Friday", { at: friday })), ["q_date"])
    assert.deepStrictEqual(interpret("train next Friday", { at: friday }).constraints, [{
      type: "window",
      start: "2026-03-20T00:00:00Z",
      end: "2026-03-21T00:00:00Z"
    }])
    assert.deepStrictEqual(interpret("train this Friday", { at: friday }).constraints, [{
      type: "window",
      start: "2026-03-13T00:00:00Z",
      end: "2026-03-14T00:00:00Z"
    }])
  })

  it("Friday the 13th is the next month where the 13th is a Friday", () => {
    // From Tuesday 10 March 2026 the next is 13 March; from 14 March it is 13 November.
    assert.deepStrictEqual(interpret("train on Friday the 13th", { at: at("2026-03-14T09:00:00Z") }).constraints, [{
      type: "window",
      start: "2026-11-13T00:00:00Z",
      end: "2026-11-14T00:00:00Z"
    }])
  })

  it("a clock time with no known zone is asked about; a city that names one settles it", () => {
    assert.deepStrictEqual(questionIds(interpret("taxi tomorrow at 6am")), ["q_timezone"])
    assert.deepStrictEqual(interpret("taxi tomorrow at 6am", { answers: { q_timezone: "Lisbon" } }).constraints, [
      { type: "window", start: "2026-03-11T06:00:00+00:00", end: "2026-03-11T06:01:00+00:00" },
      { type: "timezone", zone: "Europe/Lisbon" }
    ])
    assert.deepStrictEqual(interpret("taxi in Berlin tomorrow at 6am").constraints, [
      { type: "window", start: "2026-03-11T06:00:00+01:00", end: "2026-03-11T06:01:00+01:00" },
      { type: "location", place: "Berlin" },
      { type: "timezone", zone: "Europe/Berlin" }
    ])
  })

  it("a time zone named in the words that differs from the caller's is asked about", () => {
    const result = interpret("call a taxi at 9pm Asia/Tokyo", { given: [lisbon] })
    assert.deepStrictEqual(questionIds(result), ["q_timezone"])
    const answered = interpret("call a taxi at 9pm Asia/Tokyo", {
      given: [lisbon],
      answers: { q_timezone: "Asia/Tokyo" }
    })
    assert.deepStrictEqual(answered.constraints, [
      { type: "window", start: "2026-03-10T21:00:00+09:00", end: "2026-03-10T21:01:00+09:00" },
      { type: "timezone", zone: "Asia/Tokyo" }
    ])
  })

  it("a time today that has passed is asked about, not moved to tomorrow", () => {
    assert.deepStrictEqual(questionIds(interpret("taxi at 7am", { given: [lisbon] })), ["q_date"])
  })
})

describe("Interpreter: answers", () => {
  it("an unreadable answer asks again under the same id and says so", () => {
    const result = interpret("Flight to Paris", { answers: { q_date: "when the weather is nice" } })
    assert(result._tag === "NeedsInput")
    assert.deepStrictEqual(result.questions.map((q) => q.id), ["q_date"])
    assert.include(result.questions[0]!.text, "could not be read")
  })

  it("the latest answer to a question wins", () => {
    const result = interpretRequest({
      request: "Flight to Paris",
      constraints: [],
      answers: [
        { questionId: "q_date", question: "When?", answer: "tomorrow" },
        { questionId: "q_date", question: "When?", answer: "next Monday" }
      ],
      createdAt
    })
    assert.deepStrictEqual(result.constraints[0], {
      type: "window",
      start: "2026-03-16T00:00:00+01:00",
      end: "2026-03-17T00:00:00+01:00"
    })
  })

  it("a currency answer is read like the words: a code, a name, a sign", () => {
    for (const answer of ["EUR", "eur", "euros", "€"]) {
      assert.deepStrictEqual(
        interpret("Spend at most 200 on a gift", { answers: { q_budget_currency: answer } }).constraints,
        [{ type: "budget", max: { amount: "200.00", currency: "EUR" } }],
        answer
      )
    }
  })

  it("an amount without a currency, answered with one, follows the words' currency when they agree", () => {
    const result = interpret("gift under 100 euros, or max 120 euros", { answers: { q_budget: "110" } })
    assert.deepStrictEqual(result.constraints, [{ type: "budget", max: { amount: "110.00", currency: "EUR" } }])
  })

  it("a caller constraint that agrees with the words is not repeated; one stricter than the words wins", () => {
    assert.deepStrictEqual(
      interpret("buy a gift under $200", { given: [{ type: "budget", max: { amount: "200.00", currency: "USD" } }] }),
      { _tag: "Understood", objective: { kind: "purchase", summary: "buy a gift under $200" }, constraints: [] }
    )
  })
})

describe("Interpreter: layers", () => {
  const input: InterpretInput = { request: "Table for 2 tomorrow", constraints: [], answers: [], createdAt }

  layer(layerLive)("layerLive", (it) => {
    it.effect("is the rule-based reader", () =>
      Effect.gen(function*() {
        const interpreter = yield* Interpreter
        const result = yield* interpreter.interpret(input)
        assert.deepStrictEqual(result, interpretRequest(input))
        assert.strictEqual(result._tag, "Understood")
      }))
  })

  const scripted: Interpretation = {
    _tag: "NeedsInput",
    objective: null,
    constraints: [],
    questions: [{ id: "q_objective", text: "What would you like done?" }]
  }
  layer(
    layerTest({ "Table for 2 tomorrow": scripted, "by function": (i) => interpretRequest({ ...i, request: "hello" }) })
  )(
    "layerTest",
    (it) => {
      it.effect("answers the script for a scripted request and reads the rest", () =>
        Effect.gen(function*() {
          const interpreter = yield* Interpreter
          assert.deepStrictEqual(yield* interpreter.interpret(input), scripted)
          assert.deepStrictEqual(
            yield* interpreter.interpret({ ...input, request: "by function" }),
            interpretRequest({ ...input, request: "hello" })
          )
          const other = { ...input, request: "Table for 2 on Friday" }
          assert.deepStrictEqual(yield* interpreter.interpret(other), interpretRequest(other))
        }))
    }
  )
})

describe("Constraint schema", () => {
  const ok = (u: unknown) => Result.isSuccess(decodeConstraintInput(u))
  it("accepts each type and refuses excess keys, bad amounts, currencies, times, zones", () => {
    assert.isTrue(ok({ type: "budget", max: { amount: "180.00", currency: "USD" } }))
    assert.isFalse(ok({ type: "budget", max: { amount: "180.00", currency: "USD" }, extra: true }))
    assert.isFalse(ok({ type: "budget", max: { amount: "180.00", currency: "USD", extra: true } }))
    assert.isFalse(ok({ type: "budget", max: { amount: "1e3", currency: "USD" } }))
    assert.isFalse(ok({ type: "budget", max: { amount: "-1", currency: "USD" } }))
    assert.isFalse(ok({ type: "budget", max: { amount: "180.00", currency: "usd" } }))
    assert.isFalse(ok({ type: "budget", max: { amount: "180.00", currency: "XXX" } }))
    assert.isTrue(ok({ type: "deadline", by: "2028-02-29T10:00:00.5-03:30" }))
    assert.isFalse(ok({ type: "deadline", by: "2027-02-29T10:00:00Z" }))
    assert.isFalse(ok({ type: "deadline", by: "2027-02-28T10:00:00" }))
    assert.isTrue(ok({ type: "window", start: "2026-03-12T10:00:00Z", end: "2026-03-12T10:00:00.001Z" }))
    assert.isFalse(ok({ type: "window", start: "2026-03-12T10:00:00Z", end: "2026-03-12T11:00:00+01:00" }))
    assert.isTrue(ok({ type: "location", place: "Lisbon" }))
    assert.isFalse(ok({ type: "location", place: " Lisbon" }))
    assert.isFalse(ok({ type: "location", place: "" }))
    assert.isTrue(ok({ type: "quantity", count: 2 }))
    assert.isTrue(ok({ type: "quantity", count: 2, unit: "people" }))
    assert.isFalse(ok({ type: "quantity", count: 0 }))
    assert.isFalse(ok({ type: "quantity", count: 1.5 }))
    assert.isTrue(ok({ type: "timezone", zone: "Europe/Lisbon" }))
    assert.isFalse(ok({ type: "timezone", zone: "europe/lisbon" }))
    assert.isFalse(ok({ type: "timezone", zone: "+01:00" }))
    assert.isFalse(ok({ type: "timezone", zone: "Mars/Olympus" }))
    assert.isTrue(ok({ type: "note", text: "window seat" }))
    assert.isFalse(ok({ type: "colour", text: "red" }))
  })
})

// ---------------------------------------------------------------------------------------------------
// Properties.

const fragments = {
  kind: ["book a table", "buy", "flight to Paris", "fix my sink", "dentist appointment", "send a parcel", "hello"],
  money: [
    "under $200",
    "€150 max",
    "no more than 300 GBP",
    "1.5k USD",
    "between 100 and 200 dollars",
    "budget 80",
    "¥3000",
    "1.200 euros",
    "€50 per person"
  ],
  when: [
    "tomorrow",
    "next Friday",
    "in 3 days",
    "this weekend",
    "by end of month",
    "at 7",
    "at 7pm",
    "on 12/03",
    "on 12 March at 8",
    "yesterday",
    "2026-12-03",
    "Friday the 13th"
  ],
  count: ["for 4 people", "two tickets", "a dozen eggs", "for 2", "3 tickets"],
  place: ["in Lisbon", "near Shibuya station", "to Berlin", "in Toronto", "from Porto"]
} as const

const composed = fc.tuple(
  fc.constantFrom(...fragments.kind),
  fc.array(fc.constantFrom(...fragments.money, ...fragments.when, ...fragments.count, ...fragments.place), {
    maxLength: 5
  })
).map(([kind, rest]) => [kind, ...rest].join(" "))

const anyText = fc.oneof(
  fc.string({ unit: "binary", maxLength: 200 }),
  fc.string({ unit: "grapheme", maxLength: 200 }),
  fc.string({ unit: fc.constantFrom(..."0123456789,.$€£¥ -/:kKtoamp"), maxLength: 300 }),
  fc.bigInt({ min: 0n, max: 10n ** 40n }).map((n) => `buy a car under $${n} for ${n} people in ${n} days`),
  composed
)

const anyCreatedAt = fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2029, 0, 1) }).map((ms) =>
  DateTime.makeUnsafe(ms)
)

const validAnswers: Readonly<Record<string, string>> = {
  [questionId("objective")]: "book a table for 2",
  [questionId("budget.currency")]: "EUR",
  [questionId("budget")]: "150 EUR",
  [questionId("budget.amount")]: "150 EUR",
  [questionId("timezone")]: "Europe/Lisbon",
  [questionId("time")]: "pm",
  [questionId("date")]: "2030-06-15",
  [questionId("quantity.people")]: "4",
  [questionId("quantity")]: "3"
}

const aboutIds = new Set(Object.keys(validAnswers))

const checkShape = (result: Interpretation) => {
  for (const constraint of result.constraints) {
    assert.isTrue(Result.isSuccess(decodeConstraintInput(constraint)), JSON.stringify(constraint))
  }
  if (result._tag === "NeedsInput") {
    assert.isAbove(result.questions.length, 0)
    for (const q of result.questions) {
      assert.isTrue(aboutIds.has(q.id), q.id)
      assert.strictEqual(q.id, questionId(q.about!))
      assert.isAbove(q.text.length, 0)
    }
    assert.strictEqual(new Set(result.questions.map((q) => q.id)).size, result.questions.length)
  } else {
    assert.isNotNull(result.objective)
  }
  if (result.objective !== null) assert.isAbove(result.objective.summary.length, 0)
}

describe("Interpreter: properties", () => {
  it("never throws, is deterministic, and produces only constraints the schema accepts", () => {
    fc.assert(
      fc.property(anyText, anyCreatedAt, fc.constantFrom<ReadonlyArray<ConstraintInput>>([], [lisbon], [newYork]), (
        request,
        at,
        given
      ) => {
        const input: InterpretInput = { request, constraints: given, answers: [], createdAt: at }
        const first = interpretRequest(input)
        checkShape(first)
        assert.deepStrictEqual(interpretRequest(input), first)
      }),
      { numRuns: 400 }
    )
  })

  it("reads 10,000 characters of anything", () => {
    for (
      const request of [
        "a".repeat(10_000),
        "9".repeat(10_000),
        "1,".repeat(5_000),
        "$".repeat(10_000),
        "Lisbon ".repeat(1_428),
        "at 7 ".repeat(2_000),
        "in ".repeat(3_333),
        "🙂".repeat(5_000),
        "\uD800".repeat(10_000),
        "Book a table for 4 in Lisbon tomorrow at 7pm under €200. ".repeat(175)
      ]
    ) {
      checkShape(interpret(request))
    }
  })

  it("question ids do not depend on the wording around the fact asked about", () => {
    fc.assert(
      fc.property(fc.constantFrom("Please", "Hi,", "Could you", ""), fc.constantFrom("table", "restaurant", "dinner"), (
        lead,
        noun
      ) => {
        const result = interpret(`${lead} book a ${noun} somewhere nice`)
        assert.deepStrictEqual(questionIds(result), ["q_date", "q_quantity_people"])
      })
    )
  })

  it("answering every question with a valid answer ends in Understood, never asking the same question again", () => {
    fc.assert(
      fc.property(composed, anyCreatedAt, (request, at) => {
        const answers: Array<Answer> = []
        const answered = new Set<string>()
        let result = interpretRequest({ request, constraints: [], answers, createdAt: at })
        for (let round = 0; round < 10 && result._tag === "NeedsInput"; round++) {
          for (const q of result.questions) {
            assert.isFalse(
              answered.has(q.id),
              `${q.id} asked again after a valid answer, for ${JSON.stringify(request)}`
            )
            answers.push({ questionId: q.id, question: q.text, answer: validAnswers[q.id]! })
          }
          for (const q of result.questions) answered.add(q.id)
          result = interpretRequest({ request, constraints: [], answers, createdAt: at })
          checkShape(result)
        }
        assert.strictEqual(result._tag, "Understood", JSON.stringify(result))
      }),
      { numRuns: 300 }
    )
  })
})

describe("Interpreter: cost", () => {
  const median = (f: () => void, runs: number) => {
    const times: Array<number> = []
    for (let i = 0; i < runs; i++) {
      const start = performance.now()
      f()
      times.push(performance.now() - start)
    }
    return times.sort((a, b) => a - b)[Math.floor(runs / 2)]!
  }

  it("grows about linearly: 10,000 characters cost well under 200 times 50", () => {
    const short = "Book a table for 4 in Lisbon tomorrow at 7pm €200"
    const long = `${short} `.repeat(Math.ceil(10_000 / (short.length + 1))).slice(0, 10_000)
    const shortTime = median(() => interpret(short), 200)
    const longTime = median(() => interpret(long), 9)
    assert.isBelow(longTime / shortTime, 400, `${longTime}ms for 10,000 characters, ${shortTime}ms for 50`)
    for (const adversarial of ["1,".repeat(5_000), "at 7 ".repeat(2_000), "the ".repeat(2_500), "$1-".repeat(3_333)]) {
      const time = median(() => interpret(adversarial), 3)
      assert.isBelow(time / shortTime, 400, `${time}ms for ${JSON.stringify(adversarial.slice(0, 12))}...`)
    }
  })
})
