import type { Constraint, Evidence } from "../schema/Constraint.ts"
import type { Job } from "../schema/Job.ts"
import type { JobEvent } from "../schema/JobEvent.ts"
import { isZero } from "../schema/Money.ts"
import type { Decision, Outcome, ProposalDocument } from "../schema/Proposal.ts"
import type { StoredLink } from "../services/jobs/ApprovalLinks.ts"
import { statusWords } from "./ApprovalAssets.ts"

/**
 * The approval page (docs/API.md, "Approval links"), rendered on the server from the Job and the exact
 * proposal document: plain HTML, its style and script external, so that it works without JavaScript and
 * the Content-Security-Policy allows no inline code. Every value from the Job is escaped.
 */

export const escape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" })[c]!)

/** What the link can do now, from the Job and its history. */
export type LinkState =
  | { readonly _tag: "Open" }
  | { readonly _tag: "Decided"; readonly decision: Decision; readonly here: boolean }
  | { readonly _tag: "Expired" }
  | { readonly _tag: "Superseded"; readonly why: string }

export const stateOf = (
  link: StoredLink,
  job: Job,
  events: ReadonlyArray<JobEvent>,
  now: number
): LinkState => {
  if (link.used !== null) return { _tag: "Decided", decision: link.used.decision, here: true }
  const ofLink = (type: string) =>
    events.find((event) => event.type === type && event.data.proposalHash === link.proposalHash)
  const recorded = ofLink("approval.recorded")
  if (recorded !== undefined) {
    return { _tag: "Decided", decision: recorded.data.decision as Decision, here: false }
  }
  const superseded = ofLink("proposal.superseded")
  if (superseded?.data.reason === "expired") return { _tag: "Expired" }
  const expired = now >= Date.parse(link.expiresAt)
  // The history may not show the newest events yet (an event shows once no commit before it is still
  // open), while the Job already does: what the Job and the clock say stands in for what is not shown.
  const current = job.jobRevision === link.jobRevision && job.proposal?.proposalHash === link.proposalHash
    ? job.proposal.status
    : undefined
  if (current === "approved") return { _tag: "Decided", decision: "approve", here: false }
  if (current === "rejected") return { _tag: "Decided", decision: "reject", here: false }
  if (current === "expired") return { _tag: "Expired" }
  if (current === "open" && job.status === "awaiting_approval") return expired ? { _tag: "Expired" } : { _tag: "Open" }
  if (job.status === "cancelled") return { _tag: "Superseded", why: "The request was cancelled." }
  if (job.status === "failed") return { _tag: "Superseded", why: "The request failed before a decision was made." }
  if (job.jobRevision !== link.jobRevision) {
    return {
      _tag: "Superseded",
      why: "The request changed after this link was made, so this proposal no longer applies."
    }
  }
  // At its own revision, undecided, a proposal is replaced only when it expires.
  return expired ? { _tag: "Expired" } : { _tag: "Superseded", why: "This proposal was replaced by another one." }
}

const money = (value: { readonly amount: string; readonly currency: string }) =>
  `${escape(value.amount)} ${escape(value.currency)}`

/** An instant in the zone the request names (its `timezone` fact), else in UTC, with the zone said. */
const when = (iso: string, zone: string | undefined) => {
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return escape(iso)
  const timeZone = zone ?? "UTC"
  try {
    const text = new Intl.DateTimeFormat("en-GB", {
      weekday: "short",
      day: "numeric",
      month: "short",
      year: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      timeZone,
      timeZoneName: "short"
    }).format(date)
    return `<time datetime="${escape(iso)}">${escape(text)}</time>`
  } catch {
    return `<time datetime="${escape(iso)}">${escape(iso)}</time>`
  }
}

const fromWords = (evidence: ReadonlyArray<Evidence> | undefined, source: Constraint["source"]) => {
  if (source === "caller") return `<span class="from">Set by the requester</span>`
  if (evidence === undefined || evidence.length === 0) return ""
  const quoted = evidence.map((span) => `“${escape(span.text)}”${span.revision === undefined ? "" : " (in an answer)"}`)
    .join(", ")
  return `<span class="from">From the words ${quoted}</span>`
}

const factOf = (constraint: Constraint, zone: string | undefined): readonly [string, string] => {
  switch (constraint.type) {
    case "budget":
      return ["Budget", `at most ${money(constraint.max)}`]
    case "deadline":
      return ["Deadline", `by ${when(constraint.by, zone)}`]
    case "window":
      return ["When", `${when(constraint.start, zone)} to ${when(constraint.end, zone)}`]
    case "location":
      return ["Where", escape(constraint.place)]
    case "quantity":
      return ["How many", `${constraint.count}${constraint.unit === undefined ? "" : ` ${escape(constraint.unit)}`}`]
    case "timezone":
      return ["Time zone", escape(constraint.zone)]
    case "note":
      return ["Note", escape(constraint.text)]
  }
}

const row = (name: string, value: string) => `<div><dt>${name}</dt><dd>${value}</dd></div>`

