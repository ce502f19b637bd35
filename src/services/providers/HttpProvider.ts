import * as Config from "effect/Config"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type { HttpClientResponse } from "effect/http/HttpClientResponse"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { createHmac } from "node:crypto"
import { PositiveDuration } from "../../schema/Duration.ts"
import { Money } from "../../schema/Money.ts"
import { Offer, Terms } from "../../schema/Proposal.ts"
import type { Inspection, Quote } from "./Provider.ts"
import { ProviderPermanent, Providers, ProviderTimeout, ProviderTransient } from "./Provider.ts"

/**
 * The `http` provider: the operator's endpoint at `PROVIDER_URL`, called with JSON signed by
 * HMAC-SHA256 (`PROVIDER_SECRET`; header `Signature: t=<unix seconds>,v1=<hex HMAC of "<t>.<body>">`),
 * every call that touches a side effect with its key as `Idempotency-Key`, each within
 * `PROVIDER_TIMEOUT`:
 *
 * - `POST /quote` `{jobId, jobRevision, objective, constraints}` → 200 `{offers: [{offer, price, terms}]}`
 * - `POST /execute` `{key, proposalHash, document}` → 200 `{reference}`
 * - `POST /inspect` `{key}` → 200 `{key, state, reference, offerId, spent, terms}`, or 404: nothing done
 * - `POST /cancel` `{key}` → 2xx
 *
 * A connection error, 408, 429 or 5xx is transient (retried with the same key); any other 4xx is
 * permanent; no answer in time is a timeout: the outcome is unknown, and the service inspects the key.
 */

export const HttpProviderConfig = Config.all({
  url: Config.String("PROVIDER_URL"),
  secret: Config.Redacted("PROVIDER_SECRET"),
  timeout: Config.schema(PositiveDuration, "PROVIDER_TIMEOUT").pipe(Config.withDefault(Duration.seconds(10)))
})

/** `Signature` for `body` at `t` (unix seconds): what the endpoint recomputes with the shared secret. */
export const signature = (secret: string, t: number, body: string) =>
  `t=${t},v1=${createHmac("sha256", secret).update(`${t}.${body}`, "utf8").digest("hex")}`

const QuoteAnswer = Schema.Struct({ offers: Schema.Array(Schema.Struct({ offer: Offer, price: Money, terms: Terms })) })
const ExecuteAnswer = Schema.Struct({ reference: Schema.String })
const InspectAnswer = Schema.Struct({
  key: Schema.String,
  state: Schema.Literals(["succeeded", "failed", "compensated"]),
  reference: Schema.String,
  offerId: Schema.String,
  spent: Money,
  terms: Terms
})

type Failure = ProviderTransient | ProviderPermanent | ProviderTimeout

const byStatus = (path: string, response: HttpClientResponse): Failure => {
  const message = `${path} answered ${response.status}`
  return response.status === 408 || response.status === 429 || response.status >= 500
    ? new ProviderTransient({ message })
    : new ProviderPermanent({ message })
}

export const layer = Layer.effect(Providers)(Effect.gen(function*() {
  const config = yield* HttpProviderConfig
  const client = yield* HttpClient.HttpClient
  const base = config.url.replace(/\/+$/, "")

  /** One signed call; the answer decoded, `None` for a 404 when `notFoundIsNone`. */
  const post = <S extends Schema.Top & { readonly DecodingServices: never }>(
    path: string,
    body: unknown,
    answer: S,
    options: { readonly key?: string; readonly notFoundIsNone?: boolean; readonly undecodable: "timeout" | "transient" }
  ): Effect.Effect<Option.Option<S["Type"]>, Failure> =>
    Effect.gen(function*() {
      const text = JSON.stringify(body)
      const t = Math.floor(Date.now() / 1000)
      const request = HttpClientRequest.post(`${base}${path}`).pipe(
        HttpClientRequest.setHeaders({
          signature: signature(Redacted.value(config.secret), t, text),
          ...(options.key === undefined ? {} : { "idempotency-key": options.key })
        }),
        HttpClientRequest.bodyText(text, "application/json")
      )
      const response = yield* client.execute(request).pipe(
        Effect.mapError((error) => new ProviderTransient({ message: `${path}: ${error.message}` }))
      )
      if (response.status === 404 && options.notFoundIsNone === true) return Option.none()
      if (response.status < 200 || response.status >= 300) return yield* Effect.fail(byStatus(path, response))
      const json = yield* response.json.pipe(Effect.orElseSucceed(() => undefined))
      return yield* Schema.decodeUnknownEffect(answer)(json).pipe(
        Effect.map(Option.some),
        Effect.mapError(() => {
          const message = `${path} answered a document this service cannot read`
          return options.undecodable === "timeout"
            ? new ProviderTimeout({ message })
            : new ProviderTransient({ message })
        })
      )
    }).pipe(
      Effect.timeoutOrElse({
        duration: config.timeout,
        orElse: () =>
          Effect.fail(new ProviderTimeout({ message: `${path}: no answer within ${Duration.format(config.timeout)}` }))
      })
    )

  return Providers.of({
    name: "http",
    quote: (request) =>
      post("/quote", request, QuoteAnswer, { undecodable: "transient" }).pipe(
        Effect.map((answer) => Option.getOrThrow(answer).offers as ReadonlyArray<Quote>)
      ),
    execute: ({ document, key, proposalHash }) =>
      post("/execute", { key, proposalHash, document }, ExecuteAnswer, { key, undecodable: "timeout" }).pipe(
        Effect.map(Option.getOrThrow)
      ),
    inspect: (key) =>
      post("/inspect", { key }, InspectAnswer, { key, notFoundIsNone: true, undecodable: "transient" }).pipe(
        Effect.map((answer) => answer as Option.Option<Inspection>),
        Effect.catchTag("ProviderPermanent", (error) => Effect.fail(new ProviderTransient(error)))
      ),
    cancel: (key) => post("/cancel", { key }, Schema.Unknown, { key, undecodable: "transient" }).pipe(Effect.asVoid)
  })
})).pipe(Layer.provide(FetchHttpClient.layer))
