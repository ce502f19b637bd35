import * as AiError from "effect/ai/AiError"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Config from "effect/Config"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type { Evidence, Objective as ObjectiveType } from "../../schema/Constraint.ts"
import { ConstraintInput, Objective, Question } from "../../schema/Constraint.ts"
import { PositiveDuration } from "../../schema/Duration.ts"
import type { Interpretation, InterpretedConstraint, InterpretInput } from "./Interpretation.ts"
import lexicon from "./Lexicon.json" with { type: "json" }
import { interpretRequest } from "./Request.ts"
import type { Source } from "./Text.ts"
import { evidenceOf, Traced, wordsOf } from "./Text.ts"

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
  Layer.effect(LanguageModel.LanguageModel)(Effect.gen(function*() {
    const http = yield* HttpClient.HttpClient
    const url = `${config.baseUrl.replace(/\/$/, "")}/chat/completions`
    const headers = Option.match(config.apiKey, {
      onNone: () => ({}),
      onSome: (k) => ({ authorization: `Bearer ${Redacted.value(k)}` })
    })
    return yield* LanguageModel.make({
      generateText: ({ prompt }) => {
        const text = (m: (typeof prompt.content)[number]) =>
          typeof m.content === "string" ? m.content : m.content.map((p) => ("text" in p ? p.text : "")).join("\n")
        const messages = prompt.content.map((m) => ({ role: m.role, content: text(m) }))
        const body = { model: config.model, messages, temperature: 0, response_format: { type: "json_object" } }
        return http.execute(HttpClientRequest.post(url, { headers }).pipe(HttpClientRequest.bodyJsonUnsafe(body))).pipe(
          Effect.flatMap(HttpClientResponse.filterStatusOk),
          Effect.flatMap((response) => response.json),
          Effect.flatMap(Schema.decodeUnknownEffect(Completion)),
          Effect.map((c) => [{ type: "text" as const, text: c.choices[0].message.content }]),
          Effect.mapError((e) => failure(String(e)))
        )
      },
      streamText: () => Stream.fail(failure("streaming is not used"))
    })
  })).pipe(Layer.provide(FetchHttpClient.layer))

/** Each fact with the person's words it was read from, quoted exactly. */
const Quoted = Schema.Struct({ words: Schema.String })
export const ModelAnswer = Schema.Struct({
  objective: Schema.NullOr(
    Schema.Struct({ kind: Objective.fields.kind, summary: Objective.fields.summary, ...Quoted.fields })
  ),
  constraints: Schema.Array(Schema.Struct({ fact: ConstraintInput, ...Quoted.fields })),
  questions: Schema.Array(Question)
})

/**
 * Where the quoted words are in the request or an answer; words that are not there support nothing, and
 * a fact they were meant to support is dropped (the model's reading never adds a fact the words lack).
 */
const locate = (input: InterpretInput, words: string): Array<Evidence> => {
  const sources: ReadonlyArray<Source> = [
    { text: input.request },
    ...input.answers.map((a) => ({ text: a.answer, answer: { revision: a.revision, questionId: a.questionId } }))
  ]
  const wanted = words.trim().toLowerCase()
  if (wanted === "") return []
  return sources.flatMap((source, i) => {
    const at = source.text.toLowerCase().indexOf(wanted)
    return at < 0 || source.text.toLowerCase().length !== source.text.length ?
      [] :
      evidenceOf(sources, wordsOf(Traced.of(source.text, i), at, at + wanted.length))
  }).slice(0, 1)
}

const supported = (input: InterpretInput, answer: typeof ModelAnswer.Type) => {
  const constraints = answer.constraints.flatMap(({ fact, words }): Array<InterpretedConstraint> => {
    const [first, ...rest] = locate(input, words)
    return first === undefined ? [] : [{ ...fact, evidence: [first, ...rest] }]
  })
  if (answer.objective === null) return { objective: null, constraints }
  const { kind, summary, words } = answer.objective
  const [first, ...rest] = locate(input, words)
  const objective: ObjectiveType = first === undefined
    ? { kind, summary }
    : { kind, summary, evidence: [first, ...rest] }
  return { objective, constraints }
}

const instructions = (input: InterpretInput) =>
  [
    ...lexicon.modelInstructions,
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
          Effect.map(({ value }) => ({ ...supported(input, value), questions: value.questions })),
          Effect.flatMap(({ constraints, objective, questions }): Effect.Effect<Interpretation, string> =>
            questions.length > 0 ?
              Effect.succeed({ _tag: "NeedsInput", objective, constraints, questions }) :
              objective === null ?
              Effect.fail("no objective and no question") :
              Effect.succeed({ _tag: "Understood", objective, constraints })
          ),
          Effect.catchCause((cause) =>
            Effect.as(
              Effect.logWarning("the language model failed; the offline reader answers", cause),
              interpretRequest(input)
            )
          )
        )
  })).pipe(Effect.provide(openAiCompatible(config)))
