import type { ConstraintInput } from "../../src/schema/Constraint.ts"
import type { Case } from "./Table.ts"

const lisbon: ConstraintInput = { type: "timezone", zone: "Europe/Lisbon" }

/** Requests to hold a place or a seat: restaurants, hotels and stays, flights, trains and taxis. */
export const bookings: ReadonlyArray<Case> = [
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
    ask: ["q_time"],
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
    ask: ["q_time"],
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
    ask: ["q_time"],
    facts: { budget: "120.00 CAD", zone: "America/Toronto" }
  },
  {
    request: "Book a table for 2 at 7",
    given: [lisbon],
    kind: "reservation",
    ask: ["q_location"],
    facts: { window: "2026-03-10T19:00:00+00:00" }
  },
  {
    request: "Book a table for dinner by my sister's on Friday at 8pm",
    kind: "reservation",
    ask: ["q_location", "q_quantity_people"]
  },
  { request: "Dinner at our regular spot on Saturday at 8, 4 of us", kind: "reservation", ask: ["q_location"] },
  { request: "Table for 2 tomorrow evening", kind: "reservation", ask: ["q_location", "q_time"] },
  { request: "Dinner for 4 tonight at 9", kind: "reservation", ask: ["q_location"] },
  { request: "Book a table for 3 in Portland on Friday at 7pm", kind: "reservation", ask: ["q_location"] },
  {
    request: "Book a table for 3 in Portland, Maine on Friday at 7pm",
    kind: "reservation",
    ask: [],
    facts: { zone: "America/New_York", window: "2026-03-13T19:00:00-04:00" }
  },
  { request: "Dinner in Springfield for 2 on Saturday", kind: "reservation", ask: ["q_location", "q_time"] },
  { request: "Table for 4 in London today at 8am", kind: "reservation", ask: ["q_date"] },
  { request: "Table for 2 in Lisbon today at 9am", kind: "reservation", ask: ["q_date"] },
  { request: "Table for 4 on 12/03 at 8pm in Lisbon", kind: "reservation", ask: [] },
  {
    request: "Table for 2 in Lisbon on 25/03 at 8pm",
    kind: "reservation",
    ask: [],
    facts: { window: "2026-03-25T20:00:00+00:00" }
  },
  {
    request: "Book a table for 2 on Friday the 13th in Lisbon",
    kind: "reservation",
    ask: ["q_time"],
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
    ask: ["q_date"],
    facts: { budget: "1500.00 AED", zone: "Asia/Dubai", window: "2026-04-15T00:00:00+04:00" }
  },
  { request: "Book a hotel for the conference", kind: "reservation", ask: ["q_location", "q_date"] },
  { request: "Hotel in Springfield on Friday", kind: "reservation", ask: ["q_location", "q_date"] },
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
    ask: ["q_time"],
    facts: { zone: "America/Los_Angeles", window: ["2026-03-13T00:00:00-07:00", "2026-03-17T00:00:00-07:00"] }
  },
  {
    request: "stay in São Paulo on 2 April",
    kind: "reservation",
    ask: ["q_date"],
    facts: { zone: "America/Sao_Paulo", window: "2026-04-02T00:00:00-03:00" }
  },
  // ---- flights, trains, taxis
  {
    request: "Flight from Lisbon to Berlin next Friday, under €300",
    kind: "transport",
    ask: ["q_time"],
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
    ask: ["q_location_from", "q_time"],
    facts: { window: "2026-04-02T00:00:00-04:00", budget: "600.00 USD" }
  },
  {
    request: "Two train tickets from Paris to Lyon this weekend",
    kind: "transport",
    ask: ["q_date"],
    facts: { window: ["2026-03-14T00:00:00+01:00", "2026-03-16T00:00:00+01:00"], quantity: [2, "train tickets"] }
  },
  {
    request: "taxi to the airport at 5am tomorrow",
    given: [lisbon],
    kind: "transport",
    ask: ["q_location_from"],
    facts: { window: "2026-03-11T05:00:00+00:00" }
  },
  {
    request: "I need a cab from Heathrow to Central London in 2 hours",
    kind: "transport",
    ask: [],
    facts: { window: "2026-03-10T12:00:00+00:00", zone: "Europe/London" }
  },
  { request: "Book me a flight to São Paulo", kind: "transport", ask: ["q_location_from", "q_date"] },
  {
    request: "ferry to Tangier between 15 and 17 April",
    given: [{ type: "timezone", zone: "Europe/Madrid" }],
    kind: "transport",
    ask: ["q_location_from", "q_date"],
    facts: { window: ["2026-04-15T00:00:00+02:00", "2026-04-18T00:00:00+02:00"] }
  },
  { request: "train to Porto yesterday", kind: "transport", ask: ["q_location_from", "q_date"] },
  {
    request: "flights to Tokyo 7pm Tokyo time on Friday",
    kind: "transport",
    ask: ["q_location_from"],
    facts: { window: "2026-03-13T19:00:00+09:00", zone: "Asia/Tokyo" }
  },
  {
    request: "train to Porto 2026-12-03T19:00",
    kind: "transport",
    ask: ["q_location_from"],
    facts: { window: "2026-12-03T19:00:00+00:00" }
  },
  { request: "Taxi tomorrow at 6am", kind: "transport", ask: ["q_location_from", "q_location_to", "q_timezone"] },
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
    ask: ["q_time"],
    facts: { zone: "Australia/Sydney", window: "2026-03-20T00:00:00+11:00" }
  },
  { request: "Train from Milan to Venice on Saturday at 9:15", kind: "transport", ask: [] },
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
    ask: ["q_time"],
    facts: { zone: "Africa/Nairobi", window: "2026-03-17T00:00:00+03:00" }
  },
  {
    request: "Flight to Paris on Friday at 9am, back Sunday at 6pm",
    given: [lisbon],
    kind: "transport",
    ask: ["q_location_from"],
    facts: { places: ["to Paris"] }
  },
  {
    request: "Bus from Lima to Cusco on 18 March",
    kind: "transport",
    ask: ["q_time"],
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
    ask: ["q_location_from", "q_date"],
    facts: { window: ["2026-04-01T00:00:00+07:00", "2026-05-01T00:00:00+07:00"], zone: "Asia/Bangkok" }
  },
  {
    request: "Get me a train to Edinburgh on 2 April, return on 5 April",
    kind: "transport",
    ask: ["q_location_from", "q_time"]
  },
  {
    request: "Taxi from the hotel to the match on Saturday",
    kind: "transport",
    ask: ["q_location_from", "q_location_to", "q_time"]
  },
  { request: "Flight from Portland to Seattle on Friday", kind: "transport", ask: ["q_location", "q_time"] },
  {
    request: "Flight from Portland, Oregon to Seattle on Friday at 8am",
    kind: "transport",
    ask: [],
    facts: { zone: "America/Los_Angeles", window: "2026-03-13T08:00:00-07:00" }
  },
  {
    request: "Two flights from London to Athens on 1 June, under £400 each",
    kind: "transport",
    ask: ["q_time"],
    facts: { budget: "800.00 GBP", zone: "Europe/London" }
  },
  {
    request: "Flight to Seoul on Friday, 3 passengers",
    kind: "transport",
    ask: ["q_location_from", "q_time"],
    facts: { people: 3, zone: "Asia/Seoul" }
  },
  { request: "taxi at 7am", given: [lisbon], kind: "transport", ask: ["q_location_from", "q_location_to", "q_date"] },
  { request: "A cab in London to Gatwick at 10:30 on Thursday", kind: "transport", ask: ["q_time"] },
  {
    request: "A cab to Gatwick at 10:30am on Thursday",
    kind: "transport",
    ask: ["q_location_from"],
    facts: { zone: "Europe/London", window: "2026-03-12T10:30:00+00:00" }
  },
  {
    request: "Book the Eurostar from London to Paris on 5 April, returning 8 April, 2 adults",
    kind: "transport",
    ask: ["q_time"],
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
    ask: []
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
    ask: ["q_location_from", "q_time"],
    facts: { window: "2026-04-16T00:00:00+10:00", zone: "Australia/Sydney" }
  },
  {
    request: "Train from Edinburgh to London on 3rd April, arriving before 2pm",
    kind: "transport",
    ask: [],
    facts: { deadline: "2026-04-03T14:00:00+01:00" }
  }
]
