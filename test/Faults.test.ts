import { PgClient } from "@effect/sql-pg"
import { assert, describe, layer } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Layer, Option, Redacted, Stream } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import type { SqlClient } from "effect/sql"
import { performance } from "node:perf_hooks"
import * as Database from "../src/services/store/Database.ts"
import * as Migrations from "../src/services/store/Migrations.ts"
import * as SqlWaitlist from "../src/services/waitlist/SqlWaitlist.ts"
import { Waitlist } from "../src/services/waitlist/Waitlist.ts"
import type { RawResponse } from "./support/Http.ts"
import { baseUrl, join, serverWith } from "./support/Http.ts"
import * as TcpProxy from "./support/TcpProxy.ts"
import { adminUrl, freshPostgresDatabase, kind, pgliteOnPort } from "./support/TestDatabase.ts"
import * as WallClock from "./support/WallClock.ts"

/**
 * The waitlist in front of a database that hangs or goes down: it must answer 503 with a
 * `Retry-After`, start while the database is down, and recover by itself once it is back. Under
 * `npm run test:faults` every answer must also come within 3 s and the recovery within 10 s
 * (test/support/WallClock.ts); `npm test` waits as long as a loaded machine needs. The service reaches
 * its database only through a `TcpProxy`, whose mode each case switches.
 */

let counter = 0
const unique = (local: string) => `${local}.${process.pid}.${++counter}@faults.example.com`

const unavailableBody = `{"error":"unavailable"}`
const joinedBody = `{"status":"joined"}`
const answerWithin = 3_000
const recoverWithin = WallClock.patience(10_000)
const answerPatience = WallClock.patience(10_000)
/** The bound the test names, where it holds one. */
const within = WallClock.bounded ? " within 3 s" : ""

// ---------------------------------------------------------------------------------------------
// The upstream database: a fresh PostgreSQL database on TEST_DATABASE_URL's server, or a fresh
// PGlite served on a loopback port. `url` reaches it directly, bypassing the proxy.
// ---------------------------------------------------------------------------------------------

interface Upstream {
  readonly host: string
  readonly port: number
  readonly url: URL
}

// One backend, shared by the service's pool, the connections it replaces and the test's own client.
const pgliteUpstream = Effect.map(pgliteOnPort("waitlist-faults-"), (port): Upstream => {
  const host = "127.0.0.1"
  return { host, port, url: new URL(`postgres://postgres@${host}:${port}/postgres`) }
})

const postgresUpstream = (admin: string) =>
  Effect.map(freshPostgresDatabase(admin), (url): Upstream => ({
    host: url.hostname,
    port: Number(url.port === "" ? 5432 : url.port),
    url
  }))

const upstream = adminUrl === undefined ? pgliteUpstream : postgresUpstream(adminUrl)

// ---------------------------------------------------------------------------------------------
// The fixture: upstream, proxy, and a client that reaches the upstream directly.
// ---------------------------------------------------------------------------------------------

class Faults extends Context.Service<Faults, {
  readonly proxy: TcpProxy.TcpProxy
  /** `DATABASE_URL` as the service sees it: the upstream's database, through the proxy. */
  readonly databaseUrl: string
  /** The upstream database, not through the proxy. */
  readonly direct: SqlClient.SqlClient
}>()("test/Faults") {}

const fixture = (initial: TcpProxy.Mode) =>
  Layer.effect(Faults)(Effect.gen(function*() {
    const target = yield* upstream
    const proxy = yield* TcpProxy.make({ host: target.host, port: target.port }, initial)
    const viaProxy = new URL(target.url)
    viaProxy.hostname = proxy.host
    viaProxy.port = String(proxy.port)
    const direct = yield* PgClient.make({ url: Redacted.make(target.url.toString()), maxConnections: 1 }).pipe(
      Effect.provide(Reactivity.layer),
      Effect.orDie
    )
    return { proxy, databaseUrl: viaProxy.toString(), direct }
  }))

const serviceConfig = ConfigProvider.layer(Effect.gen(function*() {
  const { databaseUrl } = yield* Faults
  return ConfigProvider.fromUnknown({
    DATABASE_URL: databaseUrl,
    DB_CONNECT_TIMEOUT: "1 second",
    DB_STATEMENT_TIMEOUT: "2 seconds"
  })
}))

/**
 * The real HTTP stack over the live waitlist, migrated at start as the service does (`src/main.ts`),
 * whose database is reached through a proxy that starts in `initial` mode; the same `Waitlist`
 * instance is exposed to the tests.
 */
const stack = (initial: TcpProxy.Mode) => {
  const waitlist = Layer.merge(SqlWaitlist.layer, Migrations.migrateOnStart).pipe(
    Layer.provide(Migrations.layer),
    Layer.provideMerge(Database.layer),
    Layer.provide(serviceConfig)
  )
  return Layer.mergeAll(serverWith(waitlist), waitlist).pipe(Layer.provideMerge(fixture(initial)))
}

