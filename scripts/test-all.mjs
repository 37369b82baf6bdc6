// `npm test`: the checks (build, lint, format, a typecheck of every tsconfig in the tree), then every
// suite in turn — unit (mocha, plain Node), real extension host (code-server + headless Chromium),
// browser (the inspector webview in Chromium) — then one line "N passed, N failed, N skipped" that
// counts them all. A failing check counts as one failure; a suite that crashes before reporting counts
// as a failure, so a broken runner can never look green.
import { spawnSync } from 'node:child_process';
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
const suites = [
  { name: 'build', command: ['node', 'scripts/build.mjs'], counts: false },
  { name: 'lint', command: ['npx', 'eslint', '--max-warnings', '0', '.'], counts: false },
  { name: 'format', command: ['npx', 'prettier', '--check', '--log-level', 'warn', '.'], counts: false },
  ...tsconfigs.map((file) => ({ name: `typecheck ${file}`, command: ['npx', 'tsc', '--noEmit', '-p', file], counts: false })),
  { name: 'unit', command: ['npx', 'mocha'] },
  {
    name: 'host',
    command: ['node', 'scripts/host/run.mjs', '--extra-extension', 'test/fixtures/test-model-extension'],
    when: 'scripts/host/run.mjs',
  },
  { name: 'browser', command: ['node', 'test/browser/run.mjs'], when: 'test/browser/run.mjs' },
].filter((suite) => only.length === 0 || only.some((name) => suite.name === name || suite.name.startsWith(`${name} `)));

const scratch = mkdtempSync(path.join(tmpdir(), 'tor-results-'));
const totals = { passed: 0, failed: 0, skipped: 0 };
const summary = [];
for (const suite of suites) {
  if (suite.when && !existsSync(path.join(root, suite.when))) {
    console.error(`\n=== ${suite.name}: missing ${suite.when}; counted as a failure ===`);
    totals.failed++;
    summary.push(`${suite.name}: missing`);
    continue;
  }
  console.log(`\n=== ${suite.name}: ${suite.command.join(' ')} ===`);
  const resultsFile = path.join(scratch, `${suite.name}.json`);
  const started = Date.now();
  const run = spawnSync(suite.command[0], suite.command.slice(1), {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, TOR_RESULTS_FILE: resultsFile, NO_COLOR: '1' },
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (suite.counts === false) {
    if (run.status !== 0) {
      totals.failed++;
      summary.push(`${suite.name}: FAILED (exit ${run.status ?? run.signal})`);
    } else summary.push(`${suite.name}: ok (${seconds} s)`);
    continue;
  }
  let counts;
  try {
    counts = JSON.parse(readFileSync(resultsFile, 'utf8'));
  } catch {
    counts = { passed: 0, failed: 1, skipped: 0 }; // crashed before reporting
  }
  if (run.status !== 0 && counts.failed === 0) counts.failed = 1; // failed outside any test
  totals.passed += counts.passed;
  totals.failed += counts.failed;
  totals.skipped += counts.skipped ?? 0;
  summary.push(`${suite.name}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped ?? 0} skipped (${seconds} s)`);
}
rmSync(scratch, { recursive: true, force: true });
console.log(`\n${summary.join('\n')}`);
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(totals.failed === 0 ? 0 : 1);
