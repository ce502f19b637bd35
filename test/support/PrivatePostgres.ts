import { execFileSync } from "node:child_process"
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/**
 * A PostgreSQL server of the test's own, in a temporary directory, that the test may hang (SIGSTOP on
 * every process of it), crash (`pg_ctl stop -m immediate`) and start again: what cannot be done to
 * the machine's shared server. Built from the machine's PostgreSQL binaries; as root, it runs as the
 * `postgres` user, since PostgreSQL refuses to run as root.
 */
export interface PrivatePostgres {
  readonly url: string
  readonly pause: () => void
  readonly resume: () => void
  readonly crash: () => void
  readonly start: () => void
  readonly destroy: () => void
}

const binaries = () => {
  const root = "/usr/lib/postgresql"
  const version = existsSync(root) ? readdirSync(root).sort().at(-1) : undefined
  if (version === undefined) throw new Error(`no PostgreSQL binaries under ${root}`)
  return join(root, version, "bin")
}

export const make = (): PrivatePostgres => {
  const bin = binaries()
  const asRoot = process.getuid?.() === 0
  const dir = mkdtempSync(join(tmpdir(), "faults-pg-"))
  const data = join(dir, "data")
  if (asRoot) {
    const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"]).toString())
    chownSync(dir, id("-u"), id("-g"))
  }
  const run = (command: string, args: ReadonlyArray<string>) =>
    execFileSync(asRoot ? "runuser" : command, asRoot ? ["-u", "postgres", "--", command, ...args] : args, {
      stdio: "ignore",
      timeout: 60_000
    })
  const port = 30000 + Math.floor(Math.random() * 20000)
  run(join(bin, "initdb"), ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync"])
  const start = () =>
    run(join(bin, "pg_ctl"), [
      "-D",
      data,
      "-w",
      "-l",
      join(dir, "log"),
      "-o",
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c synchronous_commit=on -c fsync=on`,
      "start"
    ])
  start()

  // The postmaster and every process it has started, so that none answers while paused.
  const processes = () => {
    const postmaster = Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0])
    const children = execFileSync("ps", ["-o", "pid=", "--ppid", String(postmaster)]).toString().split("\n")
    return [postmaster, ...children.map(Number).filter((pid) => pid > 0)]
  }
  const signal = (name: NodeJS.Signals) => {
    for (const pid of processes()) {
      try {
        process.kill(pid, name)
      } catch {
        // The process has just ended.
      }
    }
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    pause: () => signal("SIGSTOP"),
    resume: () => signal("SIGCONT"),
    crash: () => run(join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "stop"]),
    start,
    destroy: () => {
      try {
        signal("SIGCONT")
        run(join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "stop"])
      } catch {
        // Already stopped.
      }
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