// ---------------------------------------------------------------------------------------------
// Requests and what their answers must be.
// ---------------------------------------------------------------------------------------------

interface Answer extends RawResponse {
  readonly email: string
  /** Milliseconds from sending the request to the end of the answer's body. */
  readonly elapsed: number
}

/** One `POST /v1/waitlist` on a new connection, timed; no answer at all (`answerPatience`) fails the test. */
const request = (email: string) =>
  Effect.gen(function*() {
    const url = yield* baseUrl
    const start = performance.now()
    const response = yield* join(url, email).pipe(Effect.timeoutOption(answerPatience))
    const elapsed = performance.now() - start
    if (Option.isNone(response)) return assert.fail(`${email}: no answer within ${answerPatience} ms`)
    return { ...response.value, email, elapsed } satisfies Answer
  })

const describeAnswer = (answer: Answer) =>
  `${answer.email}: ${answer.status} ${JSON.stringify(answer.body)} retry-after=${answer.headers["retry-after"]} in ${
    Math.round(answer.elapsed)
  } ms`

/**
 * What is wrong with an answer that must be a 503 `unavailable`: exact status and body, a
 * `Retry-After` of whole seconds in 1..30, all within 3 s under test:faults. Empty when nothing is.
 */
const unavailableViolations = (answer: Answer): Array<string> => {
  const problems: Array<string> = []
  const retryAfter = answer.headers["retry-after"]
  if (answer.status !== 503) problems.push("status is not 503")
  if (answer.body !== unavailableBody) problems.push(`body is not ${unavailableBody}`)
  if (typeof retryAfter !== "string" || !/^[0-9]+$/.test(retryAfter)) {
    problems.push("Retry-After is missing or not whole seconds")
  } else if (Number(retryAfter) < 1 || Number(retryAfter) > 30) {
    problems.push("Retry-After is not within 1..30")
  }
  if (WallClock.bounded && !(answer.elapsed < answerWithin)) problems.push(`answered after ${answerWithin} ms`)
  return problems.map((problem) => `${problem}: ${describeAnswer(answer)}`)
}

/** What is wrong with an answer that must be a 200 `joined` (within 3 s under test:faults). */
const joinedViolations = (answer: Answer): Array<string> => {
  const problems: Array<string> = []
  if (answer.status !== 200) problems.push("status is not 200")
  if (answer.body !== joinedBody) problems.push(`body is not ${joinedBody}`)
  if (WallClock.bounded && !(answer.elapsed < answerWithin)) problems.push(`answered after ${answerWithin} ms`)
  return problems.map((problem) => `${problem}: ${describeAnswer(answer)}`)
}

/** Requests `count` new addresses at once; every one is answered, each is timed on its own. */
const burst = (local: string, count: number) =>
  Effect.forEach(Array.from({ length: count }, () => unique(local)), request, { concurrency: "unbounded" })

/**
 * Joins a new address every 250 ms until one is answered 200, for at most `recoverWithin`. Every
 * answer before it must be a proper 503 (a 500 is a violation too, and under test:faults a slow 503).
 */
const recovers = (local: string) =>
  Effect.gen(function*() {
    const start = performance.now()
    const answers: Array<Answer> = []
    while (true) {
      const answer = yield* request(unique(local))
      answers.push(answer)
      if (answer.status === 200 || performance.now() - start > recoverWithin) break
      yield* Effect.sleep("250 millis")
    }
    const last = answers[answers.length - 1]!
    const violations = [...answers.slice(0, -1).flatMap(unavailableViolations), ...joinedViolations(last)]
    const took = Math.round(performance.now() - start)
    if (last.status !== 200) violations.push(`not recovered within ${recoverWithin} ms (${answers.length} tries)`)
    return { joined: last.status === 200 ? [last] : [], violations, took, tries: answers.length }
  })

/** Fails listing every violation, one a line. */
const assertNone = (violations: ReadonlyArray<string>, what: string) =>
  assert.strictEqual(violations.length, 0, `${what}:\n${violations.join("\n")}\n`)

const storedEmails = Effect.gen(function*() {
  const waitlist = yield* Waitlist
  const members = yield* Stream.runCollect(waitlist.members)
  return new Set(members.map((member) => member.email as string))
})

/** The addresses of `answers` that the store does not hold. */
const missing = (answers: ReadonlyArray<Answer>) =>
  Effect.map(storedEmails, (stored) => answers.filter((answer) => !stored.has(answer.email)).map((a) => a.email))

