import { Effect } from "effect"
import type { Scope } from "effect"
import { connect, createServer } from "node:net"
import type { AddressInfo, Socket } from "node:net"

/**
 * What the proxy does with traffic:
 * - `pass`: forwards bytes both ways;
 * - `hang`: keeps every connection open, accepts and holds new ones, and forwards nothing either way;
 * - `down`: resets every connection and resets new ones as soon as they are accepted.
 */
export type Mode = "pass" | "hang" | "down"

export interface TcpProxy {
  readonly host: string
  readonly port: number
  readonly mode: Effect.Effect<Mode>
  /** Forward again. Connections held while hung are destroyed: what they had buffered never arrives. */
  readonly pass: Effect.Effect<void>
  readonly hang: Effect.Effect<void>
  readonly down: Effect.Effect<void>
  /** Connections accepted since the proxy started, whatever the mode. */
  readonly accepted: Effect.Effect<number>
  /** Connections currently open (forwarding or held). */
  readonly open: Effect.Effect<number>
}

interface Link {
  readonly client: Socket
  upstream: Socket | undefined
  hung: boolean
}

const kill = (socket: Socket | undefined) => {
  if (socket === undefined || socket.destroyed) return
  try {
    // An RST, as a crashed or restarted server gives, rather than an orderly FIN.
    socket.resetAndDestroy()
  } catch {
    // The handle is gone or not TCP: an ordinary destroy does.
  }
  socket.destroy()
}

/**
 * A TCP proxy on 127.0.0.1 (ephemeral port) in front of `upstream`, starting in `initial` mode
 * (`pass` unless told). Every connection and the listener are closed when the scope closes.
 */
export const make = (
  upstream: { readonly host: string; readonly port: number },
  initial: Mode = "pass"
): Effect.Effect<TcpProxy, Error, Scope.Scope> =>
  Effect.gen(function*() {
    let mode: Mode = initial
    let accepted = 0
    const links = new Set<Link>()

    const drop = (link: Link) => {
      links.delete(link)
      kill(link.client)
      kill(link.upstream)
    }

    const hold = (link: Link) => {
      link.hung = true
      link.client.pause()
      link.upstream?.pause()
    }

    // Bytes move only while the link is not hung; backpressure pauses the reading side.
    const forward = (link: Link, from: Socket, to: Socket) => {
      from.on("data", (chunk: Buffer) => {
        if (link.hung || to.destroyed) return
        if (!to.write(chunk)) from.pause()
      })
      to.on("drain", () => {
        if (!link.hung) from.resume()
      })
      from.on("end", () => {
        if (!link.hung) to.end()
      })
    }

    const open = (link: Link) => {
      const { client } = link
      // Nothing is read from the client until the upstream connection is there to take it.
      client.pause()
      const socket = connect({ host: upstream.host, port: upstream.port })
      link.upstream = socket
      socket.on("error", () => {})
      // A side that goes away takes the other with it, except while hung: a hung peer learns nothing.
      socket.on("close", () => {
        if (!link.hung) drop(link)
      })
      socket.on("connect", () => {
        if (link.hung || mode !== "pass") return
        forward(link, client, socket)
        forward(link, socket, client)
        client.resume()
      })
    }

    const server = createServer({ pauseOnConnect: true }, (client) => {
      accepted++
      client.on("error", () => {})
      if (mode === "down") {
        kill(client)
        return
      }
      const link: Link = { client, upstream: undefined, hung: false }
      links.add(link)
      client.on("close", () => {
        if (!link.hung) drop(link)
      })
      if (mode === "hang") {
        hold(link)
        return
      }
      open(link)
    })

    yield* Effect.acquireRelease(
      Effect.callback<void, Error>((resume) => {
        server.once("error", (error) => resume(Effect.fail(error)))
        server.listen(0, "127.0.0.1", () => resume(Effect.void))
      }),
      () =>
        Effect.callback<void>((resume) => {
          mode = "down"
          for (const link of links) drop(link)
          server.close(() => resume(Effect.void))
        })
    )

    const address = server.address() as AddressInfo
    return {
      host: "127.0.0.1",
      port: address.port,
      mode: Effect.sync(() => mode),
      pass: Effect.sync(() => {
        mode = "pass"
        for (const link of links) if (link.hung) drop(link)
      }),
      hang: Effect.sync(() => {
        mode = "hang"
        for (const link of links) hold(link)
      }),
      down: Effect.sync(() => {
        mode = "down"
        for (const link of links) drop(link)
      }),
      accepted: Effect.sync(() => accepted),
      open: Effect.sync(() => links.size)
    }
  })
