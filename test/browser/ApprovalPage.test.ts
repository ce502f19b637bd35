/// <reference lib="dom" />
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { chromium } from "playwright-core"
import type { Browser, Page } from "playwright-core"
import { baseUrl } from "../support/Http.ts"
import {
  budget,
  call,
  newIdempotencyKey,
  newKey,
  previewServerWith,
  quickTiming,
  servicesTest,
  settled
} from "../support/JobsHttp.ts"
import * as TestTime from "../support/TestTime.ts"

/**
 * The approval page in a real browser (docs/API.md, "Approval links"): Debian's Chromium driven by
 * playwright-core, as the person a link was given to uses it, with the keyboard only; checked with
 * axe-core before and after a decision, at desktop width and at 375 px, under the page's own
 * Content-Security-Policy (axe is evaluated through the DevTools protocol, which the policy does not
 * govern). The screenshots are the README's, in docs/. Run with `npm run test:browser`.
 */
const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")

const request = "Book a table for 4 at an Italian restaurant in Lisbon next Friday at 8pm"
const desktop = { width: 1280, height: 900 }
const phone = { width: 375, height: 812 }

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

/** A Job with an open proposal and a link to it. */
const linked = (url: string, key: string, constraints: ReadonlyArray<unknown> = [budget]) =>
  Effect.gen(function*() {
    const created = yield* call(url, {
      path: "/v1/jobs",
      key,
      idempotencyKey: newIdempotencyKey(),
      body: { request, constraints }
    })
    const job = yield* settled(url, key, JSON.parse(created.body).id)
    assert.strictEqual(job.status, "awaiting_approval", JSON.stringify(job))
    return { job, link: yield* linkTo(url, key, job) }
  })

const linkTo = (
  url: string,
  key: string,
  job: { id: string; jobRevision: number; proposal: { proposalHash: string } }
) =>
  Effect.map(
    call(url, {
      path: `/v1/jobs/${job.id}/approval-links`,
      key,
      idempotencyKey: newIdempotencyKey(),
      body: { proposalHash: job.proposal.proposalHash, jobRevision: job.jobRevision }
    }),
    (response) => {
      assert.strictEqual(response.status, 201, response.body)
      return JSON.parse(response.body) as { url: string; proposalHash: string; expiresAt: string }
    }
  )

interface Opened {
  readonly page: Page
  /** What the page's policy refused (it must refuse nothing of the page's own). */
  readonly refused: Array<string>
}

/** The page in a new tab; with `clock`, on a clock the test moves (Playwright's `page.clock`). */
const open = (browser: Browser, url: string, viewport: { width: number; height: number }, clock = false) =>
  Effect.promise(async (): Promise<Opened> => {
    const page = await browser.newPage({ viewport })
    if (clock) await page.clock.install()
    const refused: Array<string> = []
    page.on("console", (message) => {
      if (/Content Security Policy|Refused to/.test(message.text())) refused.push(message.text())
    })
    await page.goto(url)
    return { page, refused }
  })

/** axe-core's violations of WCAG 2.x A and AA and its best practices, as `rule: targets` lines. */
const violations = (page: Page) =>
  Effect.promise(async () => {
    await page.evaluate(axeSource)
    const results = await page.evaluate(() =>
      (window as unknown as {
        axe: {
          run: (context: Document, options: object) => Promise<{
            violations: Array<{ id: string; nodes: Array<{ target: Array<string> }> }>
            passes: Array<unknown>
          }>
        }
      }).axe.run(document, {
        runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"] }
      })
    )
    // The rules ran (a page axe could not read would pass nothing, and violate nothing either).
    assert.isAbove(results.passes.length, 10)
    return results.violations.map((violation) =>
      `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`
    )
  })

/** Nothing wider than the screen: no sideways scrolling at 375 px. */
const fitsWidth = (page: Page) =>
  Effect.promise(() => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth))

