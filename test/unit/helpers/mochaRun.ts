/**
 * Two things every mocha run of this project does, the unit suite (installed by countingReporter.cjs,
 * the one module .mocharc.json makes every run load) and the real-host suite (test/integration/index.ts):
 *
 * - Deadlines scale with the machine. scripts/test-all.mjs measures, before each suite, how much
 *   slower than an idle machine of this project's kind (2 cores) this one runs (a fixed CPU workload,
 *   the load per core) and passes the factor in TEST_TIME_SCALE; it is 1 when unset (`npx mocha <file>`
 *   on a quiet machine). Every mocha timeout (.mocharc's, each suite's this.timeout()) and every
 *   deadline a test sets through scaled() is multiplied by it. Those deadlines exist so that a hang
 *   fails with a message instead of running until the suite is killed; none of them is a measurement.
 * - A skip says why. skipBecause(this, reason) puts the reason into the skipped tests' titles, so every
 *   reporter prints it on the test's own line; a bare this.skip() (or it.skip) is named by where it was
 *   called from and that source line, so even a skip nobody explained does not pass without a word.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TIME_SCALE } from './timeScale';

export { MAX_TIME_SCALE, scaled, TIME_SCALE, waitUntil } from './timeScale';

// ---------------------------------------------------------------------------------------------------
// Skips

// Symbol.for: the host suite's files are separate bundles, each with its own copy of this module.
const REASON = Symbol.for('tool-output-recall.skipReason');

interface SkippableTest {
  title: string;
  [REASON]?: true;
}
interface SuiteLike {
  tests: SkippableTest[];
  suites: SuiteLike[];
}
interface RunnableLike {
  type?: string;
  title: string;
  originalTitle?: string;
  parent?: SuiteLike;
  ctx?: { currentTest?: SkippableTest };
  skip(): never;
}

/** The tests a skip called from `runnable` skips: the test itself, a before each's test, or a before all's suite. */
function skippedBy(runnable: RunnableLike): SkippableTest[] {
  if (runnable.type !== 'hook') return [runnable];
  const title = runnable.originalTitle ?? runnable.title;
  if (title.startsWith('"before all" hook') && runnable.parent) {
    const all: SkippableTest[] = [];
    const walk = (suite: SuiteLike): void => {
      all.push(...suite.tests);
      suite.suites.forEach(walk);
    };
    walk(runnable.parent);
    return all;
  }
  return runnable.ctx?.currentTest ? [runnable.ctx.currentTest] : [];
}

function giveReason(tests: SkippableTest[], reason: string): void {
  for (const test of tests) {
    if (test[REASON]) continue;
    test.title = `${test.title} (skipped: ${reason})`;
    test[REASON] = true;
  }
}

/**
 * Skips the running test (from a before() hook: its whole suite) and says why: "(skipped: reason)"
 * joins the title of each test it skips, which the reporter prints on that test's line.
 */
export function skipBecause(ctx: Mocha.Context, reason: string): never {
  const runnable = ctx.runnable() as unknown as RunnableLike;
  giveReason(skippedBy(runnable), reason);
  return ctx.skip();
}

/** The line that called this.skip(), with the lines that lead up to it (its condition), from the stack. */
function skipSite(stack: string | undefined): string | undefined {
  for (const line of (stack ?? '').split('\n').slice(1)) {
    const m = /\(?((?:[A-Za-z]:)?[^\s():]+):(\d+):\d+\)?$/.exec(line.trim());
    if (!m) continue;
    const [, file, lineNo] = m;
    if (/[\\/]node_modules[\\/]mocha[\\/]|mochaRun\.[tj]s$|^node:/.test(file)) continue;
    let source: string[];
    try {
      source = fs.readFileSync(file, 'utf8').split('\n');
    } catch {
      return `${file}:${lineNo}`;
    }
    const at = Number(lineNo) - 1;
    // The skip's line; when it is only the call, the lines before it up to its `if` or `catch`.
    // (after a `} catch {`, also the last line of the try: what failed).
    const shown = [source[at]?.trim() ?? ''];
    if (/^(?:this\.)?skip\(\);?$/.test(shown[0])) {
      for (let i = at - 1, caught = false; i >= Math.max(0, at - 4); i--) {
        const lead = source[i].trim();
        shown.unshift(lead);
        if (caught) break;
        if (/^\} catch\b/.test(lead)) caught = true;
        else if (/\bif \(|\bcatch\b/.test(lead)) break;
      }
    }
    const where = path.relative(process.cwd(), file) || file;
    return `${where}:${lineNo}: ${shown.filter(Boolean).join(' ').slice(0, 300)}`;
  }
  return undefined;
}

interface MochaLike {
  Runnable: { prototype: object };
  Test: { prototype: object };
}

const INSTALLED = Symbol.for('tool-output-recall.mochaRun');

/**
 * Installs both in this mocha: timeouts read through Runnable#timeout() are multiplied by `scale`,
 * and a skip without skipBecause() names its call site. Idempotent.
 */
export function installRunRules(mocha: MochaLike, scale = TIME_SCALE): void {
  const runnable = mocha.Runnable.prototype as {
    timeout(...args: unknown[]): unknown;
    skip(): never;
    [INSTALLED]?: true;
  };
  if (runnable[INSTALLED]) return;
  runnable[INSTALLED] = true;

  // Mocha keeps the timeout a test or suite set; it is stretched where mocha reads it to arm the
  // timer and to judge a finished test, so a suite's this.timeout(60_000) and its inheritance stay as
  // written (setting through the getter's value would compound down the suite tree).
  const timeout = runnable.timeout;
  if (scale > 1) {
    runnable.timeout = function (this: unknown, ...args: unknown[]): unknown {
      if (args.length > 0) return timeout.apply(this, args);
      const ms = timeout.call(this) as number;
      return ms === 0 ? 0 : Math.min(2 ** 31 - 1, Math.round(ms * scale));
    };
    // A retried test is a clone that copies the timeout through the getter: copy the kept value.
    const test = mocha.Test.prototype as { clone(): { _timeout?: number }; _timeout?: number };
    const clone = test.clone;
    test.clone = function (this: { _timeout?: number }) {
      const copy = clone.call(this);
      copy._timeout = this._timeout;
      return copy;
    };
  }

  const skip = runnable.skip;
  runnable.skip = function (this: RunnableLike): never {
    const tests = skippedBy(this).filter((t) => !t[REASON]);
    if (tests.length > 0) giveReason(tests, `no reason given; skipped at ${skipSite(new Error().stack) ?? 'an unknown place'}`);
    return skip.call(this);
  };
}

/** For a pending test that no skip explained (it.skip, xit, describe.skip): say so in its title. */
export function explainStaticSkip(test: SkippableTest): void {
  giveReason([test], 'marked it.skip, xit or describe.skip in its file, with no reason given');
}