const zoneOf = (constraints: ReadonlyArray<Constraint>) => {
  const zone = constraints.find((constraint) => constraint.type === "timezone")
  return zone?.type === "timezone" ? zone.zone : undefined
}

const facts = (document: ProposalDocument) => {
  const zone = zoneOf(document.constraints)
  const objective = document.objective
  return `<dl>${
    row(
      "What",
      `${escape(objective.summary)} <span class="from">${escape(objective.kind)}${
        objective.evidence === undefined ?
          "" :
          `, from the words ${objective.evidence.map((span) => `“${escape(span.text)}”`).join(", ")}`
      }</span>`
    )
  }${
    document.constraints.map((constraint) => {
      const [name, value] = factOf(constraint, zone)
      return row(name, `${value}${fromWords(constraint.evidence, constraint.source)}`)
    }).join("")
  }</dl>`
}

/** An offer's detail as a person reads it: money as money, names as words ("unitPrice": "Unit price"). */
const detailText = (value: unknown): string => {
  if (typeof value === "string") return value
  if (typeof value === "number" || typeof value === "boolean") return String(value)
  if (typeof value === "object" && value !== null && "amount" in value && "currency" in value) {
    return `${String(value.amount)} ${String(value.currency)}`
  }
  return JSON.stringify(value)
}

const detailName = (name: string) => {
  const words = name.replace(/([a-z])([A-Z])/g, "$1 $2").replaceAll("_", " ").toLowerCase()
  return words.charAt(0).toUpperCase() + words.slice(1)
}

/** The offer's terms as a sentence; a fee of zero, however it is written, is not one to mention. */
export const termsText = (terms: ProposalDocument["terms"]) =>
  terms.cancellable
    ? `Can be cancelled; cancelling costs ${money(terms.cancellationFee)}.`
    : `Cannot be cancelled${isZero(terms.cancellationFee) ? "" : `; cancelling costs ${money(terms.cancellationFee)}`}.`

const proposalSection = (
  document: ProposalDocument,
  hash: string,
  proposalPath: string,
  countdown: boolean,
  now: number
) => {
  const zone = zoneOf(document.constraints)
  const left = Math.max(0, Date.parse(document.expiresAt) - now)
  const minutes = Math.ceil(left / 60_000)
  const terms = termsText(document.terms)
  return `<section aria-labelledby="proposal-heading">
<h2 id="proposal-heading">The proposal</h2>
<dl>
${row("Offer", `${escape(document.offer.title)}`)}
${
    Object.entries(document.offer.details).map(([name, value]) =>
      row(escape(detailName(name)), escape(detailText(value)))
    ).join(
      "\n"
    )
  }
${row("Spend at most", `<span class="spend">${money(document.spend)}</span>`)}
${row("Terms", terms)}
${row("Provider", escape(document.provider))}
${
    row(
      "Expires",
      `${when(document.expiresAt, zone)}${
        countdown ? ` <span class="from" id="countdown" role="timer">${minutes} min left</span>` : ""
      }`
    )
  }
${
    row(
      "Proposal hash",
      `<code>${escape(hash)}</code> <a href="${
        escape(proposalPath)
      }">The exact document<span class="visually-hidden"> that this hash names</span> (JSON)</a>`
    )
  }
</dl>
</section>`
}

const steps = (status: string) => {
  const order = ["decided", "executing", "verifying", "completed"]
  const at = order.indexOf(status)
  const names: Record<string, string> = {
    decided: "Approved",
    executing: "Executing",
    verifying: "Verifying",
    completed: "Completed"
  }
  return `<ol class="steps" aria-label="Progress">${
    order.map((step, index) => {
      const state = at === -1
        ? (index === 0 ? "done" : "todo")
        : index < at
        ? "done"
        : index === at
        ? "current"
        : "todo"
      return `<li data-step="${step}" data-state="${state}"${index === at ? ` aria-current="step"` : ""}>${
        names[step]
      }</li>`
    }).join("")
  }</ol>`
}

const outcomeList = (outcome: Outcome) =>
  `<h3>Outcome</h3><dl>${row("Reference", escape(outcome.reference))}${row("Spent", money(outcome.spent))}${
    row("Verified at", escape(new Date(outcome.verifiedAt).toUTCString()))
  }${row("Provider", escape(outcome.provider))}</dl>`

const label = (status: string) => {
  const text = status.replaceAll("_", " ")
  return text.charAt(0).toUpperCase() + text.slice(1)
}

const jobSection = (job: Job, withSteps: boolean) =>
  `<section aria-labelledby="job-heading">
<h2 id="job-heading">The request now</h2>
<div role="status" aria-live="polite">
<p class="status" id="job-status">${label(job.status)}</p>
<p id="job-detail">${escape(statusWords[job.status] ?? "")}</p>
</div>
${withSteps ? steps(job.status) : ""}
<div id="outcome" aria-live="polite"${job.outcome === null ? " hidden" : ""}>${
    job.outcome === null ? "" : outcomeList(job.outcome)
  }</div>
