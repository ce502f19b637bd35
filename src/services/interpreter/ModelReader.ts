import { Config, Duration, Effect, Layer, Option, Redacted, Schema, Stream } from "effect"
import { AiError, LanguageModel } from "effect/ai"
import { FetchHttpClient, HttpClient, HttpClientRequest, HttpClientResponse } from "effect/http"
import { ConstraintInput, Objective, Question } from "../../schema/Constraint.ts"
import { PositiveDuration } from "../access/Idempotency.ts"
import type { Interpretation, InterpretInput } from "./Interpreter.ts"
import { interpretRequest } from "./Request.ts"

/** `INTERPRETER=llm` with an OpenAI-compatible endpoint; every setting but the key is required then. */
export const ModelConfig = Config.all({
  baseUrl: Config.String("INTERPRETER_LLM_BASE_URL"),
  model: Config.String("INTERPRETER_LLM_MODEL"),
  apiKey: Config.option(Config.Redacted("INTERPRETER_LLM_API_KEY")),
  timeout: Config.schema(PositiveDuration, "INTERPRETER_LLM_TIMEOUT").pipe(Config.withDefault(Duration.seconds(10)))
})
export type ModelConfig = Config.Success<typeof ModelConfig>

const Completion = Schema.Struct({
  choices: Schema.NonEmptyArray(Schema.Struct({ message: Schema.Struct({ content: Schema.String }) }))
})

const failure = (description: string) =>
  AiError.make({ module: "Interpreter", method: "chatCompletions", reason: new AiError.UnknownError({ description }) })

/**
 * effect/ai's LanguageModel over an OpenAI-compatible `POST {base}/chat/completions`, asking for a JSON
 * object (effect 4.1 ships no OpenAI provider of its own, and `@effect/ai-openai-compat` is built for the
 * 4.0 betas' module paths).
 */
export const openAiCompatible = (config: ModelConfig): Layer.Layer<LanguageModel.LanguageModel> =>
  Layer.effect(
    LanguageModel.LanguageModel,
    Effect.gen(function*() {
      const http = yield* HttpClient.HttpClient
      return yield* LanguageModel.make({
        generateText: (options) =>
          Effect.gen(function*() {
            const messages = options.prompt.content.flatMap((m) =>
              m.role === "system" ?
                [{ role: "system", content: m.content }] :
                m.role === "user" ?
                [{ role: "user", content: m.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n") }] :
                []
            )
            const request = HttpClientRequest.post(`${config.baseUrl.replace(/\/$/, "")}/chat/completions`).pipe(
              HttpClientRequest.bodyJsonUnsafe({
                model: config.model,
                messages,
                temperature: 0,
                response_format: { type: "json_object" }
              }),
              (r) =>
                Option.match(config.apiKey, {
                  onNone: () => r,
                  onSome: (key) => HttpClientRequest.bearerToken(r, Redacted.value(key))
                })
            )
            const response = yield* http.execute(request).pipe(Effect.flatMap(HttpClientResponse.filterStatusOk))
            const body = yield* Schema.decodeUnknownEffect(Completion)(yield* response.json)
            return [{ type: "text" as const, text: body.choices[0].message.content }]
          }).pipe(Effect.mapError((e) => failure(String(e)))),
        streamText: () => Stream.fail(failure("streaming is not used"))
      })
    })
  ).pipe(Layer.provide(FetchHttpClient.layer))

/** What the model must answer: the Interpretation, in the same schemas the rest of the service uses. */
export const ModelAnswer = Schema.Struct({
  objective: Schema.NullOr(Objective),
  constraints: Schema.Array(ConstraintInput),
  questions: Schema.Array(Question)
})

const instructions = (input: InterpretInput) =>
  [
    "You read what a person wants done and answer one JSON object {objective, constraints, questions}.",
    "objective: {kind: purchase|reservation|appointment|transport|delivery|service|other, summary} or null.",
    "constraints: only what the words say, as {type:'budget',max:{amount:'180.00',currency:'EUR'}}, {type:'window',",
    "start,end} (RFC 3339 with the place's offset), {type:'deadline',by}, {type:'location',place}, {type:'quantity',",
    "count,unit}, {type:'timezone',zone} (IANA) or {type:'note',text}. questions: {id,text,about} for each fact the",
    "kind needs that is missing, vague or contradictory (ids: q_date, q_time, q_timezone, q_location, q_event,",
    "q_budget, q_budget_amount, q_budget_currency, q_quantity_people, q_quantity, q_objective); never guess.",
    `Now: ${input.createdAt.toString()}. The caller's constraints: ${JSON.stringify(input.constraints)}.`,
    `Answers so far: ${JSON.stringify(input.answers.map((a) => ({ [a.questionId]: a.answer })))}.`,
    `The request: ${JSON.stringify(input.request)}`
  ].join("\n")

/**
 * The language model's reading, checked against the schemas; any error, timeout or answer that does not
 * decode falls back to the offline reader, so the service never depends on the model being there.
 */
export const make = (config: ModelConfig) =>
  Effect.map(Effect.service(LanguageModel.LanguageModel), (model) => ({
    interpret: (input: InterpretInput) =>
      LanguageModel.generateObject({ prompt: instructions(input), schema: ModelAnswer, objectName: "interpretation" })
        .pipe(
          Effect.provideService(LanguageModel.LanguageModel, model),
          Effect.timeout(config.timeout),
          Effect.flatMap(({ value }) =>
            value.questions.length > 0 ?
              Effect.succeed<Interpretation>({ _tag: "NeedsInput", ...value }) :
              value.objective === null ?
              Effect.fail("no objective and no question") :
              Effect.succeed<Interpretation>({
                _tag: "Understood",
                objective: value.objective,
                constraints: value.constraints
              })
          ),
          Effect.catchCause((cause) =>
            Effect.as(
              Effect.logWarning("the language model failed; the offline reader answers", cause),
              interpretRequest(input)
            )
          )
        )
  })).pipe(Effect.provide(openAiCompatible(config)))
