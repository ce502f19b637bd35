import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as HttpProvider from "./HttpProvider.ts"
import { ProviderKind } from "./Provider.ts"
import * as SqlSandbox from "./SqlSandbox.ts"

/**
 * The provider `PROVIDER` names: `sandbox` (the default) or `http`. The sandbox's ledger is served
 * either way, so that the command line can read it.
 */
export const layer = Layer.unwrap(Effect.gen(function*() {
  const kind = yield* ProviderKind
  // The right side of a merge wins: the http provider, beside the sandbox's ledger.
  return kind === "sandbox" ? SqlSandbox.layer : Layer.merge(SqlSandbox.layer, HttpProvider.layer)
}))
