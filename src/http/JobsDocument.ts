import * as Schema from "effect/Schema"
import { eventTypes } from "../schema/JobEvent.ts"
import { eventData } from "../schema/JobEventData.ts"

/**
 * What the Job API's OpenAPI document says beyond what its schemas generate, so that the document is as
 * exact as the server: one event schema per `type`, the headers the middleware writes (`Location`,
 * `Idempotent-Replayed`, `Retry-After`, `ETag`), the 304 of a proposal, and the stream of events.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an OpenAPI document is read as plain JSON
type Spec = Record<string, any>

const replayed = {
  description: "`true` when this is the stored answer of an earlier request with the same Idempotency-Key.",
  schema: { type: "string", enum: ["true"] }
}

const retryAfter = {
  description: "Whole seconds to wait before retrying; sent with `idempotency_key_in_use`.",
  schema: { type: "string", pattern: "^[0-9]+$" }
}

const etag = {
  description: "The proposal hash, quoted: the same bytes always have the same ETag.",
  required: true,
  schema: { type: "string", pattern: "^\"sha256:[0-9a-f]{64}\"$" }
}

/** `job.input_requested` → `JobInputRequestedEvent`. */
const variantName = (type: string) =>
  type.split(/[._]/).map((word) => word[0]!.toUpperCase() + word.slice(1)).join("") + "Event"

const toComponents = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value).replaceAll("\"#/$defs/", "\"#/components/schemas/"))

/** The event schema, one variant per type with its own `data`, chosen by `type`. */
const typedEvents = (spec: Spec): Spec => {
  const schemas: Spec = { ...spec.components.schemas }
  const base = schemas.JobEvent
  const mapping: Record<string, string> = {}
  for (const type of eventTypes) {
    const document = Schema.toJsonSchemaDocument(eventData[type])
    for (const [name, definition] of Object.entries(document.definitions)) {
      schemas[name] ??= toComponents(definition)
    }
    const name = variantName(type)
    mapping[type] = `#/components/schemas/${name}`
    schemas[name] = {
      ...base,
      description: `An event of type \`${type}\`.`,
      properties: { ...base.properties, type: { type: "string", enum: [type] }, data: toComponents(document.schema) }
    }
  }
  schemas.JobEvent = {
    description: base.description ?? "An event of a Job; `data` depends on `type`.",
    oneOf: eventTypes.map((type) => ({ $ref: mapping[type] })),
    discriminator: { propertyName: "type", mapping }
  }
  return { ...spec, components: { ...spec.components, schemas } }
}

const mapOperations = (spec: Spec, change: (operation: Spec, method: string, path: string) => Spec): Spec => ({
  ...spec,
  paths: Object.fromEntries(
    Object.entries(spec.paths as Record<string, Record<string, Spec>>).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item).map(([method, operation]) => [method, change(operation, method, path)])
      )
    ])
  )
})

const withHeaders = (response: Spec, headers: Record<string, Spec>): Spec => ({
  ...response,
  headers: { ...response.headers, ...headers }
})

const exactOperation = (operation: Spec, method: string, path: string): Spec => {
  const responses: Record<string, Spec> = { ...operation.responses }
  // Only a path that names something can name nothing.
  if (!path.includes("{")) delete responses["404"]
  if (method === "post") {
    // An answer given after the key's claim is stored and may come back as a replay (a 422 given before
    // the claim never does: the header is optional).
    for (const status of Object.keys(responses)) {
      if (!["400", "401", "403", "503"].includes(status)) {
        responses[status] = withHeaders(responses[status]!, { "idempotent-replayed": replayed })
      }
    }
    if (responses["409"] !== undefined) responses["409"] = withHeaders(responses["409"], { "retry-after": retryAfter })
  }
  if (method === "post" && path === "/v1/jobs") {
    responses["201"] = withHeaders(responses["201"]!, {
      location: { description: "The new Job's path.", required: true, schema: { type: "string" } }
    })
  }
  if (path.endsWith("/proposals/{hash}")) {
    responses["200"] = withHeaders(responses["200"]!, { etag })
    responses["304"] = { description: "The proposal is the one `If-None-Match` names.", headers: { etag } }
    operation = {
      ...operation,
      parameters: [...operation.parameters, {
        name: "If-None-Match",
        in: "header",
        required: false,
        description: "ETags already held: 304 when one of them is this proposal's.",
        schema: { type: "string" }
      }]
    }
  }
  return { ...operation, responses }
}

export const exactDocument = (spec: Spec): Spec =>
  typedEvents(
    mapOperations(spec, (operation, method, path) =>
      path.startsWith("/v1/jobs") || path === "/v1/events" ? exactOperation(operation, method, path) : operation)
  )
