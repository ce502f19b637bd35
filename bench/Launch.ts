/**
 * How the benches start what they measure (the project's rule for benchmarks on 2 shared cores): the
 * service on CPU 0, the load generator on CPU 1, PostgreSQL left to the scheduler, so that what the
 * server spends per request is what limits it and what is measured; and the service as `npm start`
 * runs it, not as the sources run with type stripping.
 */
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"

/** Whether `taskset` is here and may pin to CPU 1 (two cores or more). */
export const canPin = (() => {
  try {
    execFileSync("taskset", ["-c", "1", "true"], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
})()

/** `command args` pinned to `cpu` when it can be (`taskset` execs it: the pid is the command's). */
export const pinned = (cpu: number, command: string, args: ReadonlyArray<string>): [string, Array<string>] =>
  canPin ? ["taskset", ["-c", String(cpu), command, ...args]] : [command, [...args]]

/** Pins this process, every thread of it (`-a`: V8's and libuv's too), and so what it starts later. */
export const pinThisProcess = (cpu: number) => {
  if (canPin) execFileSync("taskset", ["-a", "-p", "-c", String(cpu), String(process.pid)], { stdio: "ignore" })
}

export const pinning = (what: string) =>
  canPin ? `pinned: ${what}; PostgreSQL unpinned` : "unpinned (no taskset, or one core): CPU figures are not comparable"

const scriptsOf = (checkout: string) =>
  JSON.parse(readFileSync(join(checkout, "package.json"), "utf8")).scripts as Record<string, string>

/**
 * The command line `npm start` runs in `checkout`, without npm in between (it would be one more
 * process on the server's CPU): package.json's `start` script, `NAME=value` prefixes as environment,
 * `node` (after the shell's `exec`, if any) as this Node, and its arguments (Node's flags, then the
 * service's entry point). Nothing is run.
 */
export const startScript = (checkout: string) => {
  const script = scriptsOf(checkout).start
  if (script === undefined || /[|&;<>`$()]/.test(script)) {
    throw new Error(`the benches run a start script of the form [NAME=value …] [exec] node …; got: ${script}`)
  }
  const words = script.trim().split(/\s+/)
  const env: Record<string, string> = {}
  while (/^[A-Za-z_]\w*=/.test(words[0]!)) {
    const [name, ...value] = words.shift()!.split("=")
    env[name!] = value.join("=")
  }
  if (words[0] === "exec") words.shift()
  if (words.shift() !== "node") throw new Error(`the start script does not run node: ${script}`)
  return { args: words, env, text: script }
}

/** `startScript`, after the checkout's `prestart` script, if any (a build), has run once. */
export const startCommand = (checkout: string) => {
  if (scriptsOf(checkout).prestart !== undefined) {
    execFileSync("npm", ["run", "prestart"], { cwd: checkout, stdio: "inherit" })
  }
  return startScript(checkout)
}