const faultThenRecoveryWith = (
  proxy: TcpProxy.TcpProxy,
  fault: (proxy: TcpProxy.TcpProxy) => Effect.Effect<void>,
  name: string
) =>
  Effect.gen(function*() {
    yield* proxy.pass
    const warm = yield* recovers(`warm-${name}`)
    assertNone(warm.violations, "the service is not healthy before the fault")
    assertNone(
      (yield* burst(`warm-${name}`, 6)).flatMap(joinedViolations),
      "the service is not healthy before the fault"
    )
    assert.isAtLeast(yield* proxy.open, 1, "no pooled connection for the fault to catch")

    yield* fault(proxy)
    const acceptedBefore = yield* proxy.accepted
    const during = [
      yield* request(unique(name)),
      yield* request(unique(name)),
      ...yield* burst(`${name}-burst`, 8),
      yield* request(unique(name))
    ]
    const acceptedDuring = (yield* proxy.accepted) - acceptedBefore

    yield* proxy.pass
    const recovery = yield* recovers(`after-${name}`)
    const after = recovery.joined.length === 0 ? [] : yield* burst(`after-${name}-burst`, 4)
    const joined = [...recovery.joined, ...after]
    const slowest = Math.round(Math.max(...during.map((answer) => answer.elapsed)))
    yield* Effect.logInfo(
      `${name}: ${during.length} answers during the fault, slowest ${slowest} ms;`,
      `recovered after ${recovery.took} ms and ${recovery.tries} tries`
    )
    return {
      violations: [
        ...during.flatMap(unavailableViolations),
        ...recovery.violations,
        ...after.flatMap(joinedViolations)
      ],
      acceptedDuring,
      recovery,
      notStored: joined.length === 0 ? [] : yield* missing(joined)
    }
  })

/**
 * One fault, start to end: from a warm service (pooled connections open and idle, so the fault
 * catches existing ones), `fault` is switched on and `during` answers are collected; then the
 * database comes back and the service must answer 200 again by itself, storing what it accepted.
 * Everything is checked at the end, so that one report shows every answer that went wrong.
 */
const faultThenRecovery = (fault: (proxy: TcpProxy.TcpProxy) => Effect.Effect<void>, name: string) =>
  Effect.gen(function*() {
    const { proxy } = yield* Faults
    return yield* faultThenRecoveryWith(proxy, fault, name).pipe(Effect.ensuring(proxy.pass))
  })

const tableExists = Effect.gen(function*() {
  const { direct } = yield* Faults
  const [row] = yield* direct<{ readonly name: string | null }>`SELECT to_regclass('waitlist_members')::text AS name`
  return row?.name != null
}).pipe(Effect.orDie)

describe(`Waitlist under database faults (${kind} behind a TCP proxy)`, () => {
  layer(stack("pass"), { excludeTestServices: true, timeout: "30 seconds" })("a running service", (it) => {
    it.effect("answers 200 while the database passes traffic", () =>
      Effect.gen(function*() {
        const { proxy } = yield* Faults
        assert.strictEqual(yield* proxy.mode, "pass")
        const answers = [yield* request(unique("pass")), ...yield* burst("pass-burst", 4)]
        assertNone(answers.flatMap(joinedViolations), "answers")
        assert.deepStrictEqual(yield* missing(answers), [], "answered 200 but not stored")
      }), 240_000)

    it.effect(
      `answers 503${within} while the database hangs, and 200 again once it is back`,
      () =>
        Effect.gen(function*() {
          const result = yield* faultThenRecovery((proxy) => proxy.hang, "hang")
          assertNone(result.violations, "answers during and after the fault")
          assert.deepStrictEqual(result.notStored, [], "answered 200 but not stored")
        }),
      240_000
    )

    it.effect(
      `answers 503${within} while the database is down, and 200 again once it is back`,
      () =>
        Effect.gen(function*() {
          const result = yield* faultThenRecovery((proxy) => proxy.down, "down")
          assertNone(result.violations, "answers during and after the fault")
          // The 503s come from failed attempts to reach the database, not from a short circuit.
          assert.isAbove(result.acceptedDuring, 0, "the service never tried to reconnect")
          assert.deepStrictEqual(result.notStored, [], "answered 200 but not stored")
        }),
      240_000
    )
  })

  layer(stack("down"), { excludeTestServices: true, timeout: "30 seconds" })(
    "a service started while the database is down",
    (it) => {
      it.effect(
        `answers 503${within}, then 200 once the database is up, without a restart`,
        () =>
          Effect.gen(function*() {
            const { proxy } = yield* Faults
            assert.strictEqual(yield* proxy.mode, "down")
            assert.isFalse(yield* tableExists, "the database is not fresh")

            const during = [yield* request(unique("cold")), ...yield* burst("cold-burst", 3)]
            assertNone(during.flatMap(unavailableViolations), "answers while down")
            assert.isAbove(yield* proxy.accepted, 0, "the service never tried to connect")
            assert.isFalse(yield* tableExists, "migrations ran while the database was down")

            yield* proxy.pass
            const recovery = yield* recovers("after-start")
            assertNone(recovery.violations, "answers once the database is up")
            assert.isTrue(yield* tableExists, "the schema was not migrated once the database was up")
            assert.deepStrictEqual(yield* missing(recovery.joined), [], "answered 200 but not stored")
          }),
        240_000
      )
    }
  )
})
