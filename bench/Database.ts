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
