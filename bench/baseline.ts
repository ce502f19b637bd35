/**
 * The servers the service is measured against: `POST /v1/waitlist` as a good engineer would write it by
 * hand on node:http and `pg` (a pool of 10), with the same contract and nothing of ours in it: its own
 * reading of the body (`JoinDocument.ts`), and the table the service migrates (`email_key` and `email`
 * as UTF-8 `bytea`).
 *
 * - `BASELINE_WRITES=single` (the default, "hand-written"): one `INSERT … ON CONFLICT DO NOTHING` per
 *   request, a commit each.
 * - `BASELINE_WRITES=batched`: concurrent joins written together as the service writes them: one
 *   `INSERT … SELECT … FROM unnest(…)` per batch of at most 256, at most two batches in flight, a batch
 *   gathering the joins of one turn of the event loop and starting as soon as a writer is free. What
 *   the service's own per-request path should cost.
 *
 *   DATABASE_URL=postgres://... PORT=8090 node bench/baseline.ts
 */
import { createServer } from "node:http"
import type { IncomingMessage, ServerResponse } from "node:http"
import pg from "pg"
import { readJoinDocument } from "./JoinDocument.ts"

const maxBodyBytes = 64 * 1024
const maxBatchSize = 256
const concurrentBatches = 2
const batched = process.env.BASELINE_WRITES === "batched"

// The contract's 3 s bound on a hung or unreachable database.
const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: 10,
  connectionTimeoutMillis: 2_000,
  query_timeout: 2_500
})
pool.on("error", () => {}) // an idle connection that breaks is replaced on the next query

const insertOne = "INSERT INTO waitlist_members (email_key, email) VALUES ($1, $2) ON CONFLICT (email_key) DO NOTHING"
const insertBatch = "INSERT INTO waitlist_members (email_key, email) "
  + "SELECT * FROM unnest($1::bytea[], $2::bytea[]) ON CONFLICT (email_key) DO NOTHING"

interface Join {
  readonly email: string
  readonly done: (ok: boolean) => void
}

const waiting: Array<Join> = []
let inFlight = 0

const writeBatches = () => {
  while (inFlight < concurrentBatches && waiting.length > 0) {
    const joins = waiting.splice(0, maxBatchSize)
    // One row per key, the first spelling kept, in key order: concurrent batches lock keys in one order.
    const members = new Map<string, string>()
    for (const { email } of joins) {
      const key = email.toLowerCase()
      if (!members.has(key)) members.set(key, email)
    }
    const keys = [...members.keys()].sort()
    inFlight++
    pool.query(insertBatch, [keys.map((key) => Buffer.from(key)), keys.map((key) => Buffer.from(members.get(key)!))])
      .then(() => true, () => false)
      .then((ok) => {
        inFlight--
        for (const join of joins) join.done(ok)
        writeBatches()
      })
  }
}

// A batch gathers the joins of one turn of the event loop, as the service's does.
let gathering = false
const gathered = () => {
  gathering = false
  writeBatches()
}

const store = (email: string, done: (ok: boolean) => void) => {
  if (batched) {
    waiting.push({ email, done })
    if (!gathering) {
      gathering = true
      setImmediate(gathered)
    }
  } else {
    pool.query(insertOne, [Buffer.from(email.toLowerCase()), Buffer.from(email)]).then(
      () => done(true),
      () => done(false)
    )
  }
}

const send = (response: ServerResponse, status: number, body: string, close = false) => {
  const headers: Record<string, string | number> = {
    "content-type": "application/json",
    "content-length": body.length
  }
  if (close) headers.connection = "close"
  if (status === 503) headers["retry-after"] = 5
  response.writeHead(status, headers).end(body)
}
const joined = `{"status":"joined"}`
const invalidJson = `{"error":"invalid_json"}`
const invalidEmail = `{"error":"invalid_email"}`
const unavailable = `{"error":"unavailable"}`

const isJson = (request: IncomingMessage) => {
  const type = request.headers["content-type"]
  if (type === undefined) return false
  const end = type.indexOf(";")
  return (end === -1 ? type : type.slice(0, end)).trim().toLowerCase() === "application/json"
}

const join = (request: IncomingMessage, response: ServerResponse) => {
  if (!isJson(request)) return send(response, 400, invalidJson)
  // Too large a body is refused unread: Node discards the rest, and the answer closes the connection.
  const refuse = () => send(response, 400, invalidJson, true)
  if (Number(request.headers["content-length"] ?? 0) > maxBodyBytes) return refuse()
  const chunks: Array<Buffer> = []
  let size = 0
  const onData = (chunk: Buffer) => {
    size += chunk.length
    if (size <= maxBodyBytes) return void chunks.push(chunk)
    request.off("data", onData).off("end", onEnd).resume()
    refuse()
  }
  const onEnd = () => {
    const verdict = readJoinDocument(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size))
    if (verdict === 400) return send(response, 400, invalidJson)
    if (verdict === 422) return send(response, 422, invalidEmail)
    store(verdict, (ok) => ok ? send(response, 200, joined) : send(response, 503, unavailable))
  }
  request.on("data", onData).on("end", onEnd)
}

const server = createServer((request, response) => {
  const path = request.url === undefined ? "" : request.url.split("?")[0]
  if (path !== "/v1/waitlist") return response.writeHead(404).end()
  if (request.method !== "POST") {
    return response.writeHead(405, { allow: "POST, OPTIONS", "content-type": "application/json" })
      .end(`{"error":"method_not_allowed"}`)
  }
  join(request, response)
})

server.listen(Number(process.env.PORT ?? 8090), process.env.HOST ?? "127.0.0.1", () => {
  process.stdout.write(`Listening on ${process.env.PORT ?? 8090} (${batched ? "batched" : "single"} writes)\n`)
})
process.on("SIGTERM", () => server.close(() => pool.end().then(() => process.exit(0))))