/** Tabs until `selector` has focus (at most `max` presses); answers how many it took. */
const tabTo = (page: Page, selector: string, max = 12) =>
  Effect.promise(async () => {
    for (let i = 1; i <= max; i++) {
      await page.keyboard.press("Tab")
      if (await page.evaluate((s) => document.activeElement?.matches(s) === true, selector)) return i
    }
    throw new Error(`${selector} never had focus within ${max} presses of Tab`)
  })

const text = (page: Page, selector: string) => Effect.promise(() => page.locator(selector).innerText())

/** The README's screenshots are taken again with `UPDATE_SCREENSHOTS=1`; otherwise into test-results/. */
const shots = process.env.UPDATE_SCREENSHOTS === "1" ? "docs" : "test-results"

const shot = (page: Page, name: string) =>
  Effect.promise(() => {
    mkdirSync(shots, { recursive: true })
    return page.screenshot({ path: `${shots}/${name}.png`, fullPage: true })
  })

layer(previewServerWith(servicesTest(undefined, {}, undefined, quickTiming)), {
  excludeTestServices: true,
  timeout: "120 seconds"
})("the approval page", (it) => {
  it.effect("approves with the keyboard alone, then follows the Job live to completed with its Outcome", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const key = yield* newKey()
      // Every provider call takes 2 s: the page is seen executing and verifying before it completes.
      const { job, link } = yield* linked(url, key, [budget, { type: "note", text: "sandbox:slow" }])
      const chromium = yield* browser

      const small = yield* open(chromium, link.url, phone)
      assert.isTrue(yield* fitsWidth(small.page))
      assert.deepStrictEqual(yield* violations(small.page), [])
      yield* shot(small.page, "approval-open-phone")

      const { page, refused } = yield* open(chromium, link.url, desktop)
      assert.strictEqual(yield* Effect.promise(() => page.title()), `Approve: ${job.objective.summary}`)
      assert.include(yield* text(page, "blockquote"), request)
      assert.include(yield* text(page, "main"), "From the words")
      assert.include(yield* text(page, "main"), job.proposal.proposalHash)
      assert.match(yield* text(page, "#countdown"), /^1[45] min \d\d s left$/)
      assert.deepStrictEqual(yield* violations(page), [])
      yield* shot(page, "approval-open-desktop")

      // The keyboard alone: the reason, then Approve.
      yield* tabTo(page, "#reason")
      yield* Effect.promise(() => page.keyboard.type("Fine by me"))
      yield* tabTo(page, "button.approve", 2)
      yield* Effect.promise(() =>
        Promise.all([page.waitForSelector("main[data-state=decided]"), page.keyboard.press("Enter")])
      )
      assert.include(yield* text(page, ".notice"), "You approved this proposal.")
      assert.notInclude(
        ["completed"],
        yield* Effect.promise(() => page.locator("main").getAttribute("data-job-status"))
      )
      // From here on the page follows the Job without reloading.
      yield* Effect.promise(() => page.evaluate(() => ((window as unknown as { same: boolean }).same = true)))
      yield* Effect.promise(() =>
        page.waitForSelector("main[data-job-status=completed] #outcome:not([hidden])", { timeout: 30_000 })
      )
      assert.isTrue(
        yield* Effect.promise(() => page.evaluate(() => (window as unknown as { same?: boolean }).same === true))
      )
      const done = yield* settled(url, key, job.id)
      assert.strictEqual(done.status, "completed")
      assert.strictEqual(yield* text(page, "#job-status"), "Completed")
      assert.include(yield* text(page, "#outcome"), done.outcome.reference)
      assert.include(yield* text(page, "#outcome"), `${done.outcome.spent.amount} ${done.outcome.spent.currency}`)
      assert.strictEqual(
        yield* Effect.promise(() => page.locator("ol.steps li[aria-current=step]").innerText()),
        "Completed"
      )
      assert.deepStrictEqual(yield* violations(page), [])
      yield* shot(page, "approval-completed-desktop")
      assert.deepStrictEqual(refused, [])

      // A reload, or another screen, shows the same.
      const later = yield* open(chromium, link.url, phone)
      assert.strictEqual(yield* text(later.page, "#job-status"), "Completed")
      assert.include(yield* text(later.page, "#outcome"), done.outcome.reference)
      assert.isTrue(yield* fitsWidth(later.page))
      assert.deepStrictEqual(yield* violations(later.page), [])
      yield* shot(later.page, "approval-completed-phone")
    }))

  it.effect("rejects, and the re-planned proposal needs a new link", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const key = yield* newKey()
      const { job, link } = yield* linked(url, key)
      const { page, refused } = yield* open(yield* browser, link.url, desktop)
      yield* tabTo(page, "#reason")
      yield* Effect.promise(() => page.keyboard.type("Too dear"))
      yield* tabTo(page, "button.reject", 3)
      yield* Effect.promise(() =>
        Promise.all([page.waitForSelector("main[data-state=decided]"), page.keyboard.press("Enter")])
      )
      assert.include(yield* text(page, ".notice"), "You rejected this proposal.")
      assert.include(yield* text(page, ".notice"), "a new proposal needs a new link")
      // Live: the service plans again and presents another proposal, which this link cannot decide.
      yield* Effect.promise(() => page.waitForSelector("main[data-job-status=awaiting_approval]", { timeout: 20_000 }))
      assert.include(yield* text(page, "#job-detail"), "needs a link of its own")
      assert.strictEqual(yield* Effect.promise(() => page.locator("form.decision").count()), 0)
      assert.deepStrictEqual(yield* violations(page), [])

      const next = yield* settled(url, key, job.id)
      assert.notStrictEqual(next.proposal.proposalHash, job.proposal.proposalHash)
      const fresh = yield* linkTo(url, key, next)
      const second = yield* open(yield* browser, fresh.url, desktop)
      assert.strictEqual(yield* Effect.promise(() => second.page.locator("form.decision").count()), 1)
      assert.include(yield* text(second.page, "main"), next.proposal.proposalHash)
      assert.deepStrictEqual([...refused, ...second.refused], [])
    }))

  it.effect("works without JavaScript: the form posts, and the page comes back with the decision", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const key = yield* newKey()
      const { link } = yield* linked(url, key)
      const chromiumBrowser = yield* browser
      const context = yield* Effect.promise(() =>
        chromiumBrowser.newContext({ javaScriptEnabled: false, viewport: phone })
      )
      const page = yield* Effect.promise(() => context.newPage())
      yield* Effect.promise(() => page.goto(link.url))
      yield* tabTo(page, "button.approve")
      yield* Effect.promise(() =>
        Promise.all([page.waitForSelector("main[data-state=decided]"), page.keyboard.press("Enter")])
      )
      assert.include(yield* text(page, ".notice"), "You approved this proposal.")
      yield* Effect.promise(() => context.close())
    }))
})

