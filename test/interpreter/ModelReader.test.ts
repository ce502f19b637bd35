import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, DateTime, Duration, Effect, Layer, Option, Redacted } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import type { InterpretInput } from "../../src/services/interpreter/Interpreter.ts"
import { Interpreter, interpretRequest, layer, layerModel } from "../../src/services/interpreter/Interpreter.ts"
import * as WallClock from "../support/WallClock.ts"

interface Seen {
  readonly authorization: string | undefined
  readonly body: { readonly model: string; readonly messages: ReadonlyArray<{ readonly content: string }> }
}

interface FakeModel {
  readonly url: string
  readonly seen: Array<Seen>
  /** The answers held back from "slow" requests: each answers when called, however late. */
  readonly held: Array<() => void>
  readonly close: () => void
}

/**
 * A local OpenAI-compatible endpoint: it answers a reading of its own, or only when the test lets it
 * (`held`), or words that are not JSON, or JSON the schemas refuse, or an error, by what the request
 * asks for.
 */
const fakeModel = Effect.acquireRelease(
  Effect.promise(() =>
    new Promise<FakeModel>((resolve) => {
      const seen: Array<Seen> = []
      const held: Array<() => void> = []
      const server = createServer((request, response) => {
        let text = ""
        request.on("data", (chunk) => text += chunk)
        request.on("end", () => {
          const body = JSON.parse(text) as Seen["body"]
          seen.push({ authorization: request.headers.authorization, body })
          const prompt = body.messages.map((m) => m.content).join("\n")
          const reply = (status: number, content: string) => {
            response.writeHead(status, { "content-type": "application/json" })
            response.end(JSON.stringify({ choices: [{ message: { role: "assistant", content } }] }))
          }
          if (prompt.includes("slow")) return void held.push(() => reply(200, "{}"))
          if (prompt.includes("prose")) return reply(200, "Sure! You want a table.")
          if (prompt.includes("shape")) return reply(200, JSON.stringify({ objective: { kind: "party" } }))
          if (prompt.includes("broken")) return reply(500, "")
          reply(
            200,
            JSON.stringify({
              objective: { kind: "reservation", summary: "From the model", words: "Dinner" },
              constraints: [
                { fact: { type: "quantity", count: 7, unit: "people" }, words: "seven" },
                // Words the request does not have: the fact they were to support is left out.
                { fact: { type: "location", place: "Mars" }, words: "on Mars" }
              ],
              questions: []
            })
          )
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resolve({ url: `http://127.0.0.1:${port}/v1`, seen, held, close: () => server.close() })
      })
    })
  ),
  (server) =>
    Effect.sync(() => {
      for (const answer of server.held) answer()
      server.close()
    })
)

/** Long enough for any answer the endpoint gives at once, on a loaded machine: only a held one times out. */
const patient = Duration.seconds(30)

const input = (request: string): InterpretInput => ({
  request,
  constraints: [],
  answers: [],
  createdAt: DateTime.makeUnsafe("2026-03-10T10:00:00Z")
})

const interpretWith = (interpreter: Layer.Layer<Interpreter>, request: string) =>
  Effect.gen(function*() {
    return yield* (yield* Interpreter).interpret(input(request))
  }).pipe(Effect.provide(interpreter))

describe("Interpreter: the language-model layer", () => {
  it.live("reads through the model, with its key and model name, checked against the schemas", () =>
    Effect.gen(function*() {
      const server = yield* fakeModel
      const model = layerModel({
        baseUrl: server.url,
        model: "fake-1",
        apiKey: Option.some(Redacted.make("sk-test")),
        timeout: patient
      })
      const result = yield* interpretWith(model, "Dinner for seven somewhere")
      assert.deepStrictEqual(result, {
        _tag: "Understood",
        objective: { kind: "reservation", summary: "From the model", evidence: [{ text: "Dinner", start: 0, end: 6 }] },
        constraints: [{ type: "quantity", count: 7, unit: "people", evidence: [{ text: "seven", start: 11, end: 16 }] }]
      })
      assert.strictEqual(server.seen[0]?.authorization, "Bearer sk-test")
      assert.strictEqual(server.seen[0]?.body.model, "fake-1")
      assert.include(server.seen[0]?.body.messages.map((m) => m.content).join("\n"), "Dinner for seven somewhere")
    }).pipe(Effect.scoped))

  it.live("falls back to the offline reader on a timeout, prose, a wrong shape or an error", () =>
    Effect.gen(function*() {
      const server = yield* fakeModel
      const model = (timeout: Duration.Duration) =>
        layerModel({ baseUrl: server.url, model: "fake-1", apiKey: Option.none(), timeout })
      // A model that has not answered by the timeout: the reading is the offline one, given while any
      // answer of the model is still held back (until the scope closes), so it cannot have waited for it.
      const slow = "a slow table for 2 in Lisbon tomorrow"
      const offlineSlow = interpretRequest(input(slow))
      const started = Date.now()
      const readSlow = yield* interpretWith(model(Duration.millis(300)), slow)
      const took = Date.now() - started
      assert.deepStrictEqual(readSlow, offlineSlow)
      // The offline reading to compare with is made before the clock starts: the bound is on the
      // model's call and its fallback, not on the comparison (the reader's first use loads its data).
      if (WallClock.bounded) assert.isBelow(took, 1_500, "fell back soon after the timeout")
      // An answer that comes at once but cannot be used; with a timeout it never reaches, the fallback
      // is the answer's doing.
      for (const request of ["prose: flight to Paris", "shape of a gift", "broken taxi"]) {
        assert.deepStrictEqual(yield* interpretWith(model(patient), request), interpretRequest(input(request)), request)
      }
      const asked = server.seen.filter((seen) => !seen.body.messages.some((m) => m.content.includes("slow")))
      assert.strictEqual(asked.length, 3, "each request asked the model")
      assert.isTrue(server.seen.every((seen) => seen.authorization === undefined), "no key, no authorization")
    }).pipe(Effect.scoped))

  it.live("falls back when nothing listens at the address", () =>
    Effect.gen(function*() {
      const model = layerModel({
        baseUrl: "http://127.0.0.1:9/v1",
        model: "m",
        apiKey: Option.none(),
        timeout: Duration.millis(300)
      })
      const request = "Book a table for 4 in Lisbon on Friday at 8pm"
      assert.deepStrictEqual(yield* interpretWith(model, request), interpretRequest(input(request)))
    }))

  it.live("is chosen by INTERPRETER: offline by default, the model with INTERPRETER=llm", () =>
    Effect.gen(function*() {
      const server = yield* fakeModel
      const configured = (env: Record<string, string>) =>
        layer.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(env))), Layer.orDie)
      const request = "Dinner for seven somewhere"
      assert.deepStrictEqual(yield* interpretWith(configured({}), request), interpretRequest(input(request)))
      const llm = configured({
        INTERPRETER: "llm",
        INTERPRETER_LLM_BASE_URL: server.url,
        INTERPRETER_LLM_MODEL: "fake-2",
        INTERPRETER_LLM_TIMEOUT: "30 seconds"
      })
      assert.strictEqual((yield* interpretWith(llm, request)).objective?.summary, "From the model")
      assert.strictEqual(server.seen.at(-1)?.body.model, "fake-2")
    }).pipe(Effect.scoped))
})
