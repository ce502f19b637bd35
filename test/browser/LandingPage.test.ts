/// <reference lib="dom" />
import { assert, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { mkdirSync } from "node:fs"
import { chromium } from "playwright-core"
import type { Browser, Page } from "playwright-core"
import { layerMemory } from "../../src/services/waitlist/MemoryWaitlist.ts"
import { Waitlist, withPause } from "../../src/services/waitlist/Waitlist.ts"
import { baseUrl, serverWith } from "../support/Http.ts"

/**
 * The landing page in a real browser: Debian's Chromium driven by playwright-core, as a visitor uses it,
 * with the keyboard only. Run with `npm run test:browser`.
 */
const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"
const screenshots = "test-results"

const browser = Effect.acquireRelease(
  Effect.promise(() =>
    chromium.launch({
      executablePath,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync"
      ]
    })
  ),
  (browser) => Effect.promise(() => browser.close())
)

/** Every request to the store takes a moment, so that the page's in-flight state can be seen. */
const slowly = Layer.effect(Waitlist)(Effect.map(Waitlist, (waitlist) => ({
  ...waitlist,
  join: (email: Parameters<typeof waitlist.join>[0]) => Effect.andThen(Effect.sleep("300 millis"), waitlist.join(email))
}))).pipe(Layer.provide(layerMemory))

const status = (page: Page) => page.locator("#status")

/** Opens the page, reaches the field with Tab, types, and submits with Enter. */
const submit = (page: Page, address: string) =>
  Effect.promise(async () => {
    await page.keyboard.press("Tab")
    assert.strictEqual(await page.evaluate(() => document.activeElement?.id), "email")
    await page.keyboard.press("ControlOrMeta+A")
    await page.keyboard.type(address)
    await page.keyboard.press("Enter")
  })

const openPage = (browser: Browser, url: string) =>
  Effect.promise(async () => {
    const page = await browser.newPage({ viewport: { width: 900, height: 640 } })
    await page.goto(`${url}/`)
    await page.evaluate(() => {
      ;(window as unknown as { shift: number }).shift = 0
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) {
          ;(window as unknown as { shift: number }).shift +=
            (entry as PerformanceEntry & { readonly value: number }).value
        }
      }).observe({ type: "layout-shift", buffered: true })
    })
    return page
  })

const box = (page: Page, selector: string) => page.locator(selector).boundingBox()

layer(serverWith(slowly), { excludeTestServices: true, timeout: "60 seconds" })("the landing page", (it) => {
  it.effect("joins with the keyboard only: a new address, a repeated one, an invalid one", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const page = yield* openPage(yield* browser, url)
      const before = {
        input: yield* Effect.promise(() => box(page, "#email")),
        button: yield* Effect.promise(() => box(page, "#submit"))
      }

      const address = `visitor.${Date.now()}@example.com`
      yield* submit(page, address)
      // While the request is in flight the button is disabled; then it comes back.
      yield* Effect.promise(() => page.waitForSelector("#submit:disabled", { timeout: 2000 }))
      yield* Effect.promise(() => page.waitForSelector("#status[data-kind=joined]"))
      assert.isTrue(yield* Effect.promise(() => page.locator("#submit").isEnabled()))
      const joined = yield* Effect.promise(() => status(page).textContent())
      assert.strictEqual(joined, "Thank you: you are on the list. We will write to you when early access opens.")
      mkdirSync(screenshots, { recursive: true })
      yield* Effect.promise(() => page.screenshot({ path: `${screenshots}/landing-joined.png`, fullPage: true }))

      // The same words for an address already on the list (in another case).
      yield* Effect.promise(() => page.evaluate(() => document.getElementById("status")!.removeAttribute("data-kind")))
      yield* Effect.promise(() => page.locator("#email").focus())
      yield* Effect.promise(() => page.keyboard.press("Shift+Tab"))
      yield* submit(page, address.toUpperCase())
      yield* Effect.promise(() => page.waitForSelector("#status[data-kind=joined]"))
      assert.strictEqual(yield* Effect.promise(() => status(page).textContent()), joined)

      // An invalid address is caught in the page, before anything is sent.
      const requests: Array<string> = []
      page.on("request", (request) => requests.push(request.url()))
      yield* Effect.promise(() => page.locator("#email").focus())
      yield* Effect.promise(() => page.keyboard.press("Shift+Tab"))
      yield* submit(page, "ann@example")
      yield* Effect.promise(() => page.waitForSelector("#status[data-kind=invalid]"))
      assert.strictEqual(
        yield* Effect.promise(() => status(page).textContent()),
        "That does not look like an e-mail address. Please check it and try again."
      )
      assert.deepStrictEqual(requests, [])
      assert.strictEqual(yield* Effect.promise(() => page.locator("#email").getAttribute("aria-invalid")), "true")

      // Nothing moved while messages came and went.
      const after = {
        input: yield* Effect.promise(() => box(page, "#email")),
        button: yield* Effect.promise(() => box(page, "#submit"))
      }
      assert.deepStrictEqual(after, before)
      assert.strictEqual(
        yield* Effect.promise(() => page.evaluate(() => (window as unknown as { shift: number }).shift)),
        0
      )
    }))

  it.effect("is one document with no external asset, and the message region is announced", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const opened = yield* Effect.flatMap(browser, (browser) => Effect.promise(() => browser.newPage()))
      const requested: Array<string> = []
      opened.on("request", (request) => requested.push(request.url()))
      yield* Effect.promise(() => opened.goto(`${url}/`))
      assert.deepStrictEqual(requested, [`${url}/`])
      assert.strictEqual(yield* Effect.promise(() => opened.locator("#status").getAttribute("aria-live")), "polite")
      assert.strictEqual(
        yield* Effect.promise(() => opened.locator("label[for=email]").textContent()),
        "E-mail address"
      )
    }))
})

layer(
  serverWith(withPause(layerMemory)).pipe(
    Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ WAITLIST_PAUSED: "true" })))
  ),
  { excludeTestServices: true, timeout: "60 seconds" }
)("the landing page while the waitlist is unavailable", (it) => {
  it.effect("asks the visitor to try again later", () =>
    Effect.gen(function*() {
      const page = yield* openPage(yield* browser, yield* baseUrl)
      yield* submit(page, `later.${Date.now()}@example.com`)
      yield* Effect.promise(() => page.waitForSelector("#status[data-kind=unavailable]"))
      assert.strictEqual(
        yield* Effect.promise(() => status(page).textContent()),
        "We cannot add you right now. Please try again in a little while."
      )
    }))
})
