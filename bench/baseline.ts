/**
 * The baseline the service is measured against: the waitlist as a good engineer would write it by
 * hand on node:http and `pg` (a pool of 10), with the same validation (the project's own decoder, so
 * that both servers do identical work before the database) and one `INSERT ... ON CONFLICT DO
 * NOTHING` per request. It answers what the contract answers for the paths the bench drives.
 *
 *   DATABASE_URL=postgres://... PORT=8090 node bench/baseline.ts
 */
import { createServer } from "node:http"
import pg from "pg"
import { InvalidEmail } from "../src/schema/Errors.ts"
import { decodeJoinDocument, emailKey } from "../src/schema/Waitlist.ts"

const maxBodyBytes = 64 * 1024
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 })

const answer = (status: number, body: string, close = false) => ({ status, body, close })
const joined = answer(200, `{"status":"joined"}`)
const invalidJson = answer(400, `{"error":"invalid_json"}`)
const invalidEmail = answer(422, `{"error":"invalid_email"}`)
const unavailable = answer(503, `{"error":"unavailable"}`)

const server = createServer((request, response) => {
  const send = ({ body, close, status }: typeof joined) => {
    const headers: Record<string, string | number> = {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body)
    }
    if (close) headers.connection = "close"
    if (status === 503) headers["retry-after"] = 5
    response.writeHead(status, headers).end(body)
  }
  if (request.method !== "POST" || request.url !== "/v1/waitlist") return send(answer(404, `{"error":"not_found"}`))
  const type = request.headers["content-type"]?.split(";")[0]?.trim().toLowerCase()
  if (type !== "application/json") return send(invalidJson)
  const chunks: Array<Buffer> = []
  let size = 0
  request.on("data", (chunk: Buffer) => {
    size += chunk.length
    if (size > maxBodyBytes) return send({ ...invalidJson, close: true })
    chunks.push(chunk)
  })
  request.on("end", () => {
    if (size > maxBodyBytes) return
    const decoded = decodeJoinDocument(Buffer.concat(chunks))
    if (decoded._tag === "Failure") return send(decoded.failure instanceof InvalidEmail ? invalidEmail : invalidJson)
    const email = decoded.success
    pool.query(
      "INSERT INTO waitlist_members (email_key, email) VALUES ($1, $2) ON CONFLICT (email_key) DO NOTHING",
      [Buffer.from(emailKey(email)), Buffer.from(email)]
    ).then(() => send(joined), () => send(unavailable))
  })
})

server.listen(Number(process.env.PORT ?? 8090), "127.0.0.1", () => {
  process.stdout.write(`Listening on ${process.env.PORT ?? 8090}\n`)
})
process.on("SIGTERM", () => server.close(() => pool.end().then(() => process.exit(0))))
