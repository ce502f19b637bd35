import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { randomBytes } from "node:crypto"
import { approvalChecks } from "./ApprovalChecks.ts"
import type { Check } from "./Check.ts"
import { makeJobApi } from "./JobApi.ts"
import { jobChecks } from "./JobChecks.ts"
import * as Runner from "./Runner.ts"
import { waitlistChecks } from "./WaitlistChecks.ts"

/**
 * `npm run conformance -- --base-url URL [--key KEY] [--sandbox] [--only waitlist|jobs] [--timeout T]`:
 * the project's black-box checks of the waitlist and the Job API, over HTTP only, against any
 * deployment. Exit status 0 only when no check failed.
 */

const parseTimeout = (text: string): Duration.Duration => {
  const trimmed = text.trim()
  const input = /^\d+(\.\d+)?$/.test(trimmed) ? Duration.seconds(Number(trimmed)) : trimmed as Duration.Input
  const duration = Duration.fromInput(input)
  if (Option.isNone(duration) || Duration.toMillis(duration.value) <= 0 || !Duration.isFinite(duration.value)) {
    throw new Error(`seconds (30) or an Effect duration ("30 seconds"), above zero`)
  }
  return duration.value
}

const parseBaseUrl = (text: string): string => {
  const url = URL.canParse(text) ? new URL(text) : undefined
  if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new Error("an http:// or https:// URL")
  }
  return text.replace(/\/+$/, "")
}

const skipping = (checks: ReadonlyArray<Check>, reason: string | undefined) =>
  reason === undefined ? checks : checks.map((item) => ({ ...item, skip: reason }))

const conformance = Command.make("conformance", {
  baseUrl: Flag.String("base-url").pipe(
    Flag.mapTryCatch(parseBaseUrl, (error) => (error as Error).message),
    Flag.withDescription("the deployment, e.g. http://localhost:8080")
  ),
  key: Flag.Redacted("key").pipe(
    Flag.optional,
    Flag.withDescription("an API key with jobs:read,jobs:write,approvals:write; without it the Job API is skipped")
  ),
  sandbox: Flag.Boolean("sandbox").pipe(
    Flag.withDefault(false),
    Flag.withDescription("the deployment's provider is the sandbox: also approve proposals and execute them")
  ),
  only: Flag.Literals("only", ["waitlist", "jobs"]).pipe(
    Flag.optional,
    Flag.withDescription("run only the checks of the waitlist, or only those of the Job API")
  ),
  timeout: Flag.String("timeout").pipe(
    Flag.withDefault("30 seconds"),
    Flag.mapTryCatch(parseTimeout, (error) => (error as Error).message),
    Flag.withDescription("the longest one check may take, waits included: seconds, or an Effect duration")
  )
}, (options) =>
  Effect.gen(function*() {
    const runId = randomBytes(4).toString("hex")
    const only = Option.getOrUndefined(options.only)
    const key = Option.map(options.key, Redacted.value)
    const api = makeJobApi(options.baseUrl, Option.getOrElse(key, () => ""), runId)
    const jobsSkip = Option.isNone(key) ? "needs --key" : undefined
    const approvalsSkip = jobsSkip ?? (options.sandbox ? undefined : "needs --sandbox: it approves spending")
    const checks = [
      ...(only === "jobs" ? [] : waitlistChecks(options.baseUrl, runId)),
      ...(only === "waitlist" ? [] : [
        ...skipping(jobChecks(api), jobsSkip),
        ...skipping(approvalChecks(api), approvalsSkip)
      ])
    ]
    yield* Console.log(`Conformance run ${runId} against ${options.baseUrl}`)
    const summary = yield* Runner.run(checks, options.timeout)
    yield* Console.log(Runner.summaryLine(summary))
    if (summary.failed > 0) process.exitCode = 1
  })).pipe(
    Command.withDescription(
      "Check a deployment of the request-coordination service against docs/API.md, over HTTP. It adds test"
        + " addresses (conformance+<run>-<n>@example.com) to the waitlist and, with --key, Jobs to the key's account."
    )
  )

Command.run(conformance, { version: "0.1.0" }).pipe(
  Effect.provide(NodeServices.layer),
  Effect.provide(NodeHttpClient.layerNodeHttp),
  NodeRuntime.runMain
)
