import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type { Interpretation, InterpretInput } from "./Interpretation.ts"
import type { ModelConfig } from "./ModelReader.ts"
import { interpretRequest } from "./Request.ts"

export { interpretRequest }
export type {
  Answer,
  Interpretation,
  InterpretedConstraint,
  InterpretInput,
  NeedsInput,
  Understood
} from "./Interpretation.ts"

/**
 * Reads what the User wants from their words, the caller's constraints and the answers given so far.
 * It never fails: what it cannot read becomes a question.
 */
export class Interpreter extends Context.Service<Interpreter, {
  readonly interpret: (input: InterpretInput) => Effect.Effect<Interpretation>
}>()("Interpreter") {}

export const layerOffline: Layer.Layer<Interpreter> = Layer.succeed(Interpreter)({
  interpret: (input) => Effect.sync(() => interpretRequest(input))
})

/** The language model (effect/ai), falling back to the rule-based reader on any error, timeout or refused answer. */
export const layerModel = (config: ModelConfig): Layer.Layer<Interpreter> =>
  Layer.effect(Interpreter)(Effect.flatMap(Effect.promise(() => import("./ModelReader.ts")), (m) => m.make(config)))

/** `INTERPRETER`: `offline` (the default, rule-based) or `llm` (`INTERPRETER_LLM_*`, see the README). */
export const InterpreterKind = Config.schema(Schema.Literals(["offline", "llm"]), "INTERPRETER").pipe(
  Config.withDefault("offline" as const)
)

export const layer: Layer.Layer<Interpreter, Config.ConfigError> = Layer.unwrap(Effect.gen(function*() {
  if ((yield* InterpreterKind) === "offline") return layerOffline
  const { ModelConfig } = yield* Effect.promise(() => import("./ModelReader.ts"))
  return layerModel(yield* ModelConfig)
}))

/**
 * For other services' tests: a scripted interpretation for the requests a test names (by their exact
 * text; a function receives the whole input, answers included), the rule-based reader for the rest.
 */
export const layerScripted = (
  script: Readonly<Record<string, Interpretation | ((input: InterpretInput) => Interpretation)>> = {}
): Layer.Layer<Interpreter> =>
  Layer.succeed(Interpreter)({
    interpret: (input) =>
      Effect.sync(() => {
        const scripted = Object.hasOwn(script, input.request) ? script[input.request]! : interpretRequest
        return typeof scripted === "function" ? scripted(input) : scripted
      })
  })
