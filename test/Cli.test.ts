import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { execFile } from "node:child_process"
import { Email } from "../src/schema/Waitlist.ts"
import { layerMigrated as waitlistOnStore } from "../src/services/waitlist/SqlWaitlist.ts"
import { Waitlist } from "../src/services/waitlist/Waitlist.ts"
import * as TestDatabase from "./support/TestDatabase.ts"

/** The command line as an operator runs it, in its own process, on the given store. */
const cli = (env: Record<string, string>, args: ReadonlyArray<string>) =>
  Effect.callback<string>((resume) => {
    execFile(process.execPath, ["src/cli.ts", ...args], { env: { ...process.env, ...env }, encoding: "buffer" }, (
      error,
      stdout,
      stderr
    ) => {
      if (error) resume(Effect.die(new Error(`${args.join(" ")}: ${error.message}\n${stderr.toString()}`)))
      else resume(Effect.succeed(stdout.toString("utf8")))
    })
  })

/** A strict RFC 4180 reader: CRLF records, quoted fields with doubled quotes. */
const parseCsv = (text: string): Array<Array<string>> => {
  const records: Array<Array<string>> = []
  let record: Array<string> = []
  let field = ""
  let i = 0
  while (i < text.length) {
    if (text[i] === "\"") {
      i++
      while (true) {
        const end = text.indexOf("\"", i)
        assert.notStrictEqual(end, -1, "unterminated quoted field")
        field += text.slice(i, end)
        i = end + 1
        if (text[i] !== "\"") break
        field += "\""
        i++
      }
    }
    if (text.startsWith("\r\n", i)) {
      records.push([...record, field])
      record = []
      field = ""
      i += 2
    } else if (text[i] === ",") {
      record.push(field)
      field = ""
      i++
    } else {
      assert.notMatch(text[i]!, /["\r\n]/, `stray character at ${i}`)
      field += text[i]
      i++
    }
  }
  assert.strictEqual(record.length + field.length, 0, "the last record is not terminated by CRLF")
  return records
}

const run = `${process.pid}.${Date.now().toString(36)}`
const odd = [
  `nul\u0000byte.${run}@example.com`,
  `ctl\u0001\u007f.${run}@example.com`,
  `"quoted"".${run}@example.com`,
  `comma,here.${run}@example.com`,
  `semi;colon.${run}@example.com`,
  `emoji😀𝄞.${run}@exämple.com`,
  `=formula.${run}@example.com`,
  `plain.${run}@example.com`
]

const store = waitlistOnStore().pipe(Layer.provideMerge(TestDatabase.layerWithEnv))

layer(store, { excludeTestServices: true, timeout: "120 seconds" })(
  `the operator's command line (${TestDatabase.kind}, while the service holds the store)`,
  (it) => {
    it.effect("counts, and exports odd addresses that round-trip exactly, in registration order", () =>
      Effect.gen(function*() {
        const waitlist = yield* Waitlist
        const env = yield* TestDatabase.StoreEnv
        for (const address of odd) yield* waitlist.join(Schema.decodeUnknownSync(Email)(address))
        yield* waitlist.join(Schema.decodeUnknownSync(Email)(odd[0]!.toUpperCase()))

        assert.strictEqual(yield* cli(env, ["waitlist", "count"]), `${odd.length}\n`)

        const csv = parseCsv(yield* cli(env, ["waitlist", "export", "--format", "csv"]))
        assert.deepStrictEqual(csv[0], ["email", "registered_at"])
        assert.deepStrictEqual(csv.slice(1).map(([email]) => email), odd)
        for (const [, registeredAt] of csv.slice(1)) {
          assert.strictEqual(new Date(registeredAt!).toISOString(), registeredAt)
        }

        const jsonl = (yield* cli(env, ["waitlist", "export", "--format", "jsonl"])).split("\n")
        assert.strictEqual(jsonl.pop(), "")
        const rows = jsonl.map((line) => JSON.parse(line) as { email: string; registeredAt: string })
        assert.deepStrictEqual(rows.map((row) => row.email), odd)
        assert.deepStrictEqual(rows.map((row) => row.registeredAt), csv.slice(1).map(([, at]) => at))
      }))

    it.effect("reports migrations already applied", () =>
      Effect.gen(function*() {
        const env = yield* TestDatabase.StoreEnv
        yield* (yield* Waitlist).count // the service has migrated
        assert.strictEqual(yield* cli(env, ["db", "migrate"]), "Up to date.\n")
      }))
  }
)
