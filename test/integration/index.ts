// In-host test entry: VS Code's extension host loads this module (the payload's extensionTestsPath, or
// @vscode/test-electron's extensionTestsPath) and awaits `run()`. A rejection makes the host exit with 1.
//
// scripts/host/run.mjs bundles this file and every test/integration/**/*.test.ts into
// dist/test/integration/ (one bundle per file, same relative paths). The suites are loaded here with
// mocha's addFile, i.e. `require()` after mocha has installed describe/it as globals; a single bundle
// importing them statically would run their describe() calls before mocha exists.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { format } from 'node:util';
// Bundled by esbuild, which resolves mocha 12's ESM entry to its CommonJS constructor at build time. A
// runtime `require('mocha')` differs between Node 20 (object with .Mocha) and Node 24 (the function).
import Mocha from 'mocha';
import { explainStaticSkip, installRunRules, TIME_SCALE } from '../unit/helpers/mochaRun';

export interface HostTestResults {
  passed: number;
  failed: number;
  pending: number;
  failures: { title: string; error: string }[];
  /** The skipped tests' full titles, each with why ("… (skipped: reason)"). */
  skips?: string[];
}

// These measure the side bar as a newcomer first sees it: the Inspector's placeholder before any output
// was opened, and the views' first-show sizes. VS Code keeps no way to reset a container's split, and a
// view shown and hidden by another suite (Search Results) leaves the split redistributed for the window's
// life, so they run first.
const FIRST_SHOW = ['inspectorView.test.js', 'sideViewLayout.test.js'];

function findSuites(dir: string): string[] {
  const rank = (f: string) => {
    const at = FIRST_SHOW.indexOf(path.basename(f));
    return at === -1 ? FIRST_SHOW.length : at;
  };
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.test.js'))
    .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))
    .map((f) => path.join(dir, f));
}

// The extension host's console reaches scripts/host/run.mjs mixed with the workbench's own log. The
// test run's output (mocha's report, the summary line, testLog() in log.ts) starts with the marker that
// run.mjs passes in TOR_TEST_LOG_MARKER, so it can show the output and hide the noise. (Wrapping
// console.* is not possible: the extension host defines those methods with a no-op setter.)
const marker = process.env.TOR_TEST_LOG_MARKER ?? '';

export function run(): Promise<void> {
  // Colour codes would end up in logs (mocha prints them under CI=true even with color:false).
  process.env.NO_COLOR = '1';
  // The spec reporter prints through Base.consoleLog with printf-style arguments. The host forwards
  // console arguments one by one, so format here and hand over a single finished, marked line.
  Mocha.reporters.Base.consoleLog = (...args: unknown[]) => console.log(marker + format(...args));
  Mocha.reporters.Base.useColors = false;
  // As in the unit suite: timeouts ×TEST_TIME_SCALE (passed through code-server's environment), and
  // every skip says why (test/unit/helpers/mochaRun.ts).
  installRunRules(Mocha);
  if (TIME_SCALE > 1) console.log(`${marker}  (timeouts ×${TIME_SCALE}: TEST_TIME_SCALE)`);

  const mocha = new Mocha({
    ui: 'bdd',
    reporter: 'spec',
    color: false,
    timeout: Number(process.env.TOR_TEST_TIMEOUT_MS) || 60_000,
    grep: process.env.TOR_TEST_GREP || undefined,
  });
  const suites = findSuites(__dirname);
  for (const file of suites) mocha.addFile(file);

  return new Promise<void>((resolve, reject) => {
    const failures: HostTestResults['failures'] = [];
    const skips: string[] = [];
    const finish = (results: HostTestResults, error?: Error) => {
      // Read by run.mjs after the host exits; more reliable than parsing forwarded log lines.
      const resultsFile = process.env.TOR_TEST_RESULTS_FILE;
      if (resultsFile) fs.writeFileSync(resultsFile, JSON.stringify(results, null, 2));
      console.log(`${marker}${results.passed} passed, ${results.failed} failed, ${results.pending} skipped`);
      if (error) reject(error);
      else if (results.failed > 0) reject(new Error(`${results.failed} test(s) failed`));
      else resolve();
    };
    if (suites.length === 0) {
      const error = new Error(`no *.test.js suites found in ${__dirname}`);
      finish({ passed: 0, failed: 1, pending: 0, failures: [{ title: 'finding suites', error: error.message }] }, error);
      return;
    }
    try {
      const runner: Mocha.Runner = mocha.run(() => {
        const { passes, failures: failed, pending } = runner.stats ?? { passes: 0, failures: 0, pending: 0 };
        finish({ passed: passes, failed, pending, failures, skips });
      });
      // Before the spec reporter's listener, so the line it prints has the reason.
      runner.prependListener('pending', (test) => {
        explainStaticSkip(test);
        skips.push(test.fullTitle());
      });
      runner.on('fail', (test, err: Error) => {
        failures.push({ title: test.fullTitle(), error: String(err?.stack ?? err) });
      });
    } catch (err) {
      // A suite that throws while loading (a bad import, a top-level error) lands here: count it as a
      // failure so the totals never read "0 failed" for a run that did not happen. The host logs the
      // rejection with its stack.
      finish(
        { passed: 0, failed: 1, pending: 0, failures: [{ title: 'loading suites', error: String((err as Error)?.stack ?? err) }] },
        err instanceof Error ? err : new Error(String(err)),
      );
    }
  });
}