</section>`

export interface Notice {
  readonly kind: "done" | "refused" | "info"
  readonly lines: ReadonlyArray<string>
  /** A refusal is announced at once (`role="alert"`). */
  readonly alert?: boolean
}

const noticeOf = (notice: Notice) =>
  `<div class="notice ${notice.kind}"${notice.alert === true ? ` role="alert"` : ""}>${
    notice.lines.map((line) => `<p>${line}</p>`).join("")
  }</div>`

const layout = (title: string, body: string, main: string) =>
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escape(title)}</title>
<link rel="stylesheet" href="/assets/approval.css">
<script src="/assets/approval.js" defer></script>
</head>
<body>
<main ${main}>
${body}
</main>
</body>
</html>
`

export interface PageInput {
  readonly link: StoredLink
  readonly token: string
  readonly job: Job
  /** The proposal the link names, exactly as stored. */
  readonly document: ProposalDocument
  readonly state: LinkState
  /** The service's time the page was read at (epoch milliseconds), as `state` was decided. */
  readonly now: number
  /** The position of the Job's last event shown: the live view follows from there. */
  readonly after: number
  /** The page's form token (see `FormToken`). */
  readonly form: string
  readonly notice?: Notice | undefined
}

const stateNotice = (state: LinkState): Notice | undefined => {
  switch (state._tag) {
    case "Open":
      return undefined
    case "Decided":
      return state.here
        ? {
          kind: "done",
          lines: [
            state.decision === "approve"
              ? "You approved this proposal. The service now carries it out; this page follows it."
              : "You rejected this proposal. The service looks for another offer; a new proposal needs a new link."
          ]
        }
        : {
          kind: "info",
          lines: [
            `This proposal was ${
              state.decision === "approve" ? "approved" : "rejected"
            } already, by someone else. This link decides nothing.`
          ]
        }
    case "Expired":
      return {
        kind: "info",
        lines: [
          "This link has expired: the proposal was not decided in time. It decides nothing.",
          "Ask for a new link."
        ]
      }
    case "Superseded":
      return { kind: "info", lines: [escape(state.why), "This link decides nothing. Ask for a new link."] }
  }
}

const decisionForm = (token: string, form: string, document: ProposalDocument) =>
  `<section aria-labelledby="decide-heading">
<h2 id="decide-heading">Your decision</h2>
<form class="decision" method="post" action="/approve/${escape(token)}/decision">
<input type="hidden" name="form" value="${escape(form)}">
<label for="reason">Reason <span class="from">Optional; kept with your decision</span></label>
<textarea id="reason" name="reason" rows="2" maxlength="1000"></textarea>
<p class="hint" id="decide-hint">Approving lets the service spend at most ${
    money(document.spend)
  } on this offer, once. Rejecting asks it for another offer.</p>
<div class="buttons">
<button type="submit" name="decision" value="approve" class="approve" aria-describedby="decide-hint">Approve</button>
<button type="submit" name="decision" value="reject" class="reject">Reject</button>
</div>
</form>
</section>`

export const page = (input: PageInput) => {
  const { document, job, link, state, token } = input
  const notices = [input.notice, stateNotice(state)].flatMap((notice) => notice === undefined ? [] : [noticeOf(notice)])
    .join("\n")
  const open = state._tag === "Open"
  const decidedHere = state._tag === "Decided" && state.here
  const follows = !open
  const main = [
    `data-state="${state._tag.toLowerCase()}"`,
    `data-job-status="${escape(job.status)}"`,
    `data-proposal-hash="${escape(link.proposalHash)}"`,
    `data-expires-at="${escape(link.expiresAt)}"`,
    `data-after="${input.after}"`,
    `data-events="/approve/${escape(token)}/events"`
  ].join(" ")
  const body = `<p class="eyebrow">${open ? "Your approval is asked for" : "Approval link"}</p>
<h1>${escape(document.objective.summary)}</h1>
${notices}
${follows ? jobSection(job, decidedHere && state._tag === "Decided" && state.decision === "approve") : ""}
<section aria-labelledby="request-heading">
<h2 id="request-heading">What was asked</h2>
<blockquote>${escape(job.request)}</blockquote>
</section>
<section aria-labelledby="facts-heading">
<h2 id="facts-heading">What the service understood</h2>
${facts(document)}
</section>
${proposalSection(document, link.proposalHash, `/approve/${token}/proposal`, open, input.now)}
${open ? decisionForm(token, input.form, document) : ""}
<footer><p>This page is for the person the link was given to. It expires with the proposal.</p></footer>`
  return layout(
    open ? `Approve: ${document.objective.summary}` : `Approval link: ${document.objective.summary}`,
    body,
    main
  )
}

/** A page that says one thing: an unknown link, a refusal, the service unavailable. */
export const message = (title: string, lines: ReadonlyArray<string>) =>
  layout(
    title,
    `<h1>${escape(title)}</h1>
${noticeOf({ kind: "refused", lines: lines.map(escape) })}`,
    `data-state="message"`
  )
