import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer, Schema, Stream } from "effect"
import { Email } from "../src/schema/Waitlist.ts"
import { layerMemory } from "../src/services/waitlist/MemoryWaitlist.ts"
import { layerMigrated as waitlistOnStore } from "../src/services/waitlist/SqlWaitlist.ts"
import { Waitlist } from "../src/services/waitlist/Waitlist.ts"
import * as TestDatabase from "./support/TestDatabase.ts"

const email = Schema.decodeUnknownSync(Email)
let counter = 0
const unique = (local = "member") => `${local}.${process.pid}.${++counter}@example.com`

const members = Effect.flatMap(Waitlist, (waitlist) => Stream.runCollect(waitlist.members))

/** One behaviour, held by both layers: the in-memory one must not be a friendlier mock. */
const behaviour = (name: string, store: Layer.Layer<Waitlist, unknown>) =>
  layer(store, { timeout: "60 seconds", excludeTestServices: true })(name, (it) => {
    it.effect("joins an address once, keeping the first spelling", () =>
      Effect.gen(function*() {
        const waitlist = yield* Waitlist
        const address = unique("Ann")
        const before = yield* waitlist.count
        yield* waitlist.join(email(address))
        yield* waitlist.join(email(address.toLowerCase()))
        yield* waitlist.join(email(address.toUpperCase()))
        assert.strictEqual(yield* waitlist.count, before + 1)
        const stored = (yield* members).filter((m) => m.email.toLowerCase() === address.toLowerCase())
        assert.deepStrictEqual(stored.map((m) => m.email), [address])
      }))

    it.effect("stores exactly one member under concurrent registrations of one address", () =>
      Effect.gen(function*() {
        const waitlist = yield* Waitlist
        const address = unique("Race")
        const before = yield* waitlist.count
        const variants = Array.from({ length: 40 }, (_, i) => i % 2 === 0 ? address : address.toUpperCase())
        yield* Effect.forEach(variants, (v) => waitlist.join(email(v)), { concurrency: "unbounded" })
        assert.strictEqual(yield* waitlist.count, before + 1)
      }))

    it.effect("answers and stores every one of many concurrent joins, repeats included", () =>
      Effect.gen(function*() {
        const waitlist = yield* Waitlist
        const before = yield* waitlist.count
        // More than one batch can hold, each address twice in two spellings, all at once.
        const addresses = Array.from({ length: 300 }, () => unique("Crowd"))
        const joins = addresses.flatMap((address) => [address, address.toLowerCase()])
        yield* Effect.forEach(joins, (address) => waitlist.join(email(address)), { concurrency: "unbounded" })
        assert.strictEqual(yield* waitlist.count, before + addresses.length)
        // Joins in flight together have no order but their commits': each address is stored once, in
        // one of the spellings sent (batches written at once may commit either way round).
        const stored = new Map<string, Array<string>>()
        for (const { email } of yield* members) {
          stored.set(email.toLowerCase(), [...stored.get(email.toLowerCase()) ?? [], email])
        }
        for (const address of addresses) {
          const spellings = stored.get(address.toLowerCase()) ?? []
          assert.strictEqual(spellings.length, 1, address)
          assert.include([address, address.toLowerCase()], spellings[0], address)
        }
      }))

    it.effect("stores every accepted string exactly: U+0000, controls, quotes, astral characters", () =>
      Effect.gen(function*() {
        const waitlist = yield* Waitlist
        const odd = [
          `nul\u0000byte.${counter++}@example.com`,
          `\u0001ctl\u007f.${counter++}@example.com`,
          `"quoted,semi;colon".${counter++}@example.com`,
          `emoji😀𝄞.${counter++}@example.com`,
          `ä-İ-ß.${counter++}@exämple.com`
        ]
        for (const address of odd) yield* waitlist.join(email(address))
        const stored = new Set((yield* members).map((m) => m.email as string))
        for (const address of odd) assert.isTrue(stored.has(address), JSON.stringify(address))
      }))

    it.effect("lists members in registration order with their registration time", () =>
      Effect.gen(function*() {
        const waitlist = yield* Waitlist
        const first = unique("first")
        const second = unique("second")
        yield* waitlist.join(email(first))
        yield* waitlist.join(email(second))
        yield* waitlist.join(email(first))
        const all = yield* members
        const order = all.map((m) => m.email as string).filter((e) => e === first || e === second)
        assert.deepStrictEqual(order, [first, second])
        const at = (address: string) => all.find((m) => m.email === address)!.registeredAt.getTime()
        assert.isAtMost(at(first), at(second))
        assert.isAtMost(Math.abs(Date.now() - at(first)), 60_000, "registered now, by the real clock")
        // Joining again does not move the registration.
        yield* Effect.sleep("20 millis")
        yield* (yield* Waitlist).join(email(first.toUpperCase()))
        assert.strictEqual((yield* members).find((m) => m.email === first)!.registeredAt.getTime(), at(first))
      }))

    it.effect("treats keys case-insensitively by JavaScript's locale-independent lower case", () =>
      Effect.gen(function*() {
        const waitlist = yield* Waitlist
        const n = counter++
        const before = yield* waitlist.count
        yield* waitlist.join(email(`STRASSE.${n}@Example.COM`))
        yield* waitlist.join(email(`strasse.${n}@example.com`))
        // "ß" upper-cases to "SS", but lower-casing "SS" never gives "ß": these are two members.
        yield* waitlist.join(email(`straße.${n}@example.com`))
        assert.strictEqual(yield* waitlist.count, before + 2)
      }))
  })

const live = waitlistOnStore().pipe(Layer.provide(TestDatabase.configLayer()))

describe("Waitlist", () => {
  behaviour("Test layer (in memory)", layerMemory)
  behaviour(`Live layer (${TestDatabase.kind})`, live)
})

layer(live, { timeout: "60 seconds", excludeTestServices: true })(
  `Live layer batching (${TestDatabase.kind})`,
  (it) => {
    it.effect("writes concurrent joins with a few statements, not one each", () =>
      Effect.gen(function*() {
        const waitlist = yield* Waitlist
        const addresses = Array.from({ length: 300 }, () => unique("Batch"))
        yield* Effect.forEach(addresses, (address) => waitlist.join(email(address)), { concurrency: "unbounded" })
        // A statement's rows share its transaction's `now()`: one registration time per statement.
        const wanted = new Set(addresses)
        const times = new Set((yield* members).filter((m) => wanted.has(m.email)).map((m) => m.registeredAt.getTime()))
        assert.isAtMost(times.size, 10, `${times.size} statements for ${addresses.length} joins`)
      }))
  }
)
