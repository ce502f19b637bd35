import addFormats from "ajv-formats"
import { Ajv2020 } from "ajv/dist/2020.js"
import type { ValidateFunction } from "ajv/dist/2020.js"
import { readFileSync } from "node:fs"
import type { IncomingHttpHeaders } from "node:http"

/**
 * Every answer of the Job API held to the published OpenAPI document (the preview's, as the snapshot
 * test keeps it): a status the operation declares, the headers it requires, and a body its schema
 * accepts; a method the path does not serve is 405 with `Allow`. `send` checks every answer the HTTP
 * tests receive on a Job API path, so that the document cannot drift from the server.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an OpenAPI document is read as plain JSON
type Spec = Record<string, any>

export const document: Spec = JSON.parse(
  readFileSync(new URL("../__snapshots__/openapi-preview.json", import.meta.url), "utf8")
)

const base = "https://request-coordination.test/openapi.json"
const ajv = new Ajv2020({ strict: false, allErrors: true })
addFormats.default(ajv)
ajv.addSchema({ $id: base, components: document.components })

const rebased = (schema: unknown): Spec =>
  JSON.parse(JSON.stringify(schema).replaceAll("\"#/components/", `"${base}#/components/`))

const compiled = new Map<string, ValidateFunction>()
const validator = (id: string, schema: unknown) => {
  let validate = compiled.get(id)
  if (validate === undefined) {
    validate = ajv.compile(rebased(schema))
    compiled.set(id, validate)
  }
  return validate
}

const templates = Object.keys(document.paths as Spec).map((template) => ({
  template,
  pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`)
}))

/** Whether the Job API answers this path (the waitlist's own rules are tested byte for byte elsewhere). */
export const isJobPath = (path: string) => path.startsWith("/v1/jobs") || path.startsWith("/v1/events")

export interface Answer {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

/** What in `answer` to `method path` the document does not allow; empty when it matches. */
export const problemsOf = (method: string, path: string, answer: Answer): ReadonlyArray<string> => {
  const bare = path.split(/[?#]/, 1)[0]!
  const found = templates.find(({ pattern }) => pattern.test(bare))
  if (found === undefined) return []
  const operations = document.paths[found.template] as Spec
  const operation = operations[method === "HEAD" ? "get" : method.toLowerCase()] as Spec | undefined
  const where = `${method} ${found.template} ${answer.status}`
  if (operation === undefined) {
    const allow = String(answer.headers.allow ?? "")
    const served = Object.keys(operations).map((name) => name.toUpperCase()).sort().join(", ")
    return answer.status === 405 && allow.split(", ").sort().join(", ") === served
      ? []
      : [`${where}: a method the path does not serve must be 405 with Allow: ${served} (Allow: ${allow})`]
  }
  const response = operation.responses[String(answer.status)] as Spec | undefined
  if (response === undefined) return [`${where}: status not declared`]
  const problems: Array<string> = []
  for (const [name, header] of Object.entries((response.headers ?? {}) as Spec)) {
    const value = answer.headers[name.toLowerCase()]
    if (value === undefined) {
      if (header.required === true) problems.push(`${where}: header ${name} is required`)
      continue
    }
    const check = validator(`${where} header ${name}`, header.schema ?? {})
    if (!check(String(value))) problems.push(`${where}: header ${name}: ${ajv.errorsText(check.errors)}`)
  }
  const content = response.content as Spec | undefined
  const type = String(answer.headers["content-type"] ?? "").split(";", 1)[0]!.trim()
  if (content === undefined) {
    if (answer.body !== "") problems.push(`${where}: a body where none is declared`)
    return problems
  }
  const media = content[type] as Spec | undefined
  if (media === undefined) return [...problems, `${where}: content type ${type || "(none)"} not declared`]
  if (type !== "application/json") return problems
  let body: unknown
  try {
    body = JSON.parse(answer.body)
  } catch {
    return [...problems, `${where}: the body is not JSON`]
  }
  const check = validator(`${where} body`, media.schema ?? {})
  if (!check(body)) {
    problems.push(`${where}: ${ajv.errorsText(check.errors, { dataVar: "body" })} in ${answer.body.slice(0, 300)}`)
  }
  return problems
}
