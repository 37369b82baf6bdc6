// Shared by the two integration-test runners: run.mjs (offline: code-server + headless chromium) and
// electron.mjs (@vscode/test-electron, needs the internet once to download VS Code).
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * How much slower than an idle machine of this project's kind (2 cores) this one runs: scripts/test-all.mjs
 * measures it before each suite and passes it in TEST_TIME_SCALE (1 when unset, at most 8). Every
 * deadline of the harness is there so that a hang fails instead of waiting for ever, and is multiplied
 * by it; the environment carries it on to the extension host, whose tests scale theirs the same way.
 */
export const TIME_SCALE = Math.min(8, Math.max(1, Number(process.env.TEST_TIME_SCALE) || 1));
/** `ms`, a generous deadline on an idle machine, stretched for this one. */
export const scaled = (ms) => Math.round(ms * TIME_SCALE);
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

/**
 * code-server's arguments (after the Node binary): 127.0.0.1 and a free port it picks and prints (no
 * race for a port), without auth, telemetry, update check or workspace-trust prompt. `smokeTestDriver`
 * (the tests) adds VS Code's smoke-test driver option: without it the workbench ignores the extension
 * development (and tests) paths in the URL's payload (see workbenchUrl), but with it VS Code shows no
 * notification at all (each goes silently to the bell), so `npm start` leaves it out and installs the
 * extensions into `extensionsDir` instead (scripts/start.mjs).
 */
/** Debian's chromium with everything network-y turned off (never `playwright install`: it downloads). */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export function codeServerArgs(host, { userDataDir, extensionsDir, smokeTestDriver = true }) {
  return [
    host.codeServerEntry,
    '--bind-addr',
    '127.0.0.1:0',
    '--auth',
    'none',
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--ignore-last-opened',
    '--user-data-dir',
    userDataDir,
    '--extensions-dir',
    extensionsDir,
    ...(smokeTestDriver ? ['--vscode-option', 'enable-smoke-test-driver'] : []),
  ];
}

/**
 * Starts code-server (`host` from ensureHost()) with codeServerArgs. The server leads its own process
 * group, so stopCodeServer ends its extension host and pty host with it. `onOutput` gets its stdout and
 * stderr. Returns { server, ready: Promise<port>, exited: Promise<{ code, signal }> }.
 */
export function startCodeServer(host, { userDataDir, extensionsDir, smokeTestDriver = true, cwd, env, onOutput = () => {} }) {
  const server = spawn(host.node, codeServerArgs(host, { userDataDir, extensionsDir, smokeTestDriver }), {
    env,
    cwd,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise((resolve) => server.once('exit', (code, signal) => resolve({ code, signal })));
  const ready = new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk) => {
      onOutput(chunk);
      seen += chunk;
      const m = /HTTP server listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(seen);
      if (m) resolve(Number(m[1]));
    };
    server.stdout.on('data', onData);
    server.stderr.on('data', onData);
    server.once('error', reject);
    exited.then(({ code, signal }) => reject(new Error(`code-server exited before it was ready (${code ?? signal})`)));
    // It prints its port in under a second on an idle machine.
    const limitMs = scaled(60_000);
    setTimeout(() => reject(new Error(`code-server did not report its port within ${limitMs / 1000} s`)), limitMs).unref();
  });
  return { server, ready, exited };
}

/** Ends a server from startCodeServer and its process group: SIGTERM, then SIGKILL after 5 s (scaled). Resolves true when SIGTERM sufficed. */
export async function stopCodeServer(s) {
  if (!s || s.server.exitCode !== null || s.server.signalCode !== null) return true;
  const group = -s.server.pid;
  try {
    process.kill(group, 'SIGTERM');
  } catch {
    return true;
  }
  let timer;
  const done = await Promise.race([
    s.exited.then(() => true),
    new Promise((resolve) => {
      timer = setTimeout(() => resolve(false), scaled(5000));
    }),
  ]).finally(() => clearTimeout(timer));
  try {
    process.kill(group, 'SIGKILL');
  } catch {
    /* group already empty */
  }
  return done;
}

/**
 * The workbench URL that opens `folder` in an extension-development window: its extension under
 * development is `developmentPath` (one path: the web workbench keeps one payload entry per key, so
 * several extensions go in a folder of symlinks), and `testsPath`, if given, the tests module it runs.
 */
export function workbenchUrl(port, { folder, developmentPath, testsPath }) {
  const remote = (p) => `vscode-remote://127.0.0.1:${port}${p}`;
  const payload = [
    ['extensionDevelopmentPath', remote(developmentPath)],
    ...(testsPath ? [['extensionTestsPath', remote(testsPath)]] : []),
    ['skipWelcome', 'true'],
    ['skipReleaseNotes', 'true'],
  ];
  return `http://127.0.0.1:${port}/?folder=${encodeURIComponent(folder)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
}

/** The last `n` lines of a log file ('' when it cannot be read), to show with a failure. */
export function fileTail(file, n) {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-n).join('\n');
  } catch {
    return '';
  }
}

/** Counts from the results file index.ts wrote, else from the last `N passed, N failed` line seen. */
export function readCounts(resultsFile, lines = []) {
  try {
    const r = JSON.parse(readFileSync(resultsFile, 'utf8'));
    return { passed: r.passed, failed: r.failed, pending: r.pending ?? 0, failures: r.failures ?? [], skips: r.skips ?? [] };
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
        skips: counts?.skips ?? [],
        failures: [...(counts?.failures ?? []).map((f) => `${f.title}: ${String(f.error).split('\n')[0]}`), ...(problem ? [problem] : [])],
        ...(problem ? { error: problem } : {}),
      }) + '\n',
    );
  }
  const ok = !problem && failed === 0;
  if (seconds !== undefined) say(`${ok ? 'ok' : 'FAILED'} in ${seconds.toFixed(1)} s`);
  process.stdout.write(`${passed} passed, ${failed} failed, ${counts?.pending ?? 0} skipped\n`);
  return ok;
}

/**
 * Starts an X server of its own (Debian `xvfb`) on a display number it picks itself (-displayfd: no
 * guessing, no race with another run). Resolves to { display: ':N', process }. `env` is the child's
 * environment (it carries TOR_TEST_SCRATCH, so a killed run's Xvfb is found and ended like the rest).
 */
export function startXvfb({ env = process.env, width = 1920, height = 1200 } = {}) {
  const xvfb = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', `${width}x${height}x24`, '-nolisten', 'tcp'], {
    env,
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  });
  let errors = '';
  xvfb.stderr.on('data', (c) => (errors = (errors + c).slice(-2000)));
  return new Promise((resolve, reject) => {
    let out = '';
    // It reports one at once on an idle machine.
    const limitMs = scaled(10_000);
    const timer = setTimeout(() => reject(new Error(`Xvfb did not report a display in ${limitMs / 1000} s`)), limitMs);
    xvfb.once('error', (e) => {
      clearTimeout(timer);
      reject(new Error(`Xvfb could not start: ${e.message}`));
    });
    xvfb.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`Xvfb exited (${code ?? signal}) before it reported a display: ${errors.trim()}`));
    });
    xvfb.stdio[3].on('data', (c) => {
      out += c;
      if (!out.includes('\n')) return;
      clearTimeout(timer);
      xvfb.stdio[3].destroy();
      resolve({ display: `:${out.trim()}`, process: xvfb });
    });
  });
}