layer(previewServerWith(servicesTest(undefined, {}, undefined, quickTiming)), {
  excludeTestServices: true,
  timeout: "120 seconds"
})("the approval page when its proposal expires", (it) => {
  it.effect("counts down, then says plainly that the link expired and decides nothing", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const key = yield* newKey()
      const { link } = yield* linked(url, key)
      const { page, refused } = yield* open(yield* browser, link.url, desktop, true)
      assert.match(yield* text(page, "#countdown"), /^1[45] min \d\d s left$/)
      // Both clocks move past the expiry, the service's and the browser's: the countdown ends, and the
      // page reloads a second later, into what the service says of an expired link.
      yield* TestTime.pass(link.expiresAt)
      const shown = yield* Effect.promise(() => page.evaluate(() => Date.now()))
      yield* Effect.promise(() => page.clock.fastForward(Date.parse(link.expiresAt) - shown + 1000))
      assert.strictEqual(yield* text(page, "#countdown"), "expired")
      yield* Effect.promise(() =>
        Promise.all([page.waitForSelector("main[data-state=expired]"), page.clock.fastForward(1500)])
      )
      assert.include(yield* text(page, ".notice"), "This link has expired")
      assert.strictEqual(yield* Effect.promise(() => page.locator("form.decision").count()), 0)
      assert.deepStrictEqual(yield* violations(page), [])
      assert.deepStrictEqual(refused, [])
    }))
})
