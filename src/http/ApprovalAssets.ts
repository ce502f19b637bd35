/**
 * The approval page's style and script (docs/API.md, "Approval links"), served as files of their own
 * (`/assets/approval.css`, `/assets/approval.js`) so that the page's Content-Security-Policy allows no
 * inline script or style. The page works without the script: it adds the countdown, guards against a
 * second submission, and follows the Job live once a decision is made.
 */

/** What the page says of each status of the Job after a decision; the page and its script say the same. */
export const statusWords: Readonly<Record<string, string>> = {
  interpreting: "The request is being read again.",
  awaiting_input: "The service is waiting for an answer from whoever sent you this link.",
  planning: "The service is looking for an offer.",
  awaiting_approval: "A newer proposal waits for a decision; it needs a link of its own.",
  executing: "The service is carrying out the offer with the provider.",
  verifying: "The service is checking with the provider, independently, that it happened as proposed.",
  recovering: "Something did not go as planned: the service is retrying, or undoing what was done.",
  completed: "Done, and verified.",
  failed: "The Job failed.",
  cancelled: "The Job was cancelled."
}

export const css = `:root { color-scheme: light dark; --fg: #16181d; --muted: #51565f; --bg: #fbfbfc; --card: #ffffff;
  --line: #d5d8de; --accent: #2346c8; --ok: #17663a; --okbg: #e8f5ed; --bad: #a3171b; --badbg: #fcecec; --warnbg: #fff6dd; }
@media (prefers-color-scheme: dark) { :root { --fg: #eef0f4; --muted: #b3b9c4; --bg: #14161a; --card: #1c1f25;
  --line: #3a3f48; --accent: #9db2ff; --ok: #7fdca6; --okbg: #16301f; --bad: #ff9c92; --badbg: #3a1a1a; --warnbg: #33290e; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 1rem/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { width: min(42rem, 100% - 2rem); margin: 0 auto; padding: 1.5rem 0 3rem; }
h1 { font-size: clamp(1.5rem, 5vw, 2rem); line-height: 1.2; margin: .25rem 0 1rem; }
h2 { font-size: 1.125rem; margin: 0 0 .5rem; }
.eyebrow { margin: 0; color: var(--muted); font-size: .875rem; text-transform: uppercase; letter-spacing: .06em; }
section { background: var(--card); border: 1px solid var(--line); border-radius: .75rem; padding: 1rem 1.125rem; margin: 0 0 1rem; }
blockquote { margin: 0; font-size: 1.125rem; white-space: pre-wrap; overflow-wrap: anywhere; }
dl { margin: 0; }
dl > div { display: grid; grid-template-columns: minmax(6.5rem, 32%) 1fr; gap: .25rem 1rem; padding: .45rem 0; border-top: 1px solid var(--line); }
dl > div:first-child { border-top: 0; }
dt { color: var(--muted); }
dd { margin: 0; overflow-wrap: anywhere; }
.from { display: block; color: var(--muted); font-size: .875rem; }
.spend { font-size: 1.25rem; font-weight: 700; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .8125rem; overflow-wrap: anywhere; }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, textarea:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
label { display: block; font-weight: 600; margin: .25rem 0 .35rem; }
textarea { width: 100%; font: inherit; padding: .6rem .7rem; border: 1px solid var(--muted); border-radius: .5rem; background: transparent; color: inherit; resize: vertical; }
.hint { color: var(--muted); font-size: .875rem; margin: .35rem 0 1rem; }
.buttons { display: flex; flex-wrap: wrap; gap: .75rem; }
button { flex: 1 1 10rem; min-height: 3rem; font: inherit; font-weight: 700; border-radius: .5rem; cursor: pointer; padding: .7rem 1rem; }
button.approve { background: var(--ok); color: var(--card); border: 2px solid var(--ok); }
button.reject { background: transparent; color: var(--bad); border: 2px solid var(--bad); }
button:disabled { opacity: .6; cursor: progress; }
.notice { border-radius: .75rem; padding: .85rem 1.125rem; margin: 0 0 1rem; border: 1px solid var(--line); background: var(--warnbg); }
.notice.done { background: var(--okbg); }
.notice.refused { background: var(--badbg); }
.notice p { margin: 0; }
.notice p + p { margin-top: .35rem; }
.status { font-weight: 600; }
ol.steps { list-style: none; padding: 0; margin: .75rem 0 0; display: flex; flex-wrap: wrap; gap: .5rem; }
ol.steps li { border: 1px solid var(--line); border-radius: 999px; padding: .2rem .75rem; color: var(--muted); font-size: .875rem; }
ol.steps li[data-state="done"] { color: var(--ok); border-color: var(--ok); }
ol.steps li[data-state="current"] { color: var(--fg); border-color: var(--fg); font-weight: 700; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
footer { color: var(--muted); font-size: .875rem; }
h3 { font-size: 1rem; margin: 1rem 0 .25rem; }
@media (max-width: 30rem) { dl > div { grid-template-columns: 1fr; gap: 0; } }
`

