import * as Argument from "effect/cli/Argument"
import * as CliError from "effect/cli/CliError"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as SqlClient from "effect/sql/SqlClient"
import * as Stdio from "effect/Stdio"
import * as Stream from "effect/Stream"
import { AccountName, Scope, scopes as allScopes } from "../schema/ApiKey.ts"
import type { KeyInfo } from "../services/access/ApiKeys.ts"
import { ApiKeys, UnknownKey } from "../services/access/ApiKeys.ts"
import { SandboxLedger } from "../services/providers/Sandbox.ts"
import * as Migrations from "../services/store/Migrations.ts"
import { Waitlist } from "../services/waitlist/Waitlist.ts"
import * as Export from "./Export.ts"

const isScope = Schema.is(Scope)

const parseScopes = (text: string): ReadonlyArray<Scope> => {
  const names = text.split(",").map((name) => name.trim())
  const unknown = names.filter((name) => !isScope(name))
  if (unknown.length > 0 || names.length === 0) {
    throw new Error(`unknown scope ${JSON.stringify(unknown[0] ?? "")}; the scopes are ${allScopes.join(", ")}`)
  }
  return names as Array<Scope>
}

const keyLine = (key: KeyInfo) =>
  [
    key.id,
    key.account,
    key.scopes.join(","),
    key.createdAt.toISOString(),
    key.revokedAt === null ? "active" : `revoked ${key.revokedAt.toISOString()}`
  ].join("\t")

/**
 * The operator's command line. Each command opens the store when it runs, so `--help` and mistyped
 * commands answer at once.
 */
export const make = <E>(store: Layer.Layer<Waitlist | ApiKeys | SandboxLedger | SqlClient.SqlClient, E>) => {
  const count = Command.make("count", {}, () =>
    Effect.gen(function*() {
      const waitlist = yield* Waitlist
      yield* Console.log(yield* waitlist.count)
    })).pipe(
      Command.withDescription("Print how many members the waitlist has."),
      Command.provide(store)
    )

  const exportMembers = Command.make("export", {
    format: Flag.Literals("format", Export.formats).pipe(
      Flag.withDefault("csv"),
      Flag.withDescription("csv (RFC 4180, with a header row) or jsonl (one JSON object a line)")
    )
  }, ({ format }) =>
    Effect.gen(function*() {
      const waitlist = yield* Waitlist
      const stdio = yield* Stdio.Stdio
      yield* Stream.run(Export.encode(waitlist.members, format), stdio.stdout())
    })).pipe(
      Command.withDescription(
        "Write every member to standard output in registration order: the exact address and registration time."
      ),
      Command.provide(store)
    )

  const migrate = Command.make("migrate", {}, () =>
    Effect.gen(function*() {
      const applied = yield* Migrations.run
      yield* Console.log(
        applied.length === 0 ? "Up to date." : applied.map(([id, name]) => `Applied ${id} ${name}`).join("\n")
      )
    })).pipe(
      Command.withDescription("Apply pending database migrations."),
      Command.provide(store)
    )

  const createKey = Command.make("create", {
    account: Flag.String("account").pipe(
      Flag.withSchema(AccountName),
      Flag.withDescription("the account the key acts for (created with its first key)")
    ),
    scopes: Flag.String("scopes").pipe(
      Flag.mapTryCatch(parseScopes, (error) => (error as Error).message),
      Flag.withDescription(`comma-separated: ${allScopes.join(",")}`)
    )
  }, (options) =>
    Effect.gen(function*() {
      const issued = yield* (yield* ApiKeys).create(options)
      yield* Console.error(
        `Created ${issued.id} for account ${issued.account} (${issued.accountId}) with ${issued.scopes.join(",")}.`
          + " The key is shown once, on standard output; keep it out of client-side code and source control."
      )
      yield* Console.log(Redacted.value(issued.key))
    })).pipe(
      Command.withDescription("Issue an API key and print it, once. Only its SHA-256 is stored."),
      Command.provide(store)
    )

  const listKeys = Command.make("list", {}, () =>
    Effect.gen(function*() {
      const keys = yield* (yield* ApiKeys).list
      yield* Console.log(["id", "account", "scopes", "created", "status"].join("\t"))
      for (const key of keys) yield* Console.log(keyLine(key))
    })).pipe(
      Command.withDescription("List every API key (never the key itself): id, account, scopes, created, status."),
      Command.provide(store)
    )

  const revokeKey = Command.make("revoke", { id: Argument.String("id") }, ({ id }) =>
    Effect.gen(function*() {
      const key = yield* (yield* ApiKeys).revoke(id).pipe(
        Effect.catchIf(
          (error) => error instanceof UnknownKey,
          (error) => Effect.fail(new CliError.UserError({ cause: error, userMessage: error.message }))
        )
      )
      yield* Console.log(keyLine(key))
    })).pipe(
      Command.withDescription("Revoke an API key by its id: it is refused from the next request on."),
      Command.provide(store)
    )

  const ledger = Command.make("ledger", {
    job: Flag.String("job").pipe(Flag.optional, Flag.withDescription("only the keys of this Job"))
  }, ({ job }) =>
    Effect.gen(function*() {
      const entries = yield* (yield* SandboxLedger).entries(Option.getOrUndefined(job))
      for (const entry of entries) {
        const { calls, effects, jobId, key, proposalHash, state } = entry
        yield* Console.log(JSON.stringify({ key, jobId, proposalHash, calls, effects, state }))
      }
    })).pipe(
      Command.withDescription(
        "Print the sandbox provider's ledger, one JSON line per key: {key, jobId, proposalHash, calls, effects, state}."
      ),
      Command.provide(store)
    )

  return Command.make("request-coordination").pipe(
    Command.withDescription("Operate the request-coordination service (on DATABASE_URL, or the embedded DATA_DIR)."),
    Command.withSubcommands([
      Command.make("waitlist").pipe(
        Command.withDescription("The early-access waitlist."),
        Command.withSubcommands([count, exportMembers])
      ),
      Command.make("keys").pipe(
        Command.withDescription("API keys of the Job API (preview)."),
        Command.withSubcommands([createKey, listKeys, revokeKey])
      ),
      Command.make("sandbox").pipe(
        Command.withDescription("The sandbox provider of the Job API (preview)."),
        Command.withSubcommands([ledger])
      ),
      Command.make("db").pipe(
        Command.withDescription("The database."),
        Command.withSubcommands([migrate])
      )
    ])
  )
}
