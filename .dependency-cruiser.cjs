// Architecture check for src/: no import cycles, and no import that goes up a layer.
// Run by `npm run check` through `npm run check:deps` (`depcruise src --config .dependency-cruiser.cjs`).
//
// Layers, low to high (a module may import from its own layer or a lower one):
//   src/schema                                                  the leaf: plain data and schemas
//   src/services/store, src/services/text                       two leaf services, neither imports the other
//                                                                 nor any other service: the database, and
//                                                                 how text reads (words, places, canonical JSON)
//   src/services/{access,interpreter,providers,waitlist}        the domain services
//   src/services/jobs                                           the Job service, built on the ones above
//   src/http                                                    the HTTP server
//   entry points: src/*.ts, src/cli, src/client, src/conformance
//
// One rule per boundary below: to move a folder to another layer, edit the `path` of the rules
// that name it. Type-only imports (`import type`) count like any other import
// (tsPreCompilationDeps), because a type import still ties the two modules together.

/** Entry points: the files directly in src/ and the folders that start a program. */
const ENTRY_POINTS = ["^src/[^/]+$", "^src/(cli|client|conformance)/"]

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    // ---- cycles -------------------------------------------------------------------------
    {
      name: "no-circular",
      comment:
        "A cycle of run-time imports (static or dynamic import(), no `import type` in it): break it by moving the shared part into a lower module.",
      severity: "error",
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ["type-only"] } }
    },
    {
      name: "no-circular-type",
      comment:
        "A cycle closed by at least one `import type`: erased at run time, but the modules still can't be understood or moved apart. Move the shared type into a lower module.",
      severity: "error",
      from: {},
      to: { circular: true, via: { dependencyTypes: ["type-only"] } }
    },

    // ---- layers -------------------------------------------------------------------------
    {
      name: "schema-is-a-leaf",
      comment: "src/schema is the lowest layer: it imports nothing from src/services, src/http or the entry points.",
      severity: "error",
      from: { path: "^src/schema/" },
      to: { path: ["^src/services/", "^src/http/", ...ENTRY_POINTS] }
    },
    {
      name: "services-below-http",
      comment:
        "src/services/** is below the HTTP layer and the entry points: it imports nothing from src/http, src/*.ts, src/cli, src/client or src/conformance.",
      severity: "error",
      from: { path: "^src/services/" },
      to: { path: ["^src/http/", ...ENTRY_POINTS] }
    },
    {
      name: "http-below-entry-points",
      comment: "src/http imports nothing from the entry points (src/*.ts, src/cli, src/client, src/conformance).",
      severity: "error",
      from: { path: "^src/http/" },
      to: { path: ENTRY_POINTS }
    },
    {
      name: "store-below-other-services",
      comment: "src/services/store is the lowest service: it imports nothing from the other src/services folders.",
      severity: "error",
      from: { path: "^src/services/store/" },
      to: { path: "^src/services/[^/]+/", pathNot: "^src/services/store/" }
    },
    {
      name: "domain-services-below-jobs",
      comment:
        "src/services/{access,interpreter,providers,waitlist} are below src/services/jobs: they import nothing from it.",
      severity: "error",
      from: { path: "^src/services/(access|interpreter|providers|waitlist)/" },
      to: { path: "^src/services/jobs/" }
    },

    // ---- sibling folders inside src/services ---------------------------------------------
    {
      name: "text-is-a-leaf",
      comment:
        "src/services/text (how words and place names read, canonical JSON, SHA-256) is below every service that reads or writes text: it imports no other service.",
      severity: "error",
      from: { path: "^src/services/text/" },
      to: { path: "^src/services/[^/]+/", pathNot: "^src/services/text/" }
    },
    {
      name: "providers-not-into-interpreter",
      comment:
        "src/services/providers does not import src/services/interpreter: the two are siblings, and what both need belongs lower.",
      severity: "error",
      from: { path: "^src/services/providers/" },
      to: { path: "^src/services/interpreter/" }
    },

    // ---- inside src/services/jobs ------------------------------------------------------
    {
      name: "rules-are-pure",
      comment:
        "src/services/jobs/rules decides, from a Job, what a change is: it imports no service of jobs (nor the runner), and no store.",
      severity: "error",
      from: { path: "^src/services/jobs/rules/" },
      to: { path: ["^src/services/jobs/(?!rules/)", "^src/services/store/"] }
    },
    {
      name: "public-services-below-runner",
      comment:
        "The public Job services and their store do not import the runner, which uses them; only the queue the store signals after a commit (runner/RunQueue) is theirs to reach.",
      severity: "error",
      from: { path: "^src/services/jobs/[^/]+[.]ts$" },
      to: { path: "^src/services/jobs/runner/", pathNot: "^src/services/jobs/runner/RunQueue[.]ts$" }
    }
  ],
  options: {
    // only the project's own modules; packages and node: built-ins are not followed
    includeOnly: "^src/",
    // keep `import type` dependencies (TypeScript would erase them before run time)
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    // the code imports "./X.ts" (allowImportingTsExtensions) and "./X.json"
    enhancedResolveOptions: {
      extensions: [".ts", ".js", ".json"],
      conditionNames: ["import", "require", "node", "default", "types"],
      exportsFields: ["exports"],
      mainFields: ["module", "main", "types", "typings"]
    },
    skipAnalysisNotInRules: true
  }
}