export const script = `"use strict"
;(function () {
  var main = document.querySelector("main[data-state]")
  if (!main) return
  var words = ${JSON.stringify(statusWords)}
  var stepOrder = ["decided", "executing", "verifying", "completed"]

  var countdown = document.getElementById("countdown")
  var expires = main.dataset.expiresAt ? Date.parse(main.dataset.expiresAt) : NaN
  if (countdown && main.dataset.state === "open" && !isNaN(expires)) {
    var tick = function () {
      var left = Math.max(0, Math.round((expires - Date.now()) / 1000))
      var minutes = Math.floor(left / 60)
      var seconds = left % 60
      countdown.textContent = left === 0 ? "expired" : minutes + " min " + (seconds < 10 ? "0" : "") + seconds + " s left"
      if (left === 0) {
        clearInterval(timer)
        // The server says what an expired link is; nothing can be decided any more.
        setTimeout(function () { location.reload() }, 1000)
      }
    }
    var timer = setInterval(tick, 1000)
    tick()
  }

  var form = document.querySelector("form.decision")
  if (form) {
    form.addEventListener("submit", function (event) {
      if (form.dataset.sent === "true") return event.preventDefault()
      form.dataset.sent = "true"
      form.setAttribute("aria-busy", "true")
    })
  }

  var source = main.dataset.events
  if (!source || !window.EventSource) return
  var status = document.getElementById("job-status")
  var detail = document.getElementById("job-detail")
  var outcome = document.getElementById("outcome")
  var steps = document.querySelectorAll("ol.steps li")
  var hash = main.dataset.proposalHash
  var state = main.dataset.state
  var events = new EventSource(source + "?after=" + encodeURIComponent(main.dataset.after || "0"))

  var show = function (jobStatus) {
    main.dataset.jobStatus = jobStatus
    if (status) status.textContent = label(jobStatus)
    if (detail) detail.textContent = words[jobStatus] || ""
    var at = stepOrder.indexOf(jobStatus)
    for (var i = 0; i < steps.length; i++) {
      var step = steps[i]
      var index = stepOrder.indexOf(step.dataset.step)
      step.dataset.state = at === -1 ? (index === 0 ? "done" : "todo") : index < at ? "done" : index === at ? "current" : "todo"
      if (index === at) step.setAttribute("aria-current", "step")
      else step.removeAttribute("aria-current")
    }
  }
  var label = function (jobStatus) {
    var text = jobStatus.replace(/_/g, " ")
    return text.charAt(0).toUpperCase() + text.slice(1)
  }
  var row = function (name, value) {
    var div = document.createElement("div")
    var dt = document.createElement("dt")
    var dd = document.createElement("dd")
    dt.textContent = name
    dd.textContent = value
    div.append(dt, dd)
    return div
  }
  var showOutcome = function (result) {
    if (!outcome) return
    var heading = document.createElement("h3")
    heading.textContent = "Outcome"
    var list = document.createElement("dl")
    list.append(
      row("Reference", result.reference),
      row("Spent", result.spent.amount + " " + result.spent.currency),
      row("Verified at", new Date(result.verifiedAt).toUTCString()),
      row("Provider", result.provider)
    )
    outcome.replaceChildren(heading, list)
    outcome.hidden = false
  }

  var onEvent = function (message) {
    var event = JSON.parse(message.data)
    var data = event.data || {}
    if (state === "open") {
      // Decided, superseded or expired elsewhere: the server says what the link is now.
      var decided = event.type === "approval.recorded" && data.proposalHash === hash
      var moved = event.type === "proposal.superseded" || event.type === "job.revised" || event.type === "job.cancelled"
        || event.type === "job.failed"
      if (decided || moved) { events.close(); location.reload() }
      return
    }
    if (event.type === "job.completed" && data.outcome) showOutcome(data.outcome)
    if (typeof data.status === "string") show(data.status)
    else if (event.type === "job.completed") show("completed")
    else if (event.type === "job.cancelled") show("cancelled")
    else if (event.type === "job.failed") show("failed")
    if (main.dataset.jobStatus === "completed" || main.dataset.jobStatus === "failed" || main.dataset.jobStatus === "cancelled") {
      events.close()
    }
  }
  ;["job.revised", "work.invalidated", "job.interpreted", "job.input_requested", "proposal.presented",
    "proposal.superseded", "approval.recorded", "execution.started", "execution.succeeded", "execution.failed",
    "verification.succeeded", "verification.failed", "recovery.step", "job.completed", "job.failed", "job.cancelled"]
    .forEach(function (type) { events.addEventListener(type, onEvent) })
})()
`
