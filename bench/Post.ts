import { request } from "node:http"
import type { Agent } from "node:http"

/**
 * One `POST /v1/waitlist` of `body` on `agent`; resolves with the time to the end of the answer, in
 * microseconds, and rejects on any status but `expected`.
 */
export const post = (port: number, agent: Agent, body: string, expected: number) =>
  new Promise<number>((resolve, reject) => {
    const started = process.hrtime.bigint()
    const req = request({
      host: "127.0.0.1",
      port,
      path: "/v1/waitlist",
      method: "POST",
      agent,
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) }
    }, (res) => {
      res.resume()
      res.on("end", () => {
        if (res.statusCode !== expected) reject(new Error(`status ${res.statusCode}`))
        else resolve(Number(process.hrtime.bigint() - started) / 1000)
      })
    })
    req.on("error", reject)
    req.end(body)
  })
