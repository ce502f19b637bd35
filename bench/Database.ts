import { randomBytes } from "node:crypto"
import pg from "pg"

/** The PostgreSQL server the benches make their databases on (`BENCH_DATABASE_URL`). */
export const adminUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"

/** Runs one statement (`CREATE DATABASE`, `DROP DATABASE`) on a connection of its own. */
export const admin = async (statement: string) => {
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}

/** The URL of `database` on the same server. */
export const databaseUrl = (database: string) => {
  const url = new URL(adminUrl)
  url.pathname = `/${database}`
  return url.toString()
}

/**
 * A database of one bench run's own on the benches' server, `bench_<role>_<time>_<random>`: named at
 * once (a cleanup that runs before `create` has finished still knows it), made by `create`, removed by
 * `drop`, which is forced (a server that failed may still hold a connection to it) and harmless when
 * the database was never made.
 */
export const scratchDatabase = (role: string) => {
  const name = `bench_${role}_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`
  return {
    name,
    url: databaseUrl(name),
    create: () => admin(`CREATE DATABASE ${name}`),
    drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  }
}
