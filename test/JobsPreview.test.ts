import { assert, expect, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Layer } from "effect"
import * as JobsGate from "../src/http/JobsGate.ts"
import { PreviewHttpLive } from "../src/http/JobsPreview.ts"
import { nodeServer } from "../src/http/Server.ts"
import * as MemoryWaitlist from "../src/services/waitlist/MemoryWaitlist.ts"
import { baseUrl, comparableHeaders, send, serverWith } from "./support/Http.ts"
import type { RawRequest, RawResponse } from "./support/Http.ts"
import { previewServerWith, servicesTest } from "./support/JobsHttp.ts"

/** Requests to the Job API's paths, each with its twin on a path the service has never served. */
const probes: ReadonlyArray<readonly [RawRequest, RawRequest]> = [
  [{ method: "GET", path: "/v1/jobs" }, { method: "GET", path: "/v1/nope" }],
  [{ method: "GET", path: "/v1/jobs?limit=5" }, { method: "GET", path: "/v1/nope?limit=5" }],
  [{ method: "GET", path: "/v1/jobs/job_1" }, { method: "GET", path: "/v1/nope/job_1" }],
  ...["/v1/jobs", "/v1/jobs/job_1/constraints", "/v1/jobs/job_1/input", "/v1/jobs/job_1/cancel"].map((path) =>
    [
      {
        method: "POST",
        path,
        headers: {
          authorization: "Bearer rc_live_xxx",
          "idempotency-key": "k",
          "content-type": "application/json"
        },
        body: `{"request":"x","constraints":[]}`
      },
      {
        method: "POST",
        path: path.replace("/v1/jobs", "/v1/nope"),
        headers: {
          authorization: "Bearer rc_live_xxx",
          "idempotency-key": "k",
          "content-type": "application/json"
        },
        body: `{"request":"x","constraints":[]}`
      }
    ] as const
  )
]

const expectSameAnswer = (answer: RawResponse, unknown: RawResponse) => {
  assert.strictEqual(answer.status, 404)
  assert.strictEqual(answer.status, unknown.status)
  assert.strictEqual(answer.body, unknown.body)
  assert.deepStrictEqual(comparableHeaders(answer.headers), comparableHeaders(unknown.headers))
}

const answersLikeAnUnknownPath = Effect.gen(function*() {
  const url = yield* baseUrl
  for (const [probe, twin] of probes) expectSameAnswer(yield* send(url, probe), yield* send(url, twin))
})

layer(serverWith(MemoryWaitlist.layerMemory), { excludeTestServices: true })(
  "the Job API with the preview off",
  (it) => {
    it.effect("answers its paths exactly as any unknown path, byte for byte", () => answersLikeAnUnknownPath)

    it.effect("leaves it out of the OpenAPI document", () =>
      Effect.gen(function*() {
        const document = JSON.parse((yield* send(yield* baseUrl, { method: "GET", path: "/openapi.json" })).body)
        assert.deepStrictEqual(Object.keys(document.paths), ["/v1/waitlist"])
        assert.notInclude(JSON.stringify(document), "Job")
      }))
  }
)

/** The service's HTTP layer as `main.ts` builds it, under the given environment. */
const served = (env: Record<string, string>) =>
  JobsGate.layer(async () => PreviewHttpLive.pipe(Layer.provide(servicesTest()))).pipe(
    Layer.provideMerge(nodeServer({ host: "127.0.0.1", port: 0 })),
    Layer.provide(MemoryWaitlist.layerMemory),
    Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(env)))
  )

layer(served({}), { excludeTestServices: true })("JOBS_API unset", (it) => {
  it.effect("keeps the preview off", () => answersLikeAnUnknownPath)
})

layer(served({ JOBS_API: "off" }), { excludeTestServices: true })("JOBS_API=off", (it) => {
  it.effect("keeps the preview off", () => answersLikeAnUnknownPath)
})

