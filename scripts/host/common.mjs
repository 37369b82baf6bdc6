// Shared by the two integration-test runners: run.mjs (offline: code-server + headless chromium) and
// electron.mjs (@vscode/test-electron, needs the internet once to download VS Code).
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const TEST_SRC = path.join(ROOT, 'test', 'integration');
const TEST_OUT = path.join(ROOT, 'dist', 'test', 'integration');

/**
 * Bundles test/integration: index.ts and every *.test.ts, one CommonJS bundle each under
 * dist/test/integration/ (same relative paths), so index.js can `require()` the suites after mocha has
 * defined its globals. `vscode` comes from the extension host; mocha and the code under test are bundled
 * in. Returns the path of the tests module (extensionTestsPath).
 */
export async function buildTests() {
  const { build } = await import('esbuild');
  const entries = readdirSync(TEST_SRC, { recursive: true })
    .filter((f) => f === 'index.ts' || f.endsWith('.test.ts'))
    .map((f) => path.join(TEST_SRC, f));
  rmSync(TEST_OUT, { recursive: true, force: true }); // no stale suites from deleted test files
  await build({
    absWorkingDir: ROOT,
    entryPoints: entries,
    outbase: TEST_SRC,
    outdir: TEST_OUT,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    // Linked maps are for debuggers only: the extension host installs its own Error.prepareStackTrace,
    // so stack traces name the bundled dist/test/integration/*.js lines (unminified, easy to follow).
    sourcemap: 'linked',
    logLevel: 'warning',
    // mocha's parallel mode (never used here) resolves worker files by path; bundling can't follow that.
    logOverride: { 'require-resolve-not-external': 'silent' },
  });
  return path.join(TEST_OUT, 'index.js');
}

/** Fails early, with the fix, when the extension under development has not been built. */
export function checkExtensionBuilt() {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const main = path.join(ROOT, pkg.main ?? 'dist/extension.js');
  try {
    readFileSync(main);
  } catch {
    throw new Error(`${path.relative(ROOT, main)} is missing: run \`npm run build\` first`);
  }
}

/** User settings that keep an offline VS Code quiet: no telemetry, update checks, gallery, git, welcome. */
export function writeUserSettings(userDataDir) {
  mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  writeFileSync(
    path.join(userDataDir, 'User', 'settings.json'),
    JSON.stringify(
      {
        'telemetry.telemetryLevel': 'off',
        'update.mode': 'none',
        'extensions.autoUpdate': false,
        'extensions.autoCheckUpdates': false,
        'workbench.startupEditor': 'none',
        'workbench.enableExperiments': false,
        'git.enabled': false,
        'security.workspace.trust.enabled': false,
      },
      null,
      2,
    ),
  );
}

/** The folder the tests open (an open folder gives context.storageUri); a few files to read. */
export function writeTestWorkspace(dir) {
  mkdirSync(path.join(dir, 'src'), { recursive: true });
  writeFileSync(path.join(dir, 'README.md'), '# Test workspace\n\nCreated by scripts/host for the integration tests.\n');
  writeFileSync(path.join(dir, 'src', 'sample.ts'), 'export const answer = 42;\n');
  writeFileSync(path.join(dir, 'data.txt'), Array.from({ length: 200 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
}

/**
 * An extension that contributes nothing. VS Code runs extensionTestsPath only in an
 * extension-development window; a VSIX run names this instead of the repo, so that the installed
 * copy of ours is the one that loads.
 */
export function writeStubExtension(dir) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify(
      {
        name: 'tor-test-stub',
        publisher: 'tor-test',
        version: '0.0.0',
        engines: { vscode: '*' },
        description: 'Makes a VSIX test run an extension-development window; contributes nothing.',
      },
      null,
      2,
    ),
  );
  return dir;
}

/** Pids of processes whose environment has TOR_TEST_SCRATCH=<scratch> (every process a run started). */
export function processesOf(scratch) {
  const needle = Buffer.from(`TOR_TEST_SCRATCH=${scratch}\0`);
  const pids = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!pid || pid === process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/environ`).includes(needle)) pids.push(pid);
    } catch {
      /* gone, or not ours to read */
    }
  }
  return pids;
}

export function killAll(pids, signal) {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      /* already gone */
    }
  }
}

/** Counts from the results file index.ts wrote, else from the last `N passed, N failed` line seen. */
export function readCounts(resultsFile, lines = []) {
  try {
    const r = JSON.parse(readFileSync(resultsFile, 'utf8'));
    return { passed: r.passed, failed: r.failed, pending: r.pending ?? 0, failures: r.failures ?? [] };
  } catch {
    /* not written */
  }
  for (const line of [...lines].reverse()) {
    const m = /^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$/.exec(line.trim());
    if (m) return { passed: Number(m[1]), failed: Number(m[2]), pending: Number(m[3] ?? 0), failures: [] };
  }
  return undefined;
}

/**
 * The closing report both runners share: `N passed, N failed, N skipped` as the last line, and the same counts as
 * JSON in $TOR_RESULTS_FILE (read by scripts/test-all.mjs). A run that broke (problem set) counts at
 * least one failure, so totals never read "0 failed" for it.
 */
export function report({ suite, counts, problem, seconds, say }) {
  const passed = counts?.passed ?? 0;
  const failed = Math.max(counts?.failed ?? 0, problem ? 1 : 0);
  for (const f of counts?.failures ?? []) say(`failed: ${f.title}`);
  if (process.env.TOR_RESULTS_FILE) {
    writeFileSync(
      process.env.TOR_RESULTS_FILE,
      JSON.stringify({
        suite,
        passed,
        failed,
        skipped: counts?.pending ?? 0,
        ...(problem ? { error: problem } : {}),
      }) + '\n',
    );
  }
  const ok = !problem && failed === 0;
  if (seconds !== undefined) say(`${ok ? 'ok' : 'FAILED'} in ${seconds.toFixed(1)} s`);
  process.stdout.write(`${passed} passed, ${failed} failed, ${counts?.pending ?? 0} skipped\n`);
  return ok;
}
