import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as HttpServer from "effect/http/HttpServer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/** An absolute http(s) URL with no query or fragment: where people reach the service. */
const BaseUrl = Schema.String.check(
  Schema.makeFilter((text: string) => {
    try {
      const url = new URL(text)
      return (url.protocol === "http:" || url.protocol === "https:") && url.search === "" && url.hash === ""
    } catch {
      return false
    }
  }, { expected: "an absolute http or https URL such as https://approve.example.com" })
)

/**
 * `PUBLIC_URL`: the address people reach the service at, which begins every link it hands out (behind a
 * proxy it is not the address the service listens on). Unset, it is that address, with `localhost` for
 * all interfaces.
 */
export const make = Effect.gen(function*() {
  const configured = yield* Config.option(Config.schema(BaseUrl, "PUBLIC_URL"))
  if (Option.isSome(configured)) return configured.value.replace(/\/+$/, "")
  const server = yield* HttpServer.HttpServer
  const url = new URL(HttpServer.formatAddress(server.address))
  if (url.hostname === "0.0.0.0" || url.hostname === "[::]") url.hostname = "localhost"
  return url.origin
})