layer(served({ JOBS_API: "preview" }), { excludeTestServices: true })("JOBS_API=preview", (it) => {
  it.effect("serves the Job API", () =>
    Effect.gen(function*() {
      const answer = yield* send(yield* baseUrl, { method: "GET", path: "/v1/jobs" })
      assert.strictEqual(answer.status, 401)
      assert.strictEqual(answer.headers["www-authenticate"], "Bearer")
      // Other unknown paths still answer as before.
      assert.strictEqual((yield* send(yield* baseUrl, { method: "GET", path: "/v1/nope" })).status, 404)
    }))
})

layer(Layer.empty)("JOBS_API with another value", (it) => {
  it.effect("stops the start, naming the variable", () =>
    Effect.gen(function*() {
      const exit = yield* Layer.build(served({ JOBS_API: "on" })).pipe(Effect.scoped, Effect.exit)
      assert.isTrue(Exit.isFailure(exit))
      assert.include(String(Exit.isFailure(exit) ? exit.cause : ""), "JOBS_API")
    }))
})

layer(previewServerWith(servicesTest()), { excludeTestServices: true })("the published preview contract", (it) => {
  it.effect("GET /openapi.json adds the Job API, tagged as a preview, and cannot drift unnoticed", () =>
    Effect.gen(function*() {
      const response = yield* send(yield* baseUrl, { method: "GET", path: "/openapi.json" })
      assert.strictEqual(response.status, 200)
      const document = JSON.parse(response.body)
      assert.deepStrictEqual(Object.keys(document.paths), [
        "/v1/waitlist",
        "/v1/jobs",
        "/v1/jobs/{id}",
        "/v1/jobs/{id}/constraints",
        "/v1/jobs/{id}/input",
        "/v1/jobs/{id}/cancel",
        "/v1/jobs/{id}/proposals/{hash}",
        "/v1/jobs/{id}/approvals",
        "/v1/jobs/{id}/approval-links",
        "/v1/jobs/{id}/events",
        "/v1/events"
      ])
      const link = document.paths["/v1/jobs/{id}/approval-links"].post
      assert.deepStrictEqual(Object.keys(link.responses).sort(), [
        "201",
        "400",
        "401",
        "403",
        "404",
        "409",
        "422",
        "503"
      ])
      assert.deepStrictEqual(link.responses["201"].content["application/json"].schema, {
        $ref: "#/components/schemas/ApprovalLink"
      })
      assert.deepStrictEqual(document.tags.map((tag: { name: string }) => tag.name), ["Waitlist", "Jobs (preview)"])
      assert.include(document.tags[1].description, "JOBS_API=preview")
      const create = document.paths["/v1/jobs"].post
      assert.deepStrictEqual(create.tags, ["Jobs (preview)"])
      assert.deepStrictEqual(create.security, [{ bearer: [] }])
      assert.deepStrictEqual(Object.keys(create.responses).sort(), ["201", "400", "401", "403", "409", "422", "503"])
      assert.isTrue(
        create.parameters.some((p: { name: string; required: boolean }) => p.name === "Idempotency-Key" && p.required)
      )
      assert.deepStrictEqual(
        document.paths["/v1/jobs/{id}/constraints"].post.responses["409"].content["application/json"].schema.anyOf
          .map((s: { $ref: string }) => s.$ref).sort(),
        [
          "#/components/schemas/IdempotencyKeyInUse",
          "#/components/schemas/InvalidState",
          "#/components/schemas/RevisionMismatch"
        ]
      )
      assert.strictEqual(document.components.securitySchemes.bearer.scheme, "Bearer")
      assert.notMatch(response.body, /HttpApiDecodeError|HttpApiSchemaError|_tag/)
      // The waitlist's part is the document served with the preview off.
      const published = JSON.parse(
        yield* Effect.promise(() =>
          import("node:fs/promises").then((fs) => fs.readFile("test/__snapshots__/openapi.json", "utf8"))
        )
      )
      assert.deepStrictEqual(document.paths["/v1/waitlist"], published.paths["/v1/waitlist"])
      yield* Effect.promise(() =>
        expect(JSON.stringify(document, null, 2) + "\n").toMatchFileSnapshot("./__snapshots__/openapi-preview.json")
      )
    }))
})
