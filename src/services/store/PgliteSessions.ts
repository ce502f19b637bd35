import type { PGlite } from "@electric-sql/pglite"
import { createServer } from "node:net"
import type { Server } from "node:net"
import { duplexPair } from "node:stream"
import type { Duplex } from "node:stream"

/**
 * PGlite's one backend session, shared by any number of PostgreSQL connections (in process, or on a
 * loopback port for the command line). A connection holds the session from its first message until
 * PGlite answers ReadyForQuery with the session idle, so that neither an extended-protocol cycle
 * (Parse, Bind, Execute, Sync) nor a transaction of one connection ever interleaves with another's.
 * pglite-socket keeps only transactions together: a second connection's `Parse` replaced the first's
 * unnamed statement between its `Parse` and its `Bind`, which is why the workflow engine could not
 * share the embedded store through it. A connection that goes away leaves the session as it found
 * it: its cycle synced, its transaction rolled back, its prepared statements closed.
 */

const sslRequest = 80877103
const gssRequest = 80877104
const cancelRequest = 80877102
const idle = "I".charCodeAt(0)
const readyForQuery = "Z".charCodeAt(0)

interface Connection {
  readonly socket: Duplex
  buffer: Buffer
  started: boolean
  closed: boolean
  readonly pending: Array<Uint8Array>
  /** Named statements it prepared: they outlive it in the session unless closed. */
  readonly statements: Set<string>
}

const message = (type: string, body: Buffer) => {
  const header = Buffer.alloc(5)
  header.write(type, 0, "latin1")
  header.writeInt32BE(body.length + 4, 1)
  return Buffer.concat([header, body])
}
const cString = (text: string) => Buffer.from(`${text}\0`, "utf8")
const sync = message("S", Buffer.alloc(0))
const rollback = message("Q", cString("ROLLBACK"))
const closeStatement = (name: string) => message("C", Buffer.concat([Buffer.from("S", "latin1"), cString(name)]))

/** The transaction status of the last ReadyForQuery in a backend's answer, if it has one. */
const readyStatus = (output: Buffer): number | undefined => {
  let status: number | undefined
  for (let offset = 0; offset + 5 <= output.length; offset += 1 + output.readInt32BE(offset + 1)) {
    if (output[offset] === readyForQuery) status = output[offset + 5]
  }
  return status
}

export interface PgliteSessions {
  /** A new connection, for a PostgreSQL client's `stream` option. */
  readonly connect: () => Duplex
  /** Serves connections on a loopback port; answers the port. */
  readonly listen: () => Promise<number>
  /** Stops accepting connections and ends those open. */
  readonly close: () => Promise<void>
}

export const make = (db: PGlite): PgliteSessions => {
  // In arrival order; one that is served without keeping the session goes to the back.
  const connections = new Set<Connection>()
  let owner: Connection | undefined
  let pumping: Promise<void> | undefined
  let closing = false
  let server: Server | undefined

  const execute = async (bytes: Uint8Array) => {
    const chunks: Array<Buffer> = []
    // Each chunk is a view of PGlite's memory, which the next one overwrites: copied as it comes.
    await db.runExclusive(() =>
      db.execProtocolRawStream(bytes, { onRawData: (chunk) => chunks.push(Buffer.from(chunk)) })
    )
    return Buffer.concat(chunks)
  }

  const restore = async (connection: Connection) => {
    if (owner === connection && readyStatus(await execute(sync)) !== idle) await execute(rollback)
    if (connection.statements.size > 0) {
      for (const name of connection.statements) await execute(closeStatement(name))
      await execute(sync)
    }
  }

  const next = () => {
    if (owner !== undefined) return owner.pending.length > 0 || owner.closed ? owner : undefined
    for (const connection of connections) {
      if (connection.pending.length > 0 || connection.closed) return connection
    }
    return undefined
  }

  const serve = async () => {
    try {
      for (let connection = next(); connection !== undefined && !closing; connection = next()) {
        if (connection.closed) {
          connections.delete(connection)
          await restore(connection)
          owner = undefined
          continue
        }
        const output = await execute(connection.pending.shift()!)
        if (!connection.closed) connection.socket.write(output)
        owner = readyStatus(output) === idle ? undefined : connection
        if (owner === undefined) {
          connections.delete(connection)
          connections.add(connection)
        }
      }
    } catch (cause) {
      // The database itself failed: every connection ends, as it would with a server that went away.
      for (const connection of connections) connection.socket.destroy(cause as Error)
      connections.clear()
      owner = undefined
    }
  }

  const pump = () => {
    pumping ??= serve().finally(() => {
      pumping = undefined
      if (!closing && next() !== undefined) pump()
    })
  }

  const take = (connection: Connection) => {
    const { buffer } = connection
    let offset = 0
    while (!connection.closed) {
      if (!connection.started) {
        if (buffer.length - offset < 8) break
        const length = buffer.readInt32BE(offset)
        const code = buffer.readInt32BE(offset + 4)
        if (buffer.length - offset < length) break
        if (code === sslRequest || code === gssRequest) {
          connection.socket.write("N")
        } else if (code === cancelRequest) {
          // PGlite cannot cancel a statement; the statement timeout ends it instead.
          connection.socket.end()
        } else {
          connection.pending.push(buffer.subarray(offset, offset + length))
          connection.started = true
        }
        offset += length
        continue
      }
      if (buffer.length - offset < 5) break
      const length = 1 + buffer.readInt32BE(offset + 1)
      if (buffer.length - offset < length) break
      const type = String.fromCharCode(buffer[offset]!)
      if (type === "X") {
        connection.socket.end()
        break
      }
      if (type === "P") {
        const end = buffer.indexOf(0, offset + 5)
        if (end > offset + 5) connection.statements.add(buffer.toString("utf8", offset + 5, end))
      }
      connection.pending.push(buffer.subarray(offset, offset + length))
      offset += length
    }
    connection.buffer = buffer.subarray(offset)
  }

  const attach = (socket: Duplex) => {
    const connection: Connection = {
      socket,
      buffer: Buffer.alloc(0),
      started: false,
      closed: false,
      pending: [],
      statements: new Set()
    }
    connections.add(connection)
    socket.on("data", (data: Buffer) => {
      // Always a copy: an in-process client may reuse the buffer it wrote once the write has completed.
      connection.buffer = Buffer.concat([connection.buffer, data])
      take(connection)
      pump()
    })
    const end = () => {
      if (connection.closed) return
      connection.closed = true
      connection.pending.length = 0
      pump()
    }
    socket.on("close", end)
    socket.on("end", () => {
      end()
      socket.end()
    })
    socket.on("error", end)
  }

  return {
    connect: () => {
      const [client, backend] = duplexPair()
      attach(backend)
      return client
    },
    listen: () =>
      new Promise((resolve, reject) => {
        server = createServer((socket) => attach(socket.setNoDelay(true)))
        server.once("error", reject)
        server.listen(0, "127.0.0.1", () => {
          const address = server!.address()
          resolve(typeof address === "object" && address !== null ? address.port : 0)
        })
      }),
    close: async () => {
      closing = true
      for (const connection of connections) connection.socket.destroy()
      await pumping
      if (server !== undefined) await new Promise<void>((resolve) => server!.close(() => resolve()))
    }
  }
}
