// `npm test`: the checks (build, lint, format, a typecheck of every tsconfig in the tree), then every
// suite in turn — unit (mocha, plain Node), real extension host (code-server + headless Chromium),
// browser (the inspector webview in Chromium), MCP conformance (the official suite against
// dist/mcp.js) — then one line "N passed, N failed, N skipped" that counts them all. A failing check
// counts as one failure; a suite that crashes before reporting counts as a failure, so a broken
// runner can never look green. Each suite has a time limit: a suite that hangs (a handle left open, a
// host that never answers) is killed with its whole process group and counted as a failure, instead
// of running until CI gives up with no summary at all. The failed tests' titles come last, above the
// totals, so a log cut to its tail still says what failed.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const only = process.argv.slice(2);
// Every tracked tsconfig, so a new one (a webview, a test harness) is checked without editing this list.
const tsconfigs = spawnSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*tsconfig*.json'], {
  cwd: root,
  encoding: 'utf8',
})
  .stdout.split('\n')
  .filter(Boolean)
  .sort();
const MINUTE = 60_000;
const suites = [
  { name: 'build', command: ['node', 'scripts/build.mjs'], counts: false },
  { name: 'lint', command: ['npx', 'eslint', '--max-warnings', '0', '.'], counts: false },
  { name: 'format', command: ['npx', 'prettier', '--check', '--log-level', 'warn', '.'], counts: false },
  ...tsconfigs.map((file) => ({ name: `typecheck ${file}`, command: ['npx', 'tsc', '--noEmit', '-p', file], counts: false })),
  { name: 'unit', command: ['npx', 'mocha', 'test/unit/**/*.test.ts'], limitMs: 10 * MINUTE },
  {
    name: 'host',
    command: ['node', 'scripts/host/run.mjs', '--extra-extension', 'test/fixtures/test-model-extension'],
    when: 'scripts/host/run.mjs',
    limitMs: 40 * MINUTE, // includes installing the host and its browser on a fresh machine
  },
  // The localization suite again with VS Code in Simplified Chinese (a stub language pack: scripts/host/locale.mjs).
  {
    name: 'host-zh-cn',
    command: ['node', 'scripts/host/run.mjs', '--locale', 'zh-cn', '--grep', 'localization where it runs'],
    when: 'scripts/host/run.mjs',
    limitMs: 15 * MINUTE,
  },
  { name: 'browser', command: ['node', 'test/browser/run.mjs'], when: 'test/browser/run.mjs', limitMs: 15 * MINUTE },
  // The official MCP conformance suite against dist/mcp.js --http, under the host suite's Node 24.
  { name: 'mcp-conformance', command: ['node', 'test/mcp/conformance.mjs'], when: 'test/mcp/conformance.mjs', limitMs: 40 * MINUTE },
  // Claude Code and Codex from npm (pinned, installed into a cache by scripts/clients/setup.mjs) against the scripted model.
  { name: 'clients', command: ['node', 'test/clients/run.mjs'], when: 'test/clients/run.mjs', limitMs: 30 * MINUTE },
].filter((suite) => only.length === 0 || only.some((name) => suite.name === name || suite.name.startsWith(`${name} `)));

/**
 * Runs a suite in its own process group so that, past its limit, the group goes with it (code-server,
 * Chromium, workers), not only the runner we started.
 */
function runLimited(suite, env) {
  return new Promise((resolve) => {
    const child = spawn(suite.command[0], suite.command.slice(1), { cwd: root, stdio: 'inherit', env, detached: true });
    let timedOut = false;
    const killGroup = (signal) => {
      try {
        process.kill(-child.pid, signal);
      } catch {
        // the group is gone already
      }
    };
    const timer = setTimeout(
      () => {
        timedOut = true;
        killGroup('SIGTERM');
        setTimeout(() => killGroup('SIGKILL'), 10_000).unref();
      },
      suite.limitMs ?? 10 * MINUTE,
    );
    // Ctrl-C on `npm test` reaches only our group; pass it on to the suite's.
    const onInterrupt = () => {
      interrupted = true;
      killGroup('SIGINT');
    };
    process.on('SIGINT', onInterrupt);
    child.on('error', () => resolve({ status: 1, signal: null, timedOut }));
    child.on('exit', (status, signal) => {
      clearTimeout(timer);
      process.off('SIGINT', onInterrupt);
      // Whatever the suite left behind in its group goes too, so a stray server cannot hold CI.
      killGroup('SIGKILL');
      resolve({ status: timedOut ? 1 : status, signal, timedOut });
    });
  });
}

let interrupted = false;
const scratch = mkdtempSync(path.join(tmpdir(), 'tor-results-'));
const totals = { passed: 0, failed: 0, skipped: 0 };
const summary = [];
// What failed, printed just above the last line: CI logs often keep only their tail.
const failedTests = [];
for (const suite of suites) {
  if (interrupted) break;
  if (suite.when && !existsSync(path.join(root, suite.when))) {
    console.error(`\n=== ${suite.name}: missing ${suite.when}; counted as a failure ===`);
    totals.failed++;
    summary.push(`${suite.name}: missing`);
    continue;
  }
  console.log(`\n=== ${suite.name}: ${suite.command.join(' ')} ===`);
  const resultsFile = path.join(scratch, `${suite.name}.json`);
  const started = Date.now();
  const run = await runLimited(suite, { ...process.env, TOR_RESULTS_FILE: resultsFile, NO_COLOR: '1' });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (run.timedOut) console.error(`\n=== ${suite.name}: still running after ${suite.limitMs / MINUTE} min; killed ===`);
  if (suite.counts === false) {
    if (run.status !== 0) {
      totals.failed++;
      summary.push(`${suite.name}: FAILED (${run.timedOut ? 'timed out' : `exit ${run.status ?? run.signal}`})`);
    } else summary.push(`${suite.name}: ok (${seconds} s)`);
    continue;
  }
  let counts;
  try {
    counts = JSON.parse(readFileSync(resultsFile, 'utf8'));
  } catch {
    counts = { passed: 0, failed: 1, skipped: 0, failures: ['crashed before reporting its counts'] };
  }
  for (const failure of counts.failures ?? []) failedTests.push(`failed in ${suite.name}: ${failure.slice(0, 400)}`);
  if (run.status !== 0 && counts.failed === 0) counts.failed = 1; // failed outside any test
  totals.passed += counts.passed;
  totals.failed += counts.failed;
  totals.skipped += counts.skipped ?? 0;
  const note = run.timedOut ? ', timed out' : '';
  summary.push(`${suite.name}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped ?? 0} skipped (${seconds} s${note})`);
}
rmSync(scratch, { recursive: true, force: true });
console.log(`\n${summary.join('\n')}`);
if (failedTests.length > 0) console.log(failedTests.join('\n'));
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(totals.failed === 0 ? 0 : 1);
