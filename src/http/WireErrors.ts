import * as Effect from "effect/Effect"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import {
  CursorExpired,
  ErrorBody,
  IdempotencyKeyReused,
  InvalidRequest,
  InvalidState,
  NotFound,
  ProposalExpired,
  ProposalMismatch,
  RevisionMismatch
} from "../schema/ApiErrors.ts"
import type { KeyReused } from "../services/access/Idempotency.ts"
import type { JobFailure } from "../services/jobs/rules/JobErrors.ts"

/** Why the services behind the Job API refuse a request, in their own words. */
type Refusal = JobFailure | KeyReused

/**
 * The one wire error of each refusal: what every Job endpoint and an approval page answer for it, and
 * what an idempotent replay answers again.
 */
const refusals = {
  UnknownJob: ({ message }) => Effect.fail(new NotFound({ message })),
  StaleRevision: ({ message }) => Effect.fail(new RevisionMismatch({ message })),
  WrongState: ({ message }) => Effect.fail(new InvalidState({ message })),
  ProposalNotOpen: ({ message }) => Effect.fail(new ProposalMismatch({ message })),
  ProposalLapsed: ({ message }) => Effect.fail(new ProposalExpired({ message })),
  RejectedInput: ({ message }) => Effect.fail(new InvalidRequest({ message })),
  HistoryPruned: ({ message }) => Effect.fail(new CursorExpired({ message })),
  KeyReused: ({ message }) => Effect.fail(new IdempotencyKeyReused({ message }))
} satisfies { readonly [F in Refusal as F["_tag"]]: (refusal: F) => Effect.Effect<never, unknown> }

type Refusals = typeof refusals

/** The errors of a call that fails with `E` once its refusals are their wire errors, as the table says. */
type Wired<E> = Exclude<E, Refusal> | Effect.Error<ReturnType<Refusals[Extract<E, Refusal>["_tag"]]>>

/**
 * Runs a service call with its refusals as their wire errors (the table, by `Effect.catchTags`) and its
 * other errors (`Unavailable`, ...) as they are. Its type keeps only the wire errors of the refusals the
 * call can make, as its endpoint declares them: at a call, `Effect.catchTags` refuses handlers for errors
 * the call cannot make, and here it would type every call with every wire error of the table.
 */
export function wire<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, Wired<E>, R>
export function wire<A, R>(effect: Effect.Effect<A, Refusal, R>) {
  return Effect.catchTags(effect, refusals)
}

/**
 * The status HttpApi answers a declared error with: its schema's `httpApiStatus` (HttpApi's own reader,
 * `HttpApiSchema.getStatusErrorSchema`, is internal to effect).
 */
const statusOf = (schema: Schema.Top) => SchemaAST.resolveAt<number>("httpApiStatus")(schema.ast) ?? 500

/**
 * A declared error as HttpApi answers it: the JSON its schema encodes it to, with the schema's status;
 * and `headers` its schema cannot carry, if any (they go first, as they always have on the wire).
 */
export const answer = <T>(schema: Schema.Codec<T, ErrorBody>, error: T, headers?: Readonly<Record<string, string>>) =>
  HttpServerResponse.jsonUnsafe(Schema.encodeSync(schema)(error), { status: statusOf(schema), headers })

/** A declared error whose schema carries headers too (`HttpApiSchema.encodeToWithHeaders`). */
export const answerWithHeaders = <T>(
  schema: Schema.Codec<T, { readonly body: ErrorBody; readonly headers: Readonly<Record<string, string>> }>,
  error: T
) => {
  const { body, headers } = Schema.encodeSync(schema)(error)
  return HttpServerResponse.jsonUnsafe(body, { status: statusOf(schema), headers })
}

const isErrorBody = Schema.is(ErrorBody)

/**
 * A wire error as HttpApi answers it: a 4xx the contract declares as its own class (a `Schema.Error` of
 * `{"error", "message"}`, as every wire error of the table is), encoded by its class with the class's
 * status. Anything else (`Unavailable`, a 503) fails as it is.
 */
export const answerWireError = <E>(error: E): Effect.Effect<HttpServerResponse.HttpServerResponse, E> => {
  const schema: unknown = typeof error === "object" && error !== null ? error.constructor : undefined
  if (!Schema.isSchema(schema)) return Effect.fail(error)
  const status = statusOf(schema)
  const body = Schema.encodeUnknownOption(schema as Schema.Codec<unknown, unknown>)(error)
  return status >= 400 && status <= 499 && Option.isSome(body) && isErrorBody(body.value)
    ? Effect.succeed(HttpServerResponse.jsonUnsafe(body.value, { status }))
    : Effect.fail(error)
}
