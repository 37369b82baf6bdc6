// `npm test`: the checks (build, lint, format, a typecheck of every tsconfig in the tree), then every
// suite in turn — unit (mocha, plain Node, in process only), system (mocha, plain Node: the tests that
// start processes or worker threads: dist/mcp.js, agent CLIs, shells, the store, search and code-mode
// workers), real extension host (code-server + headless Chromium), browser (the inspector webview in
// Chromium), MCP conformance (the official suite against dist/mcp.js) — then one line
// "N passed, N failed, N skipped" that counts them all. A failing check
// counts as one failure; a suite that crashes before reporting counts as a failure, so a broken
// runner can never look green. Each suite has a time limit: a suite that hangs (a handle left open, a
// host that never answers) is killed with its whole process group and counted as a failure, instead
// of running until CI gives up with no summary at all. The limits scale with the machine: before each
// suite a short measurement (a fixed CPU workload against its time on an idle machine of this
// project's kind, and the load average per core) gives a factor of 1 to 8 that multiplies the suite's
// limit and reaches the suite as TEST_TIME_SCALE, which stretches the tests' own deadlines (mocha's
// timeouts, the host harness's waits) the same way. The failed tests' titles come last, above the
// totals, so a log cut to its tail still says what failed; the skipped tests, with why, just above them.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
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
// Each limit is for an idle machine of this project's kind (2 cores), well above what the suite takes
// there, so that only a hang reaches it; the run multiplies it by the time scale measured before it.
const suites = [
  // The checks take seconds to a minute or two each.
  { name: 'build', command: ['node', 'scripts/build.mjs'], counts: false, limitMs: 10 * MINUTE },
  { name: 'lint', command: ['npx', 'eslint', '--max-warnings', '0', '.'], counts: false, limitMs: 10 * MINUTE },
  { name: 'format', command: ['npx', 'prettier', '--check', '--log-level', 'warn', '.'], counts: false, limitMs: 10 * MINUTE },
  ...tsconfigs.map((file) => ({
    name: `typecheck ${file}`,
    command: ['npx', 'tsc', '--noEmit', '-p', file],
    counts: false,
    limitMs: 10 * MINUTE,
  })),
  // unit: in-process tests only, within a minute on an idle 2-core machine (`npm run test:unit`).
  // system: the tests that start processes or worker threads (`npm run test:system`). Both run the
  // property tests (helpers/propertyScale.ts) at their full size here, so CI always does; alone, each
  // runs them at the quick size.
  { name: 'unit', command: ['npx', 'mocha', 'test/unit/**/*.test.ts'], env: { TOR_PROPERTY_SCALE: 'full' }, limitMs: 5 * MINUTE },
  {
    name: 'system',
    command: ['npx', 'mocha', 'test/system/**/*.test.ts'],
    env: { TOR_PROPERTY_SCALE: 'full' },
    limitMs: 20 * MINUTE,
  },
  {
    name: 'host',
    command: ['node', 'scripts/host/run.mjs', '--extra-extension', 'test/fixtures/test-model-extension'],
    when: 'scripts/host/run.mjs',
    limitMs: 40 * MINUTE, // includes installing the host and its browser on a fresh machine (~5 min once)
  },
  // The localization suite again with VS Code in Simplified Chinese (a stub language pack: scripts/host/locale.mjs).
  {
    name: 'host-zh-cn',
    command: ['node', 'scripts/host/run.mjs', '--locale', 'zh-cn', '--grep', 'localization where it runs'],
    when: 'scripts/host/run.mjs',
    limitMs: 15 * MINUTE,
  },
  // A real turn of VS Code's Copilot harness (its Agent Host and the Copilot SDK runtime), signed in offline
  // and answered by the scripted model (scripts/host/run.mjs --copilot-harness).
  {
    name: 'host-copilot-harness',
    command: ['node', 'scripts/host/run.mjs', '--copilot-harness', '--grep', "VS Code's Copilot harness, a real turn"],
    when: 'scripts/host/run.mjs',
    limitMs: 15 * MINUTE,
  },
  // Installs Debian's chromium when the host suite has not (a fresh machine running it alone).
  { name: 'browser', command: ['node', 'test/browser/run.mjs'], when: 'test/browser/run.mjs', limitMs: 15 * MINUTE },
  // The official MCP conformance suite against dist/mcp.js --http, under the host suite's Node 24; its
  // runner kills the conformance CLI after 10 min (scaled), so this limit is above that plus installing.
  { name: 'mcp-conformance', command: ['node', 'test/mcp/conformance.mjs'], when: 'test/mcp/conformance.mjs', limitMs: 40 * MINUTE },
  // Eight agent CLIs from npm (pinned, installed into a cache by scripts/clients/setup.mjs) against the scripted model;
  // OpenCode and Kilo Code take a minute or two a run on a loaded machine.
  { name: 'clients', command: ['node', 'test/clients/run.mjs'], when: 'test/clients/run.mjs', limitMs: 45 * MINUTE },
].filter((suite) => only.length === 0 || only.some((name) => suite.name === name || suite.name.startsWith(`${name} `)));

