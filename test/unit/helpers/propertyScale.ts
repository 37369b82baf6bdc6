/**
 * How large the property tests run (test/system/secretMasking.test.ts, secretUtf16.test.ts):
 * TOR_PROPERTY_SCALE.
 *
 * - unset (or anything but `full`): the quick size, for a run by hand (`npm run test:system`, one
 *   file with `npx mocha`). Every test still runs, and every kind of edge is still crossed once; only
 *   the repetitions (more rounds, the same edges again further into a larger file) are left out.
 * - `full`: the full size. scripts/test-all.mjs sets it for its unit and system steps, so `npm test`
 *   (and CI, which runs exactly that) always runs the full size. `TOR_PROPERTY_SCALE=full npx mocha
 *   <file>` runs one file at full size.
 *
 * Each test file says what its quick and full sizes are. A seed (`TEST_SEED`, helpers/prng.ts) replays
 * a failure at the scale it failed at, so the failure messages name the scale too.
 */
export const FULL_PROPERTY_SCALE = process.env.TOR_PROPERTY_SCALE === 'full';

/** The scale's name, for failure messages: `quick` or `full`. */
export const PROPERTY_SCALE = FULL_PROPERTY_SCALE ? 'full' : 'quick';

/** `quick` on the quick (default) scale, `full` when TOR_PROPERTY_SCALE=full. */
export function propertySize<T>(quick: T, full: T): T {
  return FULL_PROPERTY_SCALE ? full : quick;
}
