import { Console, Effect, Stdio, Stream } from "effect"
import type { Layer } from "effect"
import { Command, Flag } from "effect/cli"
import type { SqlClient } from "effect/sql"
import * as Migrations from "../services/Migrations.ts"
import { Waitlist } from "../services/Waitlist.ts"
import * as Export from "./Export.ts"

/**
 * The operator's command line. Each command opens the store when it runs, so `--help` and mistyped
 * commands answer at once.
 */
export const make = <E>(store: Layer.Layer<Waitlist | SqlClient.SqlClient, E>) => {
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

  return Command.make("request-coordination").pipe(
    Command.withDescription("Operate the request-coordination service (on DATABASE_URL, or the embedded DATA_DIR)."),
    Command.withSubcommands([
      Command.make("waitlist").pipe(
        Command.withDescription("The early-access waitlist."),
        Command.withSubcommands([count, exportMembers])
      ),
      Command.make("db").pipe(
        Command.withDescription("The database."),
        Command.withSubcommands([migrate])
      )
    ])
  )
}
