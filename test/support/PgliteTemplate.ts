import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { TestProject } from "vitest/node"

declare module "vitest" {
  export interface ProvidedContext {
    /** An embedded data directory made once for the run: `TestDatabase.pgliteDataDir` copies it. */
    readonly pgliteTemplate: string
  }
}

/**
 * Vitest's global setup: one embedded data directory, created as the service creates one (PGlite's
 * `initdb`, in a process of its own), for the whole run. Every test store on PGlite starts as a copy of
 * it (about 0.5 s) instead of running `initdb` again (about 9 s of CPU each, 20-odd stores a run); the
 * service finds `PG_VERSION` there and opens it as it opens any existing directory.
 */
export default function setup(project: TestProject) {
  const parent = mkdtempSync(join(tmpdir(), "pglite-template-"))
  const template = join(parent, "data")
  execFileSync(process.execPath, [
    "--input-type=module",
    "--eval",
    `const { PGlite } = await import("@electric-sql/pglite"); await (await PGlite.create({ dataDir: process.argv[1] })).close()`,
    template
  ], { cwd: project.config.root, stdio: ["ignore", "ignore", "inherit"] })
  project.provide("pgliteTemplate", template)
  return () => rmSync(parent, { recursive: true, force: true })
}
