import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { ProposalDocument } from "../../../schema/Proposal.ts"
import type { ProviderTimeout, ProviderTransient } from "../../providers/Provider.ts"
import { Providers } from "../../providers/Provider.ts"
import * as Execution from "../rules/Execution.ts"
import type { Verification } from "../rules/Execution.ts"

/**
 * Checks that a side effect happened as proposed, from the provider's independent record of the key
 * (`inspect`), not from the execution's answer: same offer, same currency, at most `spend`, terms kept.
 * It keeps nothing, so one layer serves both stores.
 */
export class Verifier extends Context.Service<Verifier, {
  readonly verify: (
    document: ProposalDocument,
    key: string
  ) => Effect.Effect<Verification, ProviderTransient | ProviderTimeout>
}>()("Verifier") {}

export const layer = Layer.effect(Verifier)(Effect.gen(function*() {
  const providers = yield* Providers
  return Verifier.of({
    verify: (document, key) =>
      Effect.map(providers.inspect(key), (inspection) => Execution.compare(document, Option.getOrNull(inspection)))
  })
}))
