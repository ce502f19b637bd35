import * as PrivatePostgres from "./PrivatePostgres.ts"

/**
 * Vitest's global setup for `npm run test:faults`: a private PostgreSQL server for the files that also
 * run in `npm test` and bound time here, named to them as `TEST_DATABASE_URL` (the workers, started
 * after this, inherit it) unless the caller named one.
 */
export default function setup() {
  if (process.env.TEST_DATABASE_URL !== undefined) return
  const server = PrivatePostgres.make()
  process.env.TEST_DATABASE_URL = server.url
  return () => server.destroy()
}