// ---------------------------------------------------------------------------------------------------
// The machine, measured. A fixed single-threaded CPU workload takes REFERENCE_MS on an idle machine of
// this project's kind; here it takes `workMs` of wall time, which counts both a slower CPU and a busy
// machine (waiting for a core). The load average per core says the same over the last minute, and
// catches a busy machine the short workload happened to slip through. The larger of the two, clamped
// to 1..MAX_SCALE (a hung suite must still be killed), is the time scale.
const REFERENCE_MS = 150; // measured: 150–170 ms of CPU time on a 2-core machine of this project's kind
const MAX_SCALE = 8; // as test/unit/helpers/timeScale.ts's MAX_TIME_SCALE
function workload(n) {
  let x = 0;
  for (let i = 0; i < n; i++) x = (x * 31 + i) | 0;
  return x;
}
function measureMachine() {
  workload(1_000_000); // compiled before it is timed
  const started = performance.now();
  workload(25_000_000);
  const workMs = performance.now() - started;
  const cores = availableParallelism();
  const load = loadavg()[0];
  const raw = Math.max(workMs / REFERENCE_MS, load / cores);
  const scale = Math.min(MAX_SCALE, Math.max(1, Math.ceil(raw * 10) / 10));
  return { scale, workMs, load, cores };
}
const describeMachine = (m) =>
  `the fixed CPU workload took ${Math.round(m.workMs)} ms (${REFERENCE_MS} ms on an idle machine of this project's kind); ` +
  `load ${m.load.toFixed(1)} on ${m.cores} core(s)`;
const minutes = (ms) => `${Math.round((ms / MINUTE) * 10) / 10} min`;

/**
 * Runs a suite in its own process group so that, past its limit, the group goes with it (code-server,
 * Chromium, workers), not only the runner we started.
 */
function runLimited(suite, env, limitMs, scale) {
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
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup('SIGTERM');
      // Time to close what it holds (the host harness stops code-server and removes its scratch folder).
      setTimeout(() => killGroup('SIGKILL'), 10_000 * scale).unref();
    }, limitMs);
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
// What was skipped and why, printed above the failures.
const skippedTests = [];
const first = measureMachine();
console.log(`time scale ×${first.scale}: ${describeMachine(first)}; measured again before each suite, at most ×${MAX_SCALE}`);
if (suites.length > 0) console.log(`limits now: ${suites.map((s) => `${s.name} ${minutes(s.limitMs * first.scale)}`).join(', ')}`);
for (const suite of suites) {
  if (interrupted) break;
  if (suite.when && !existsSync(path.join(root, suite.when))) {
    console.error(`\n=== ${suite.name}: missing ${suite.when}; counted as a failure ===`);
    totals.failed++;
    summary.push(`${suite.name}: missing`);
    continue;
  }
  console.log(`\n=== ${suite.name}: ${suite.command.join(' ')} ===`);
  const machine = suite === suites[0] ? first : measureMachine();
  const limitMs = suite.limitMs * machine.scale;
  const limitNote = `${minutes(limitMs)} = ${minutes(suite.limitMs)} × ${machine.scale}`;
  console.log(`(time limit ${limitNote}; TEST_TIME_SCALE=${machine.scale}: ${describeMachine(machine)})`);
  const resultsFile = path.join(scratch, `${suite.name}.json`);
  const started = Date.now();
  const env = { ...process.env, ...suite.env, TOR_RESULTS_FILE: resultsFile, NO_COLOR: '1', TEST_TIME_SCALE: String(machine.scale) };
  const run = await runLimited(suite, env, limitMs, machine.scale);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (run.timedOut) console.error(`\n=== ${suite.name}: still running after ${limitNote}; killed ===`);
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
  for (const skip of counts.skips ?? []) skippedTests.push(`skipped in ${suite.name}: ${skip.slice(0, 400)}`);
  if (run.status !== 0 && counts.failed === 0) counts.failed = 1; // failed outside any test
  totals.passed += counts.passed;
  totals.failed += counts.failed;
  totals.skipped += counts.skipped ?? 0;
  const note = run.timedOut ? ', timed out' : '';
  summary.push(`${suite.name}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped ?? 0} skipped (${seconds} s${note})`);
}
rmSync(scratch, { recursive: true, force: true });
console.log(`\n${summary.join('\n')}`);
if (skippedTests.length > 0) console.log(skippedTests.join('\n'));
if (failedTests.length > 0) console.log(failedTests.join('\n'));
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(totals.failed === 0 ? 0 : 1);
