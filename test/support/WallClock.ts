/**
 * Whether this run bounds wall-clock time. `npm test` asserts what happens and in which order, never
 * how fast, so that it holds on a machine whose cores other work keeps busy; `npm run test:faults`
 * (vitest.faults.config.ts) runs the same files again with their time bounds (an answer within 3 s, a
 * wake-up within 2 s), on a machine given to it.
 */
export const bounded = process.env.TEST_WALL_CLOCK === "1"

/**
 * How long a test waits for something that must happen before it gives up: a liveness guard, which
 * holds at a quarter of a quiet machine's speed, in `npm test`; the bound itself under test:faults.
 */
export const patience = (bound: number) => bounded ? bound : Math.max(bound, 60_000)
