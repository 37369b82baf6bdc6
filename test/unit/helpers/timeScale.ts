/**
 * How much slower than an idle machine of this project's kind (2 cores) the machine running the tests
 * is: scripts/test-all.mjs measures it before each suite (a fixed CPU workload, the load per core) and
 * passes it in TEST_TIME_SCALE; 1 when unset (`npx mocha <file>` on a quiet machine). Deadlines that
 * exist so that a hang fails, instead of running until the suite is killed, are multiplied by it
 * (scaled()); mocha's timeouts too (mochaRun.ts). No measurement or bound of the product's speed is.
 *
 * Plain TypeScript, no mocha types: the browser suite (its own harness) uses it too.
 */

/** The most TEST_TIME_SCALE is taken to be: a hung suite is still killed, only later. */
export const MAX_TIME_SCALE = 8;

function parseScale(value: string | undefined): number {
  const n = Number(value);
  return Number.isFinite(n) && n > 1 ? Math.min(n, MAX_TIME_SCALE) : 1;
}

/** How much longer than on an idle machine a deadline gets here (TEST_TIME_SCALE, 1 to MAX_TIME_SCALE). */
export const TIME_SCALE = parseScale(process.env.TEST_TIME_SCALE);

/** `ms` (a generous deadline for an idle machine) stretched for this machine. */
export function scaled(ms: number): number {
  return Math.round(ms * TIME_SCALE);
}

/**
 * Polls `check` until it holds, at most `limitMs` (scaled); then fails naming `what`. For conditions
 * that have no event to wait for: the deadline is there so a condition that never comes fails the
 * test with what it waited for, before mocha's timeout does without.
 */
export async function waitUntil(what: string, check: () => boolean | Promise<boolean>, limitMs = 20_000, everyMs = 20): Promise<void> {
  const deadline = scaled(limitMs);
  const end = Date.now() + deadline;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out after ${deadline} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
