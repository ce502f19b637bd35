import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, DateTime, Duration, Effect, Layer, Option, Redacted } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import type { InterpretInput } from "../../src/services/interpreter/Interpreter.ts"
import { Interpreter, interpretRequest, layer, layerModel } from "../../src/services/interpreter/Interpreter.ts"

interface Seen {
  readonly authorization: string | undefined
  readonly body: { readonly model: string; readonly messages: ReadonlyArray<{ readonly content: string }> }
}

/**
 * A local OpenAI-compatible endpoint: it answers a reading of its own, or too late, or words that are
 * not JSON, or JSON the schemas refuse, or an error, by what the request asks for.
 */
const fakeModel = Effect.acquireRelease(
  Effect.promise(() =>
    new Promise<{ readonly url: string; readonly seen: Array<Seen>; readonly close: () => void }>((resolve) => {
      const seen: Array<Seen> = []
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
          if (prompt.includes("slow")) return void setTimeout(() => reply(200, "{}"), 2_000)
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
        resolve({ url: `http://127.0.0.1:${port}/v1`, seen, close: () => server.close() })
      })
    })
  ),
  (server) => Effect.sync(() => server.close())
)

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
        timeout: Duration.millis(500)
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
      const model = layerModel({
        baseUrl: server.url,
        model: "fake-1",
        apiKey: Option.none(),
        timeout: Duration.millis(300)
      })
      for (
        const request of [
          "a slow table for 2 in Lisbon tomorrow",
          "prose: flight to Paris",
          "shape of a gift",
          "broken taxi"
        ]
      ) {
        // The offline reading to compare with is made before the clock starts: the bound is on the
        // model's call and its fallback, not on the comparison (the reader's first use loads its data).
        const offline = interpretRequest(input(request))
        const started = Date.now()
        const read = yield* interpretWith(model, request)
        assert.isBelow(Date.now() - started, 1_500, request)
        assert.deepStrictEqual(read, offline, request)
      }
      assert.strictEqual(server.seen[0]?.authorization, undefined)
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
        INTERPRETER_LLM_TIMEOUT: "2 seconds"
      })
      assert.strictEqual((yield* interpretWith(llm, request)).objective?.summary, "From the model")
      assert.strictEqual(server.seen.at(-1)?.body.model, "fake-2")
    }).pipe(Effect.scoped))
})
