/**
 * The readers' process (`Readers.ts`) from the bench's side: started by the driver, whose pinning to CPU 1 it
 * inherits, asked
 * one thing at a time over IPC, and its CPU and memory read from /proc.
 */
import { spawn } from "node:child_process"
import { setPriority } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import type { Reply, Request } from "./Readers.ts"
import type { StreamRecord } from "./Streams.ts"
import { expand } from "./Streams.ts"

export const startReaders = () => {
  const child = spawn(process.execPath, [join(dirname(fileURLToPath(import.meta.url)), "Readers.ts")], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    serialization: "advanced"
  })
  // The clients yield the CPU to the driver: on CPU 1 they parse every delivery, which would otherwise
  // delay the driver's reading of the writers' answers (the bench's own queueing, not the service's). In
  // the driver's session, so within its scheduling group the niceness orders them.
  setPriority(child.pid!, 19)
  const waiting = new Map<number, { resolve: (reply: Reply) => void; reject: (error: Error) => void }>()
  let nextId = 0
  child.on("message", (message: { readonly id: number; readonly reply?: Reply; readonly error?: string }) => {
    const waiter = waiting.get(message.id)
    waiting.delete(message.id)
    if (message.reply !== undefined) waiter?.resolve(message.reply)
    else waiter?.reject(new Error(`the readers' process failed: ${message.error}`))
  })
  child.once("exit", (code, signal) => {
    for (const waiter of waiting.values()) waiter.reject(new Error(`the readers' process exited (${code ?? signal})`))
    waiting.clear()
  })
  const ask = <T extends Reply["_tag"]>(request: Request, tag: T) =>
    new Promise<Extract<Reply, { _tag: T }>>((resolve, reject) => {
      const id = nextId++
      waiting.set(id, {
        resolve: (reply) =>
          reply._tag === tag
            ? resolve(reply as Extract<Reply, { _tag: T }>)
            : reject(new Error(`the readers' process answered ${reply._tag} to ${request._tag}`)),
        reject
      })
      child.send({ id, request })
    })
  return {
    pid: child.pid!,
    warm: (port: number, key: string) => ask({ _tag: "Warm", port, key }, "Done"),
    open: (port: number, key: string, from: number, to: number, after: number, history: number, drain: boolean) =>
      ask({ _tag: "Open", port, key, from, to, after, history, drain }, "Opened"),
    caughtUp: async (from: number, to: number, last: number) =>
      (await ask({ _tag: "CaughtUp", from, to, last }, "CaughtUp")).caughtUp,
    /** Closes the streams; answers the bytes the thin clients among them had received. */
    close: async (from: number, to: number) => (await ask({ _tag: "Close", from, to }, "Closed")).drainedBytes,
    collect: async (from: number, to: number): Promise<ReadonlyArray<StreamRecord>> => {
      const { records, types } = await ask({ _tag: "Collect", from, to }, "Collected")
      return records.map((record) => expand(record, types))
    },
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
    }
  }
}

export type Readers = ReturnType<typeof startReaders>
