/**
 * `npm start` runs the service as compiled JavaScript (`dist/`): no TypeScript is stripped at start-up,
 * which saves the stripper's memory (about 20 MB resident) and a tenth of the start time
 * (docs/PERFORMANCE.md). This runs before it (`prestart`) and compiles `src/` with the project's own
 * `tsc`, type checks included, when a source file is newer than the last build or the lockfile's content
 * changed (not its timestamp: `npm install` rewrites it every time), so that `npm start` never runs a
 * stale build; when nothing changed it costs a directory walk and one hash.
 */
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import { readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const built = join(root, "dist", ".tsbuildinfo")

const newestIn = (directory: string): number =>
  readdirSync(directory, { withFileTypes: true }).reduce((newest, entry) => {
    const path = join(directory, entry.name)
    return Math.max(newest, entry.isDirectory() ? newestIn(path) : statSync(path).mtimeMs)
  }, 0)

const builtAt = (() => {
  try {
    return statSync(built).mtimeMs
  } catch {
    return 0
  }
})()
const sources = Math.max(
  newestIn(join(root, "src")),
  ...["tsconfig.json", "tsconfig.build.json"].map((file) => statSync(join(root, file)).mtimeMs)
)
// `npm install` rewrites the lockfile (a new timestamp) even when no dependency changed: its content decides.
const lockfile = createHash("sha256").update(readFileSync(join(root, "package-lock.json"))).digest("hex")
const builtWith = (() => {
  try {
    return readFileSync(join(root, "dist", ".package-lock.sha256"), "utf8")
  } catch {
    return ""
  }
})()

if (sources > builtAt || lockfile !== builtWith) {
  process.stdout.write("Compiling src/ to dist/ (tsc -p tsconfig.build.json)\n")
  execFileSync(
    process.execPath,
    [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json"],
    {
      cwd: root,
      stdio: "inherit"
    }
  )
  // tsc leaves its build information as it was when no output changed: the build is now current.
  const now = new Date()
  utimesSync(built, now, now)
  writeFileSync(join(root, "dist", ".package-lock.sha256"), lockfile)
}
