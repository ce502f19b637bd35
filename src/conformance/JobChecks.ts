import * as Effect from "effect/Effect"
import { Job, JobPage } from "../schema/Job.ts"
import type { Check } from "./Check.ts"
import { check, decode, expectError, expectHeader, expectStatus, expectThat, once, parseJson, show } from "./Check.ts"
import { eventChecks } from "./EventChecks.ts"
import type { JobApi } from "./JobApi.ts"
import { budget } from "./JobApi.ts"
import { refusalChecks } from "./RefusalChecks.ts"

/**
 * The Job API without spending (docs/API.md, "The Job API"): keys, the order of errors, idempotency,
 * Jobs that ask a question, revisions, cancellation, events and views. Every Job it creates leaves the
 * date open, and its answer does not give one, so that nothing is ever planned: a deployment may plan
 * with a real provider, which executes an offer that costs nothing without an approval. Each Job is
 * cancelled by the end.
 */

/** Leaves the date open, so that the Job asks for it. */
const undated = "Book a table for 4 at an Italian restaurant in Lisbon"
const jobKeys = "id,jobRevision,status,request,constraints,objective,questions,proposal,outcome,createdAt,updatedAt"

export const jobChecks = (api: JobApi): ReadonlyArray<Check> => {
  const createBody = { request: undated, constraints: [budget] }
  const createKey = api.idempotencyKey()

  /** The Job the first create made, with the answer that made it. */
  const created = once(
    "a Job created first",
    Effect.gen(function*() {
      const answer = yield* api.post("/v1/jobs", createBody, { idempotencyKey: createKey })
      yield* expectStatus(answer, 201)
      const job = yield* Effect.flatMap(parseJson(answer), decode(Job, "a Job"))
      return { answer, job }
    })
  )

  /** The same Job once it asks its question. */
  const asked = once(
    "a Job that asks a question",
    Effect.flatMap(created, ({ job }) => api.settled(job.id))
  )

  /** A second Job, whose constraints change. */
  const second = once("a second Job", api.create("Book a table for 2 at a restaurant in Porto", []))

  const createAnswer = Effect.gen(function*() {
    const { answer, job } = yield* created
    yield* expectHeader(answer, "location", `/v1/jobs/${job.id}`)
    yield* expectHeader(answer, "content-type", "application/json")
    const body = JSON.parse(answer.body) as Record<string, unknown>
    yield* expectThat(Object.keys(body).join(",") === jobKeys, `the members ${jobKeys}`, Object.keys(body).join(","))
    const constraint = job.constraints[0]
    yield* expectThat(
      job.jobRevision === 1 && job.status === "interpreting" && job.request === undated
        && job.constraints.length === 1 && constraint?.type === "budget" && constraint.source === "caller"
        && JSON.stringify(constraint.max) === JSON.stringify(budget.max)
        && job.objective === null && job.questions.length === 0 && job.proposal === null && job.outcome === null,
      "revision 1, interpreting, the request verbatim, the budget as a caller constraint with an id, nothing else yet",
      show(answer)
    )
  })

  const replay = Effect.gen(function*() {
    const { answer: first } = yield* created
    yield* expectThat(
      first.headers["idempotent-replayed"] === undefined,
      "no Idempotent-Replayed on the first answer",
      `idempotent-replayed: ${first.headers["idempotent-replayed"]}`
    )
    const respelled =
      `{ "constraints": [{"max": {"currency": "EUR", "amount": "200.00"}, "type": "budget"}],\n "request": ${
        JSON.stringify(undated)
      } }`
    for (const body of [createBody, respelled]) {
      const again = yield* api.post("/v1/jobs", body, { idempotencyKey: createKey })
      yield* expectThat(again.status === first.status && again.body === first.body, show(first), show(again))
      yield* expectHeader(again, "idempotent-replayed", "true")
      yield* expectHeader(again, "location", first.headers.location ?? "")
    }
  })

  const question = Effect.gen(function*() {
    const job = yield* asked
    yield* expectThat(
      job.status === "awaiting_input" && job.questions.length > 0 && job.objective !== null,
      "awaiting_input with an objective and at least one open question",
      `${api.showJob(job)}, questions ${JSON.stringify(job.questions)}`
    )
  })

  const answers = (questions: ReadonlyArray<{ readonly id: string }>) =>
    Object.fromEntries(questions.map((q) => [q.id, "not sure yet, I will tell you later"]))

  const staleAnswer = Effect.gen(function*() {
    const job = yield* asked
    const answer = yield* api.post(`/v1/jobs/${job.id}/input`, {
      jobRevision: job.jobRevision + 1,
      answers: answers(job.questions)
    })
    yield* expectError(answer, 409, "revision_mismatch")
  })

  /** The question answered: revision 2. */
  const answered = once(
    "the question answered",
    Effect.gen(function*() {
      const job = yield* asked
      const answer = yield* api.post(`/v1/jobs/${job.id}/input`, { jobRevision: 1, answers: answers(job.questions) })
      yield* expectStatus(answer, 200)
      return yield* Effect.flatMap(parseJson(answer), decode(Job, "a Job"))
    })
  )

  const rightAnswer = Effect.gen(function*() {
    const job = yield* answered
    yield* expectThat(
      job.jobRevision === 2 && job.status === "interpreting" && job.questions.length === 0,
      "revision 2, interpreting again, no question open",
      `${api.showJob(job)}, questions ${JSON.stringify(job.questions)}`
    )
  })

  const changeConstraints = (id: string, jobRevision: number, constraints: ReadonlyArray<unknown>) =>
    api.post(`/v1/jobs/${id}/constraints`, { jobRevision, constraints })
  const note = [{ type: "note", text: "conformance check: a changed constraint" }]

  const constraintsChange = Effect.gen(function*() {
    const job = yield* second
    const changed = yield* changeConstraints(job.id, 1, note)
    yield* expectStatus(changed, 200)
    const revised = yield* Effect.flatMap(parseJson(changed), decode(Job, "a Job"))
    yield* expectThat(
      revised.jobRevision === 2 && revised.status === "interpreting",
      "revision 2, interpreting",
      api.showJob(revised)
    )
    const same = yield* changeConstraints(job.id, 2, note)
    yield* expectStatus(same, 200)
    const unchanged = yield* Effect.flatMap(parseJson(same), decode(Job, "a Job"))
    yield* expectThat(unchanged.jobRevision === 2, "equal constraints: still revision 2", api.showJob(unchanged))
  })

  const staleConstraints = Effect.flatMap(
    second,
    (job) => Effect.flatMap(changeConstraints(job.id, 1, []), (answer) => expectError(answer, 409, "revision_mismatch"))
  )

  const list = Effect.gen(function*() {
    yield* second
    const readPage = (query: string) =>
      api.get(`/v1/jobs?${query}`).pipe(
        Effect.tap((answer) => expectStatus(answer, 200)),
        Effect.flatMap(parseJson),
        Effect.flatMap(decode(JobPage, "a page of Jobs {data, nextCursor}"))
      )
    const first = yield* readPage("limit=1")
    yield* expectThat(
      first.data.length === 1 && first.nextCursor !== null,
      "one Job and a nextCursor (the key's account has at least two Jobs)",
      `${first.data.length} Jobs, nextCursor ${first.nextCursor}`
    )
    const next = yield* readPage(`limit=1&cursor=${encodeURIComponent(first.nextCursor ?? "")}`)
    const [newer] = first.data
    const [older] = next.data
    yield* expectThat(
      newer !== undefined && older !== undefined && older.id !== newer.id && older.createdAt <= newer.createdAt,
      "the next Job, older, on the next page",
      `${newer?.id} (${newer?.createdAt}), then ${older?.id} (${older?.createdAt})`
    )
    yield* expectError(yield* api.get("/v1/jobs?limit=0"), 422, "invalid_request")
  })

  const cancelBoth = Effect.gen(function*() {
    for (const job of [yield* answered, yield* second]) {
      const answer = yield* api.post(`/v1/jobs/${job.id}/cancel`, {})
      yield* expectStatus(answer, 200)
      const cancelled = yield* Effect.flatMap(parseJson(answer), decode(Job, "a Job"))
      yield* expectThat(
        cancelled.status === "cancelled" && cancelled.jobRevision === 2,
        "cancelled, still at revision 2",
        api.showJob(cancelled)
      )
    }
  })

  return [
    ...refusalChecks(api, createBody),
    check("jobs 201: create answers the Job, with Location /v1/jobs/{id}", createAnswer),
    check("jobs replay: the same Idempotency-Key and document replays the 201 byte for byte", replay),
    check(
      "jobs 422 idempotency_key_reused: the same Idempotency-Key with another body",
      Effect.gen(function*() {
        yield* created
        const answer = yield* api.post("/v1/jobs", { request: `${undated}.`, constraints: [] }, {
          idempotencyKey: createKey
        })
        yield* expectError(answer, 422, "idempotency_key_reused")
      })
    ),
    check(
      "jobs GET /v1/jobs/{id}: the Job",
      Effect.gen(function*() {
        const { job } = yield* created
        const read = yield* api.readJob(job.id)
        yield* expectThat(
          read.id === job.id && read.request === job.request && read.createdAt === job.createdAt,
          `the Job ${job.id}`,
          `${read.id}, created ${read.createdAt}`
        )
      })
    ),
    check(
      "jobs 404 not_found: an unknown Job",
      Effect.flatMap(api.get(`/v1/jobs/job_${"0".repeat(24)}`), (answer) => expectError(answer, 404, "not_found"))
    ),
    check("jobs awaiting_input: a request without a date asks for one", question),
    check("jobs 409 revision_mismatch: an answer naming another revision", staleAnswer),
    check("jobs input: answering the open questions at revision 1 makes revision 2", rightAnswer),
    ...eventChecks(api, Effect.map(answered, (job) => job.id)),
    check("jobs constraints: a change makes revision 2; equal constraints change nothing", constraintsChange),
    check("jobs 409 revision_mismatch: a change of constraints naming a stale revision", staleConstraints),
    check("jobs list: limit=1 pages newest first with nextCursor; limit=0 is 422", list),
    check("jobs cancel: 200 cancelled, at the same revision", cancelBoth),
    check(
      "jobs 409 invalid_state: cancelling a cancelled Job, with an empty body",
      Effect.flatMap(
        answered,
        (job) =>
          Effect.flatMap(
            api.post(`/v1/jobs/${job.id}/cancel`, undefined),
            (answer) => expectError(answer, 409, "invalid_state")
          )
      )
    )
  ]
}
