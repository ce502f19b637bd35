import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as HttpClient from "effect/http/HttpClient"
import * as Schema from "effect/Schema"
import type { Answer } from "./Http.ts"
import { Mismatch } from "./Mismatch.ts"

export interface Check {
  readonly name: string
  readonly run: Effect.Effect<void, Mismatch, HttpClient.HttpClient>
  /** Why it is not run, when it is not. */
  readonly skip?: string | undefined
}

export const check = (name: string, run: Check["run"]): Check => ({ name, run })

/** When the running check's time is up: waits end here, so that they can say what they were waiting for. */
export const Deadline = Context.Reference<number>("conformance/Deadline", { defaultValue: () => Infinity })

export const mismatch = (expected: string, got: string) => Effect.fail(new Mismatch({ expected, got }))

export const expectThat = (holds: boolean, expected: string, got: string) =>
  holds ? Effect.void : mismatch(expected, got)

const clip = (text: string, length = 240) => text.length <= length ? text : `${text.slice(0, length)}…`

/** An answer as a failure line shows it: its status and the start of its body. */
export const show = (answer: Answer) => clip(`${answer.status} ${answer.body === "" ? "(empty body)" : answer.body}`)

const showValue = (value: unknown) => clip(JSON.stringify(value) ?? String(value))

/**
 * The result of an effect that several checks share (a Job they all look at), computed by the first
 * check that needs it; a failure is every later check's failure too, named after what could not be set up.
 */
export const once = <A>(label: string, effect: Effect.Effect<A, Mismatch, HttpClient.HttpClient>) => {
  let result: Exit.Exit<A, Mismatch> | undefined
  // Cut short by its check's timeout, it is not tried again by every later check.
  const hung = Exit.fail(new Mismatch({ expected: "an end in time", got: "a request that did not end" }))
  return Effect.suspend(() => {
    if (result !== undefined) return result
    return Effect.exit(effect).pipe(
      Effect.onInterrupt(() => Effect.sync(() => result = hung)),
      Effect.flatMap((exit) => {
        result = exit
        return exit
      })
    )
  }).pipe(
    Effect.mapError((failure) =>
      failure.setUp !== undefined
        ? failure
        : new Mismatch({ expected: `${label}: ${failure.expected}`, got: failure.got, setUp: label })
    )
  )
}

export const expectStatus = (answer: Answer, status: number) =>
  expectThat(answer.status === status, String(status), show(answer))

export const expectHeader = (answer: Answer, name: string, value: string) =>
  expectThat(
    answer.headers[name] === value,
    `${name}: ${value}`,
    answer.headers[name] === undefined ? `no ${name} header (${show(answer)})` : `${name}: ${answer.headers[name]}`
  )

/** Exactly this status and these bytes, as application/json. */
export const expectExact = (answer: Answer, status: number, body: string) =>
  Effect.gen(function*() {
    yield* expectThat(answer.status === status && answer.body === body, `${status} ${body}`, show(answer))
    yield* expectHeader(answer, "content-type", "application/json")
  })

export const parseJson = (answer: Answer): Effect.Effect<unknown, Mismatch> =>
  Effect.try({
    try: () => JSON.parse(answer.body) as unknown,
    catch: () => new Mismatch({ expected: "a JSON body", got: show(answer) })
  })

/** The Job API's error document: `{"error": code, "message": text}`, as application/json. */
export const expectError = (answer: Answer, status: number, code: string) =>
  Effect.gen(function*() {
    const expected = `${status} {"error":"${code}","message":…}`
    yield* expectThat(answer.status === status, expected, show(answer))
    const body = yield* parseJson(answer)
    const document = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>
    yield* expectThat(
      Object.keys(document).join(",") === "error,message" && document.error === code
        && typeof document.message === "string" && document.message.length > 0,
      expected,
      show(answer)
    )
    yield* expectHeader(answer, "content-type", "application/json")
    return document.message as string
  })

/** A document of the Job API, read with the project's own schema of it: no member missing, none more. */
export const decode =
  <S extends Schema.Constraint & { readonly DecodingServices: never }>(schema: S, what: string) =>
  (value: unknown): Effect.Effect<S["Type"], Mismatch> =>
    Schema.decodeUnknownEffect(schema, { onExcessProperty: "error" })(value).pipe(
      Effect.mapError((error) =>
        new Mismatch({ expected: what, got: `${clip(error.message, 160)} in ${showValue(value)}` })
      )
    )

/**
 * Reads until `done` holds, every 100 ms, until the check's deadline: the service works in the
 * background, so a Job reaches a state some time after the request that started it.
 */
export const poll = <A>(
  what: string,
  read: Effect.Effect<A, Mismatch, HttpClient.HttpClient>,
  done: (value: A) => boolean,
  showLast: (value: A) => string
) =>
  Effect.gen(function*() {
    const deadline = yield* Deadline
    while (true) {
      const value = yield* read
      if (done(value)) return value
      if (Date.now() >= deadline) return yield* mismatch(`${what} before the check's timeout`, showLast(value))
      yield* Effect.sleep("100 millis")
    }
  })
