import type { ConstraintInput, ObjectiveKind } from "../../src/schema/Constraint.ts"

/**
 * What a careful assistant does with each request: the questions it asks ([] = it proceeds), the kind,
 * and the facts it must get right. Created on Tuesday 10 March 2026 at 10:00 UTC unless `at` says
 * otherwise (Lisbon and London on +00:00, Paris +01:00, New York -04:00 since 8 March, Tokyo +09:00).
 */
export interface Case {
  readonly request: string
  readonly given?: ReadonlyArray<ConstraintInput>
  readonly answers?: Readonly<Record<string, string>>
  readonly at?: string
  readonly kind: ObjectiveKind | null
  readonly ask: ReadonlyArray<string>
  readonly facts?: Facts
}

export interface Facts {
  /** The window's start, or [start, end]. */
  readonly window?: string | readonly [string, string]
  readonly deadline?: string
  readonly zone?: string | null
  /** "200.00 EUR", or null for none. */
  readonly budget?: string | null
  readonly people?: number
  readonly quantity?: readonly [number, string]
  readonly places?: ReadonlyArray<string>
}

const lisbon: ConstraintInput = { type: "timezone", zone: "Europe/Lisbon" }

export const requests: ReadonlyArray<Case> = [
  // ---- restaurants
  {
    request: "Book a table for 4 at Cervejaria Ramiro in Lisbon on Friday at 8pm",
    kind: "reservation",
    ask: [],
    facts: {
      window: ["2026-03-13T20:00:00+00:00", "2026-03-13T20:01:00+00:00"],
      people: 4,
      zone: "Europe/Lisbon",
      places: ["Cervejaria Ramiro", "Lisbon"]
    }
  },
  {
    request: "BOOK A TABLE FOR 2 TONIGHT AT 9PM IN PORTO",
    kind: "reservation",
    ask: [],
    facts: { window: "2026-03-10T21:00:00+00:00", people: 2, zone: "Europe/Lisbon" }
  },
  {
    request: "can u book a resturant for 6 ppl tmrw at 7:30pm in lisbon",
    kind: "reservation",
    ask: [],
    facts: { window: "2026-03-11T19:30:00+00:00", people: 6 }
  },
  {
    request: "Dinner reservation for two at Noma, Copenhagen, on 14 March at 19:00",
    kind: "reservation",
    ask: [],
    facts: { window: "2026-03-14T19:00:00+01:00", people: 2, zone: "Europe/Copenhagen" }
  },
  {
    request: "Find a sushi restaurant in Tokyo for 3 people on Saturday evening",
    kind: "reservation",
    ask: [],
    facts: { window: ["2026-03-14T00:00:00+09:00", "2026-03-15T00:00:00+09:00"], people: 3, zone: "Asia/Tokyo" }
  },
  {
    request: "Lunch for 8 colleagues next Thursday at 1 in Madrid",
    kind: "reservation",
    ask: [],
    facts: { window: "2026-03-12T13:00:00+01:00", people: 8 }
  },
  { request: "table at Nobu", given: [lisbon], kind: "reservation", ask: ["q_date", "q_quantity_people"] },
  {
    request: "Book a table for 4 at an Italian restaurant in Lisbon",
    kind: "reservation",
    ask: ["q_date"],
    facts: { people: 4, places: ["Lisbon"] }
  },
  {
    request: "Dinner for 2 in Paris on Friday at 8",
    kind: "reservation",
    ask: [],
    facts: { window: "2026-03-13T20:00:00+01:00", zone: "Europe/Paris" }
  },
  {
    request: "Table for 5 in Chicago tomorrow at 7",
    kind: "reservation",
    ask: [],
    facts: { window: "2026-03-11T19:00:00-05:00", zone: "America/Chicago", people: 5 }
  },
  {
    request: "Brunch for 4 in Sydney on Sunday at 11am",
    kind: "reservation",
    ask: [],
    facts: { window: "2026-03-15T11:00:00+11:00", zone: "Australia/Sydney" }
  },
  {
    request: "Reserve a table for six at a steakhouse in Buenos Aires on Saturday at 9:30pm",
    kind: "reservation",
    ask: [],
    facts: { window: "2026-03-14T21:30:00-03:00", people: 6, zone: "America/Argentina/Buenos_Aires" }
  },
  {
    request: "dinner at 8 for 2 in Porto on Friday",
    kind: "reservation",
    ask: [],
    facts: { window: "2026-03-13T20:00:00+00:00", people: 2 }
  },
  {
    request: "Table for 2 in Rome on Friday, €60 per person",
    kind: "reservation",
    ask: [],
    facts: { budget: "120.00 EUR", people: 2 }
  },
  {
    request: "Dinner for 4 in Berlin tomorrow at 7pm, max €50 a head",
    kind: "reservation",
    ask: [],
    facts: { budget: "200.00 EUR", window: "2026-03-11T19:00:00+01:00" }
  },
  {
    request: "Book dinner in Mumbai for 3 on Saturday at 8pm, under ₹6000",
    kind: "reservation",
    ask: [],
    facts: { budget: "6000.00 INR", zone: "Asia/Kolkata", window: "2026-03-14T20:00:00+05:30" }
  },
  {
    request: "Dinner in Toronto for 2 on Saturday under $120",
    kind: "reservation",
    ask: [],
    facts: { budget: "120.00 CAD", zone: "America/Toronto" }
  },
  {
    request: "Book a table for 2 at 7",
    given: [lisbon],
    kind: "reservation",
    ask: [],
    facts: { window: "2026-03-10T19:00:00+00:00" }
  },
  {
    request: "Book a table for dinner by my sister's on Friday at 8pm",
    kind: "reservation",
    ask: ["q_location", "q_quantity_people"]
  },
  { request: "Dinner at our regular spot on Saturday at 8, 4 of us", kind: "reservation", ask: ["q_location"] },
  { request: "Table for 2 tomorrow evening", kind: "reservation", ask: ["q_location"] },
  { request: "Dinner for 4 tonight at 9", kind: "reservation", ask: ["q_location"] },
  { request: "Book a table for 3 in Portland on Friday at 7pm", kind: "reservation", ask: ["q_location"] },
  {
    request: "Book a table for 3 in Portland, Maine on Friday at 7pm",
    kind: "reservation",
    ask: [],
    facts: { zone: "America/New_York", window: "2026-03-13T19:00:00-04:00" }
  },
  { request: "Dinner in Springfield for 2 on Saturday", kind: "reservation", ask: ["q_location"] },
  { request: "Table for 4 in London today at 8am", kind: "reservation", ask: ["q_date"] },
  { request: "Table for 2 in Lisbon today at 9am", kind: "reservation", ask: ["q_date"] },
  { request: "Table for 4 on 12/03 at 8pm in Lisbon", kind: "reservation", ask: ["q_date"] },
  {
    request: "Table for 2 in Lisbon on 25/03 at 8pm",
    kind: "reservation",
    ask: [],
    facts: { window: "2026-03-25T20:00:00+00:00" }
  },
  {
    request: "Book a table for 2 on Friday the 13th in Lisbon",
    kind: "reservation",
    ask: [],
    facts: { window: ["2026-03-13T00:00:00+00:00", "2026-03-14T00:00:00+00:00"] }
  },
  { request: "Table for 2 on Friday 14 March in Lisbon", kind: "reservation", ask: ["q_date"] },
  {
    request: "Table for 4 in Lisbon on Friday at 7pm or 8pm",
    kind: "reservation",
    ask: [],
    facts: { window: ["2026-03-13T19:00:00+00:00", "2026-03-13T20:01:00+00:00"] }
  },
  {
    request: "Dinner for 2 in Paris on Friday between 7 and 9pm",
    kind: "reservation",
    ask: [],
    facts: { window: ["2026-03-13T19:00:00+01:00", "2026-03-13T21:00:00+01:00"] }
  },
  { request: "Table for 4 in Lisbon on Friday at 8pm, or Saturday at 9pm", kind: "reservation", ask: ["q_date"] },
  {
    request: "A table for 2 in Dublin, lunch on Thursday at 1",
    kind: "reservation",
    ask: [],
    facts: { window: "2026-03-12T13:00:00+00:00", zone: "Europe/Dublin" }
  },
  {
    request: "Breakfast for 2 in Vienna tomorrow at 8",
    kind: "reservation",
    ask: [],
    facts: { window: "2026-03-11T08:00:00+01:00" }
  },
  {
    request: "Book a pub table for 10 in Manchester on Friday at half past 7",
    kind: "reservation",
    ask: [],
    facts: { window: "2026-03-13T19:30:00+00:00", people: 10, zone: "Europe/London" }
  },
  {
    request: "Table for 2 adults and 2 kids in Seville on Sunday at 2pm",
    kind: "reservation",
    ask: [],
    facts: { people: 4, window: "2026-03-15T14:00:00+01:00" }
  },
  {
    request: "Restaurant in Hong Kong for me and my wife on Saturday at 8pm",
    kind: "reservation",
    ask: [],
    facts: { people: 2, zone: "Asia/Hong_Kong", window: "2026-03-14T20:00:00+08:00" }
  },
  {
    request: "Dinner in Nairobi for 5 on Friday at 7:30pm",
    kind: "reservation",
    ask: [],
    facts: { zone: "Africa/Nairobi", window: "2026-03-13T19:30:00+03:00" }
  },
  {
    request: "Can you get me a table for 3 at Dishoom in London this Saturday at 7.30pm?",
    kind: "reservation",
    ask: [],
    facts: { window: "2026-03-14T19:30:00+00:00", people: 3 }
  },
  {
    request: "A birthday dinner for 8 at Nando's in Leeds next Friday at half 7",
    kind: "reservation",
    ask: [],
    facts: { window: "2026-03-13T19:30:00+00:00", people: 8 }
  },
  {
    request: "I need a table for four people. Lisbon, Friday at 8.",
    kind: "reservation",
    ask: [],
    facts: { window: "2026-03-13T20:00:00+00:00", zone: "Europe/Lisbon" }
  },
  {
    request: "Reserve a table for 2 in Lisbon at 7:30 or 8",
    kind: "reservation",
    ask: [],
    facts: { window: ["2026-03-10T19:30:00+00:00", "2026-03-10T20:01:00+00:00"] }
  },
  // ---- hotels and stays
  {
    request: "Hotel in Kyoto from 2 to 5 April, 2 rooms, under ¥40,000 per night",
    kind: "reservation",
    ask: [],
    facts: {
      window: ["2026-04-02T00:00:00+09:00", "2026-04-06T00:00:00+09:00"],
      budget: "120000 JPY",
      quantity: [2, "rooms"]
    }
  },
  {
    request: "Book a hotel room in Porto for 3 nights from 28 March",
    kind: "reservation",
    ask: [],
    facts: { window: "2026-03-28T00:00:00+00:00", quantity: [3, "nights"] }
  },
  {
    request: "airbnb in Barcelona this weekend for 4 guests, max 500 EUR",
    kind: "reservation",
    ask: [],
    facts: { window: ["2026-03-14T00:00:00+01:00", "2026-03-16T00:00:00+01:00"], people: 4, budget: "500.00 EUR" }
  },
  {
    request: "Reserve a double room at Hotel Adlon in Berlin for 12-14 March",
    kind: "reservation",
    ask: [],
    facts: { window: ["2026-03-12T00:00:00+01:00", "2026-03-15T00:00:00+01:00"], zone: "Europe/Berlin" }
  },
  {
    request: "Cheap hostel in Reykjavík next month",
    kind: "reservation",
    ask: [],
    facts: { window: ["2026-04-01T00:00:00+00:00", "2026-05-01T00:00:00+00:00"], zone: "Atlantic/Reykjavik" }
  },
  { request: "Hotel in Lisbon on 2025-12-03", kind: "reservation", ask: ["q_date"] },
  {
    request: "Hotel in New York from 20 to 23 March under $900",
    kind: "reservation",
    ask: [],
    facts: {
      budget: "900.00 USD",
      zone: "America/New_York",
      window: ["2026-03-20T00:00:00-04:00", "2026-03-24T00:00:00-04:00"]
    }
  },
  {
    request: "Find a hotel in Cape Town next weekend, under R3000 a night",
    kind: "reservation",
    ask: [],
    facts: { zone: "Africa/Johannesburg", window: ["2026-03-21T00:00:00+02:00", "2026-03-23T00:00:00+02:00"] }
  },
  {
    request: "Hotel near the beach in Nice for 2 nights from Friday",
    kind: "reservation",
    ask: [],
    facts: { window: "2026-03-13T00:00:00+01:00", quantity: [2, "nights"], zone: "Europe/Paris" }
  },
  {
    request: "A room in Singapore for tonight",
    kind: "reservation",
    ask: [],
    facts: { zone: "Asia/Singapore", window: ["2026-03-10T00:00:00+08:00", "2026-03-11T00:00:00+08:00"] }
  },
  {
    request: "Book a villa in Bali from 1 to 8 May for 6 people",
    kind: "reservation",
    ask: [],
    facts: { zone: "Asia/Makassar", people: 6 }
  },
  {
    request: "Hotel in Dubai on 15 April, budget 1500 AED",
    kind: "reservation",
    ask: [],
    facts: { budget: "1500.00 AED", zone: "Asia/Dubai", window: "2026-04-15T00:00:00+04:00" }
  },
  { request: "Book a hotel for the conference", kind: "reservation", ask: ["q_location", "q_date"] },
  { request: "Hotel in Springfield on Friday", kind: "reservation", ask: ["q_location"] },
  {
    request: "Hotel at my usual place in Paris next week",
    kind: "reservation",
    ask: [],
    facts: { window: ["2026-03-16T00:00:00+01:00", "2026-03-23T00:00:00+01:00"] }
  },
  {
    request: "Campsite in Banff for 3 nights from 1 July",
    kind: "reservation",
    ask: [],
    facts: { zone: "America/Edmonton", quantity: [3, "nights"] }
  },
  {
    request: "Rent a car in Reno from Friday to Monday",
    kind: "reservation",
    ask: [],
    facts: { zone: "America/Los_Angeles", window: ["2026-03-13T00:00:00-07:00", "2026-03-17T00:00:00-07:00"] }
  },
  {
    request: "stay in São Paulo on 2 April",
    kind: "reservation",
    ask: [],
    facts: { zone: "America/Sao_Paulo", window: "2026-04-02T00:00:00-03:00" }
  },
  // ---- flights, trains, taxis
  {
    request: "Flight from Lisbon to Berlin next Friday, under €300",
    kind: "transport",
    ask: [],
    facts: {
      window: "2026-03-13T00:00:00+00:00",
      budget: "300.00 EUR",
      zone: "Europe/Lisbon",
      places: ["from Lisbon", "to Berlin"]
    }
  },
  {
    request: "one-way flight to New York on 2026-04-02, economy, max 600 USD",
    kind: "transport",
    ask: [],
    facts: { window: "2026-04-02T00:00:00-04:00", budget: "600.00 USD" }
  },
  {
    request: "Two train tickets from Paris to Lyon this weekend",
    kind: "transport",
    ask: [],
    facts: { window: ["2026-03-14T00:00:00+01:00", "2026-03-16T00:00:00+01:00"], quantity: [2, "train tickets"] }
  },
  {
    request: "taxi to the airport at 5am tomorrow",
    given: [lisbon],
    kind: "transport",
    ask: [],
    facts: { window: "2026-03-11T05:00:00+00:00" }
  },
  {
    request: "I need a cab from Heathrow to Central London in 2 hours",
    kind: "transport",
    ask: [],
    facts: { window: "2026-03-10T12:00:00+00:00", zone: "Europe/London" }
  },
  { request: "Book me a flight to São Paulo", kind: "transport", ask: ["q_date"] },
  {
    request: "ferry to Tangier between 15 and 17 April",
    given: [{ type: "timezone", zone: "Europe/Madrid" }],
    kind: "transport",
    ask: [],
    facts: { window: ["2026-04-15T00:00:00+02:00", "2026-04-18T00:00:00+02:00"] }
  },
  { request: "train to Porto yesterday", kind: "transport", ask: ["q_date"] },
  {
    request: "flights to Tokyo 7pm Tokyo time on Friday",
    kind: "transport",
    ask: [],
    facts: { window: "2026-03-13T19:00:00+09:00", zone: "Asia/Tokyo" }
  },
  {
    request: "train to Porto 2026-12-03T19:00",
    kind: "transport",
    ask: [],
    facts: { window: "2026-12-03T19:00:00+00:00" }
  },
  { request: "Taxi tomorrow at 6am", kind: "transport", ask: ["q_location"] },
  {
    request: "Book a taxi from my place to the station at 7",
    kind: "transport",
    ask: ["q_location", "q_time"]
  },
  {
    request: "Uber in New York from JFK to Manhattan tonight at 11pm",
    kind: "transport",
    ask: [],
    facts: { zone: "America/New_York", window: "2026-03-10T23:00:00-04:00" }
  },
  {
    request: "Flight from Sydney to Auckland on 20 March",
    kind: "transport",
    ask: [],
    facts: { zone: "Australia/Sydney", window: "2026-03-20T00:00:00+11:00" }
  },
  { request: "Train from Milan to Venice on Saturday at 9:15", kind: "transport", ask: ["q_time"] },
  {
    request: "Train from Milan to Venice on Saturday morning at 9:15",
    kind: "transport",
    ask: [],
    facts: { window: "2026-03-14T09:15:00+01:00", zone: "Europe/Rome" }
  },
  {
    request: "Flight from Chicago to Denver on Friday at 6:40am",
    kind: "transport",
    ask: [],
    facts: { zone: "America/Chicago", window: "2026-03-13T06:40:00-05:00" }
  },
  {
    request: "Fly from Nairobi to Lagos next Tuesday",
    kind: "transport",
    ask: [],
    facts: { zone: "Africa/Nairobi", window: "2026-03-17T00:00:00+03:00" }
  },
  {
    request: "Flight to Paris on Friday at 9am, back Sunday at 6pm",
    given: [lisbon],
    kind: "transport",
    ask: [],
    facts: { places: ["to Paris"] }
  },
  {
    request: "Bus from Lima to Cusco on 18 March",
    kind: "transport",
    ask: [],
    facts: { zone: "America/Lima", window: "2026-03-18T00:00:00-05:00" }
  },
  {
    request: "Shuttle from Cancun airport to Tulum on Thursday at 3pm",
    kind: "transport",
    ask: [],
    facts: { zone: "America/Cancun", window: "2026-03-12T15:00:00-05:00" }
  },
  {
    request: "Flight to Bangkok in April",
    kind: "transport",
    ask: [],
    facts: { window: ["2026-04-01T00:00:00+07:00", "2026-05-01T00:00:00+07:00"], zone: "Asia/Bangkok" }
  },
  { request: "Get me a train to Edinburgh on 2 April, return on 5 April", kind: "transport", ask: [] },
  { request: "Taxi from the hotel to the match on Saturday", kind: "transport", ask: ["q_location"] },
  { request: "Flight from Portland to Seattle on Friday", kind: "transport", ask: ["q_location"] },
  {
    request: "Flight from Portland, Oregon to Seattle on Friday at 8am",
    kind: "transport",
    ask: [],
    facts: { zone: "America/Los_Angeles", window: "2026-03-13T08:00:00-07:00" }
  },
  {
    request: "Two flights from London to Athens on 1 June, under £400 each",
    kind: "transport",
    ask: [],
    facts: { budget: "800.00 GBP", zone: "Europe/London" }
  },
  {
    request: "Flight to Seoul on Friday, 3 passengers",
    kind: "transport",
    ask: [],
    facts: { people: 3, zone: "Asia/Seoul" }
  },
  { request: "taxi at 7am", given: [lisbon], kind: "transport", ask: ["q_location", "q_date"] },
  { request: "A cab in London to Gatwick at 10:30 on Thursday", kind: "transport", ask: ["q_time"] },
  {
    request: "A cab to Gatwick at 10:30am on Thursday",
    kind: "transport",
    ask: [],
    facts: { zone: "Europe/London", window: "2026-03-12T10:30:00+00:00" }
  },
  {
    request: "Book the Eurostar from London to Paris on 5 April, returning 8 April, 2 adults",
    kind: "transport",
    ask: [],
    facts: { window: "2026-04-08T00:00:00+01:00", people: 2, zone: "Europe/London" }
  },
  {
    request: "Flight from NYC to LA on the 15th at 6am",
    kind: "transport",
    ask: [],
    facts: { window: "2026-03-15T06:00:00-04:00" }
  },
  {
    request: "Please reserve two seats on the 10:15 train from Zurich to Geneva tomorrow",
    kind: "transport",
    ask: ["q_time"]
  },
  {
    request: "Cab to JFK at 4:30 am on Friday from Brooklyn",
    kind: "transport",
    ask: [],
    facts: { zone: "America/New_York", window: "2026-03-13T04:30:00-04:00" }
  },
  {
    request: "Book a flight to Sydney leaving on the 2nd and coming back on the 16th",
    kind: "transport",
    ask: [],
    facts: { window: "2026-04-16T00:00:00+10:00", zone: "Australia/Sydney" }
  },
  {
    request: "Train from Edinburgh to London on 3rd April, arriving before 2pm",
    kind: "transport",
    ask: [],
    facts: { deadline: "2026-04-03T14:00:00+01:00" }
  },
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
    ask: [],
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
    ask: [],
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
  { request: "Get tickets for the match on Saturday", kind: "purchase", ask: ["q_event"] },
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
  { request: "Buy groceries in Lisbon, budget 80", kind: "purchase", ask: [], facts: { budget: "80.00 EUR" } },
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
    ask: [],
    facts: { budget: "300.00 SGD" }
  },
  {
    request: "Groceries delivered by Thursday, around 60 quid",
    kind: "purchase",
    ask: [],
    facts: { budget: "60.00 GBP", deadline: "2026-03-13T00:00:00Z" }
  },
  { request: "Buy a bike for less than 500 zł", kind: "purchase", ask: [], facts: { budget: "500.00 PLN" } },
  { request: "Please buy 2 kg of apples", kind: "purchase", ask: [], facts: { quantity: [2, "kg of apples"] } },
  // ---- appointments
  {
    request: "Dentist appointment next week, mornings only",
    kind: "appointment",
    ask: [],
    facts: { window: ["2026-03-16T00:00:00Z", "2026-03-23T00:00:00Z"] }
  },
  {
    request: "Haircut on Saturday at 11am",
    given: [lisbon],
    kind: "appointment",
    ask: [],
    facts: { window: "2026-03-14T11:00:00+00:00" }
  },
  {
    request: "vet appointment for my dog tomorrow afternoon",
    given: [lisbon],
    kind: "appointment",
    ask: [],
    facts: { window: ["2026-03-11T00:00:00+00:00", "2026-03-12T00:00:00+00:00"] }
  },
  { request: "Book a doctor's appointment", kind: "appointment", ask: ["q_date"] },
  {
    request: "Massage in Bali on 1 May",
    kind: "appointment",
    ask: [],
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
  { request: "Book a manicure tomorrow at 7", given: [lisbon], kind: "appointment", ask: ["q_time"] },
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
  { request: "A haircut", kind: "appointment", ask: ["q_date"] },
  {
    request: "Vaccination for my cat in Auckland next Monday at 9am",
    kind: "appointment",
    ask: [],
    facts: { zone: "Pacific/Auckland", window: "2026-03-16T09:00:00+13:00" }
  },
  {
    request: "Spa day in Istanbul on Sunday",
    kind: "appointment",
    ask: [],
    facts: { zone: "Europe/Istanbul", window: "2026-03-15T00:00:00+03:00" }
  },
  {
    request: "Dentist appointment in 1 month",
    kind: "appointment",
    ask: [],
    facts: { window: "2026-04-10T00:00:00Z" }
  },
  { request: "A massage this afternoon at 3 in Bangkok", kind: "appointment", ask: ["q_date"] },
  // ---- services
  {
    request: "My sink is leaking, get a plumber today",
    given: [lisbon],
    kind: "service",
    ask: [],
    facts: { window: ["2026-03-10T00:00:00+00:00", "2026-03-11T00:00:00+00:00"] }
  },
  { request: "Fix my bike before the weekend", kind: "service", ask: [], facts: { deadline: "2026-03-14T00:00:00Z" } },
  {
    request: "Need an electrician to install 4 ceiling lights, up to 250 GBP",
    kind: "service",
    ask: [],
    facts: { budget: "250.00 GBP", quantity: [4, "ceiling lights"] }
  },
  { request: "Cleaner for my flat every week", kind: "service", ask: [] },
  {
    request: "A cleaner at my place on Thursday at 10, £15 an hour",
    given: [{ type: "timezone", zone: "Europe/London" }],
    kind: "service",
    ask: [],
    facts: { window: "2026-03-12T10:00:00+00:00", budget: null }
  },
  {
    request: "Movers in Chicago on Saturday at 9am, max $800",
    kind: "service",
    ask: [],
    facts: { budget: "800.00 USD", window: "2026-03-14T09:00:00-05:00" }
  },
  {
    request: "Boiler repair in Leeds tomorrow morning",
    kind: "service",
    ask: [],
    facts: { zone: "Europe/London", window: ["2026-03-11T00:00:00+00:00", "2026-03-12T00:00:00+00:00"] }
  },
  { request: "Get my car serviced on Friday", kind: "service", ask: [] },
  {
    request: "Book an appointment for a car service in Munich on Wednesday at 8",
    kind: "service",
    ask: [],
    facts: { window: "2026-03-11T08:00:00+01:00" }
  },
  {
    request: "Locksmith now in Amsterdam, I'm locked out",
    kind: "service",
    ask: [],
    facts: { window: "2026-03-10T11:00:00+01:00", zone: "Europe/Amsterdam" }
  },
  { request: "Plumber at 9 tomorrow", kind: "service", ask: ["q_timezone"] },
  {
    request: "Babysitter in Denver on Saturday from 6 to 11pm",
    kind: "service",
    ask: [],
    facts: { window: ["2026-03-14T18:00:00-06:00", "2026-03-14T23:00:00-06:00"] }
  },
  {
    request: "Handyman to assemble 2 wardrobes next week",
    kind: "service",
    ask: [],
    facts: { quantity: [2, "wardrobes"] }
  },
  { request: "fix my boiler by end of month", kind: "service", ask: [], facts: { deadline: "2026-04-01T00:00:00Z" } },
  { request: "Gardener in Hamburg every Friday, 25 EUR per hour", kind: "service", ask: [], facts: { budget: null } },
  {
    request: "I need a plumber this morning",
    given: [lisbon],
    kind: "service",
    ask: [],
    facts: { window: ["2026-03-10T00:00:00+00:00", "2026-03-11T00:00:00+00:00"] }
  },
  // ---- deliveries and couriers
  {
    request: "Send a parcel to Hamburg within 3 days",
    kind: "delivery",
    ask: [],
    facts: { deadline: "2026-03-13T11:00:00+01:00", zone: "Europe/Berlin" }
  },
  {
    request: "Courier 2 boxes from Rua Augusta 10, Lisbon to Madrid by end of month",
    kind: "delivery",
    ask: [],
    facts: { deadline: "2026-04-01T00:00:00+02:00", quantity: [2, "boxes"] }
  },
  {
    request: "Deliver a sofa to Rua do Ouro, Lisbon",
    given: [{ type: "location", place: "Rua do Ouro 12, 1100-060 Lisboa" }],
    kind: "delivery",
    ask: []
  },
  { request: "Send a package within 2 days", kind: "delivery", ask: ["q_location"] },
  { request: "Ship these documents to my sister's by Friday", kind: "delivery", ask: ["q_location"] },
  {
    request: "Courier a letter to Nairobi by tomorrow at 5pm",
    kind: "delivery",
    ask: [],
    facts: { deadline: "2026-03-11T17:00:00+03:00", zone: "Africa/Nairobi" }
  },
  { request: "Ship a parcel to Porto", kind: "delivery", ask: [] },
  {
    request: "Send a package from Boston to Chicago, under $40",
    kind: "delivery",
    ask: [],
    facts: { budget: "40.00 USD" }
  },
  { request: "Deliver my suitcase from the hotel to the airport by 2pm", kind: "delivery", ask: ["q_timezone"] },
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
    ask: []
  },
  {
    request: "book a table for 2 tomorrow",
    given: [lisbon, { type: "window", start: "2026-03-15T19:00:00Z", end: "2026-03-15T21:00:00Z" }],
    kind: "reservation",
    ask: ["q_date"]
  },
  {
    request: "flight to Rome on Friday under €200",
    given: [{ type: "budget", max: { amount: "250.00", currency: "EUR" } }],
    kind: "transport",
    ask: ["q_budget"]
  },
  {
    request: "flight to Rome on Friday under €200",
    given: [{ type: "budget", max: { amount: "180.00", currency: "EUR" } }],
    kind: "transport",
    ask: [],
    facts: { budget: null }
  },
  {
    request: "Book a table at 7pm",
    given: [lisbon, { type: "quantity", count: 2 }],
    kind: "reservation",
    ask: [],
    facts: { window: "2026-03-10T19:00:00+00:00" }
  },
  {
    request: "Dinner at 8pm on Friday",
    given: [{ type: "location", place: "Lisbon" }],
    kind: "reservation",
    ask: ["q_quantity_people"],
    facts: { zone: "Europe/Lisbon" }
  },
  {
    request: "Flowers for Ann, 40 EUR",
    given: [{ type: "budget", max: { amount: "40.00", currency: "EUR" } }],
    kind: "purchase",
    ask: [],
    facts: { budget: null }
  },
  // ---- other days and clocks
  { request: "train on Friday to Porto", at: "2026-03-13T09:00:00Z", kind: "transport", ask: ["q_date"] },
  {
    request: "train next Friday to Porto",
    at: "2026-03-13T09:00:00Z",
    kind: "transport",
    ask: [],
    facts: { window: "2026-03-20T00:00:00+00:00" }
  },
  {
    request: "train this Friday to Porto",
    at: "2026-03-13T09:00:00Z",
    kind: "transport",
    ask: [],
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
    ask: [],
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
    ask: [],
    facts: { window: "2026-03-29T02:30:00+01:00" }
  },
  {
    request: "taxi in Lisbon on Sunday at 1:30am",
    at: "2026-10-23T12:00:00Z",
    kind: "transport",
    ask: [],
    facts: { window: "2026-10-25T01:30:00+01:00" }
  },
  {
    request: "plumber in New York tomorrow",
    at: "2026-03-07T15:00:00Z",
    kind: "service",
    ask: [],
    facts: { window: ["2026-03-08T00:00:00-05:00", "2026-03-09T00:00:00-04:00"] }
  },
  {
    request: "train to Madrid on 29 February",
    at: "2027-03-01T09:00:00Z",
    kind: "transport",
    ask: [],
    facts: { window: "2028-02-29T00:00:00+01:00" }
  },
  { request: "hotel in Rome on 3 March", kind: "reservation", ask: [], facts: { window: "2027-03-03T00:00:00+01:00" } },
  {
    request: "hotel in Rome by the end of the year",
    at: "2026-01-31T09:00:00Z",
    kind: "reservation",
    ask: [],
    facts: { deadline: "2027-01-01T00:00:00+01:00" }
  }
]

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
    ask: [],
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
    ask: [],
    facts: { window: "2026-03-11T09:00:00+00:00", zone: "Europe/Lisbon" }
  },
  {
    request: "Plumber at 9 tomorrow",
    answers: { q_timezone: "Europe/Paris" },
    kind: "service",
    ask: [],
    facts: { window: "2026-03-11T09:00:00+01:00" }
  },
  { request: "Plumber at 9 tomorrow", answers: { q_timezone: "Sintra" }, kind: "service", ask: ["q_timezone"] },
  {
    request: "Plumber at 9 tomorrow",
    answers: { q_timezone: "Portugal" },
    kind: "service",
    ask: [],
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
    ask: [],
    facts: { window: "2026-03-16T00:00:00+01:00" }
  },
  { request: "Flight to Paris", answers: { q_date: "blah" }, kind: "transport", ask: ["q_date"] },
  {
    request: "Flight to Paris",
    answers: { q_date: "Friday morning from Lisbon, 2 of us, under 400 euros" },
    kind: "transport",
    ask: [],
    facts: { budget: "400.00 EUR", people: 2, zone: "Europe/Lisbon", window: "2026-03-13T00:00:00+00:00" }
  },
  {
    request: "Book a manicure tomorrow at 7",
    given: [lisbon],
    answers: { q_time: "in the evening" },
    kind: "appointment",
    ask: [],
    facts: { window: "2026-03-11T19:00:00+00:00" }
  },
  {
    request: "Book a manicure tomorrow at 7",
    given: [lisbon],
    answers: { q_time: "7pm" },
    kind: "appointment",
    ask: [],
    facts: { window: "2026-03-11T19:00:00+00:00" }
  },
  {
    request: "Book a manicure tomorrow at 7",
    given: [lisbon],
    answers: { q_time: "whatever" },
    kind: "appointment",
    ask: ["q_time"]
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
    ask: [],
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
    ask: [],
    facts: { window: ["2026-03-14T00:00:00+01:00", "2026-03-15T00:00:00+01:00"], budget: "30.00 EUR" }
  },
  {
    request: "Book me a flight to São Paulo",
    answers: { q_date: "from New York on 2 April, back on 9 April, max $1200" },
    kind: "transport",
    ask: [],
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
