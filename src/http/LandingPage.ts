import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { emailMaxLength, emailMinLength, emailPattern } from "../schema/Waitlist.ts"

/**
 * The page a visitor joins from (the contract's `source: "landing"`): one small document with its
 * style and script inline, no external asset. It checks an address with the contract's own rules
 * (taken from `src/schema`, so the page cannot drift from the server) before sending it, and says one of
 * three things: joined (the same for a new and a known address), invalid address, or unavailable.
 */
const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Early access</title>
<style>
  :root { color-scheme: light dark; --accent: #2f5bea; --fg: #16181d; --muted: #5a606b; --bg: #fbfbfc; --ok: #1d7a46; --bad: #b42318; }
  @media (prefers-color-scheme: dark) { :root { --accent: #8aa4ff; --fg: #eef0f4; --muted: #a7adb8; --bg: #14161a; --ok: #6fd39b; --bad: #ff8f84; } }
  * { box-sizing: border-box; }
  body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: var(--bg); color: var(--fg);
    font: 1.0625rem/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
  main { width: min(34rem, 100% - 2.5rem); padding: 2.5rem 0; }
  h1 { font-size: clamp(1.75rem, 5vw, 2.5rem); line-height: 1.15; margin: 0 0 .75rem; letter-spacing: -.01em; }
  p.lead { color: var(--muted); margin: 0 0 2rem; }
  label { display: block; font-weight: 600; margin-bottom: .4rem; }
  .row { display: flex; gap: .5rem; flex-wrap: wrap; }
  input { flex: 1 1 16rem; min-width: 0; font: inherit; padding: .7rem .85rem; border: 1px solid color-mix(in srgb, var(--fg) 30%, transparent);
    border-radius: .5rem; background: transparent; color: inherit; }
  input[aria-invalid="true"] { border-color: var(--bad); }
  button { flex: 0 0 auto; width: 11.5rem; font: inherit; font-weight: 600; padding: .7rem 1rem; border: 0; border-radius: .5rem;
    background: var(--accent); color: #fff; cursor: pointer; }
  @media (prefers-color-scheme: dark) { button { color: #0b0d12; } }
  button:disabled { opacity: .6; cursor: progress; }
  input:focus-visible, button:focus-visible { outline: 3px solid color-mix(in srgb, var(--accent) 55%, transparent); outline-offset: 2px; }
  #status { min-height: 3em; margin: 1rem 0 0; }
  #status[data-kind="joined"] { color: var(--ok); }
  #status[data-kind="invalid"], #status[data-kind="unavailable"] { color: var(--bad); }
</style>
</head>
<body>
<main>
  <h1>Get early access</h1>
  <p class="lead">We coordinate requests toward verified outcomes. Leave your e-mail address and we will write
  to you when you can try it.</p>
  <form id="join" novalidate>
    <label for="email">E-mail address</label>
    <div class="row">
      <input id="email" name="email" type="text" inputmode="email" autocomplete="email" spellcheck="false"
        autocapitalize="off" required aria-describedby="status">
      <button id="submit" type="submit">Join the waitlist</button>
    </div>
    <p id="status" role="status" aria-live="polite"></p>
  </form>
</main>
<script type="module">
  const pattern = new RegExp(${JSON.stringify(emailPattern.source)}, "u")
  const isAddress = (value) => {
    const length = [...value].length
    return value.isWellFormed() && length >= ${emailMinLength} && length <= ${emailMaxLength} && pattern.test(value)
  }
  const messages = {
    joined: "Thank you: you are on the list. We will write to you when early access opens.",
    invalid: "That does not look like an e-mail address. Please check it and try again.",
    unavailable: "We cannot add you right now. Please try again in a little while."
  }
  const form = document.getElementById("join")
  const input = document.getElementById("email")
  const button = document.getElementById("submit")
  const status = document.getElementById("status")
  const say = (kind) => {
    status.dataset.kind = kind
    status.textContent = messages[kind]
    input.setAttribute("aria-invalid", String(kind === "invalid"))
    if (kind === "invalid") input.focus()
  }
  form.addEventListener("submit", async (event) => {
    event.preventDefault()
    if (button.disabled) return
    const email = input.value
    if (!isAddress(email)) return say("invalid")
    button.disabled = true
    form.setAttribute("aria-busy", "true")
    try {
      const response = await fetch("/v1/waitlist", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ email, source: "landing" })
      })
      say(response.status === 200 ? "joined" : response.status === 422 ? "invalid" : "unavailable")
    } catch {
      say("unavailable")
    } finally {
      button.disabled = false
      form.removeAttribute("aria-busy")
    }
  })
</script>
</body>
</html>
`

const response = HttpServerResponse.html(page).pipe(
  HttpServerResponse.setHeaders({
    "cache-control": "public, max-age=300",
    "content-security-policy":
      "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'",
    "x-content-type-options": "nosniff"
  })
)

export const LandingPageLive = HttpRouter.add("GET", "/", response)
