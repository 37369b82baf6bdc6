#!/usr/bin/env node
// Runs test/integration in a real VS Code extension host, offline: VS Code's server from the npm package
// `code-server`, its workbench rendered by Debian's headless chromium driven by playwright-core. The
// workbench is opened with `enable-smoke-test-driver` and a payload naming the extension under
// development and the tests module, so it behaves like `code --extensionDevelopmentPath=…
// --extensionTestsPath=…`: the extension host loads the extension, calls the tests' run(), and reports
// its console through window.codeAutomationLog and its exit code through window.codeAutomationExit.
//
//   node scripts/host/run.mjs [--vsix <file>] [--grep <pattern>] [--extra-extension <dir>]...
//                             [--timeout <seconds>] [--locale <id>] [--copilot-harness] [--keep] [--verbose]
//
// --timeout is for an idle machine (default 600 s: the whole suite takes a few minutes there); like
// every deadline here it is multiplied by TEST_TIME_SCALE (see common.mjs), which the tests get too.
// --locale zh-cn runs VS Code in that display language (a stub language pack: see locale.mjs).
// --copilot-harness: VS Code's Copilot harness (the Copilot SDK in its Agent Host) offline, see copilotHarnessEnv.
//
// Prints `N passed, N failed, N skipped` last; exits 0 only when the host ran the suites and none failed.
import { spawn, spawnSync } from 'node:child_process';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  ROOT,
  buildTests,
  checkExtensionBuilt,
  CHROMIUM_ARGS,
  codeServerArgs,
  killAll,
  processesOf,
  readCounts,
  report,
  scaled,
  TIME_SCALE,
  startXvfb,
  writeStubExtension,
  writeTestWorkspace,
  writeUserSettings,
} from './common.mjs';
import { startDriver } from './driver.mjs';
import { ensureHost } from './setup.mjs';
import { checkLocale, writeStubLanguagePack } from './locale.mjs';

const SCRATCH_PREFIX = 'tor-host-';

const say = (msg) => process.stdout.write(`[host] ${msg}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// Waits for `promise` at most `ms`; resolves to false on time-out. The timer is cleared either way, so
// a settled race leaves nothing that keeps the process alive.
function within(promise, ms) {
  let timer;
  return Promise.race([
    promise.then(() => true),
    new Promise((r) => {
      timer = setTimeout(() => r(false), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
const t0 = Date.now();
const timing = (what) => opts.verbose && say(`+${((Date.now() - t0) / 1000).toFixed(1)} s ${what}`);

// index.ts prefixes the test run's console lines with this (invisible) marker, given in TOR_TEST_LOG_MARKER.
const LOG_MARKER = '\u2063';
// Workbench errors that every offline run has, and index.ts's rejection (its counts are printed anyway).
const HARMLESS = [
  /authentication provider 'github'|for provider: github/, // no GitHub sign-in offline
  /^Canceled: Canceled/, // the workbench cancelling requests while it stops the extension host
  /^Error: \d+ test\(s\) failed/,
  // In another display language the workbench asks the (absent) gallery for built-in extensions' translations.
  /No extension gallery service configured/,
];

const { values: opts } = parseArgs({
  options: {
    vsix: { type: 'string' },
    grep: { type: 'string' },
    'extra-extension': { type: 'string', multiple: true, default: [] },
    timeout: { type: 'string', default: process.env.TOR_HOST_TIMEOUT || '600' },
    locale: { type: 'string', default: 'en' },
    browser: { type: 'string', default: process.env.TOR_HOST_BROWSER || 'xvfb' },
    'copilot-harness': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: !!process.env.TOR_HOST_VERBOSE },
  },
});
const timeoutMs = scaled(Number(opts.timeout) * 1000);
if (!(timeoutMs > 0)) throw new Error(`--timeout must be a number of seconds, got ${opts.timeout}`);
if (!['xvfb', 'headless'].includes(opts.browser)) throw new Error(`--browser must be xvfb or headless, got ${opts.browser}`);
const locale = checkLocale(opts.locale.toLowerCase());
const mode = opts.vsix ? 'vsix' : 'dev';
const vsix = opts.vsix && path.resolve(opts.vsix);
const extraExtensions = opts['extra-extension'].map((d) => path.resolve(d));

// ---------------------------------------------------------------------------------------------------
// Processes. Everything started here (the server and its children, the browser) carries
// TOR_TEST_SCRATCH=<this run's scratch dir> in its environment, so leftovers are found by that exact
// value in /proc/<pid>/environ (processesOf) — also those of an earlier run that was killed before it
// could clean up: a scratch dir whose runner is dead is such a run; end its processes, remove it.
function reapStaleRuns() {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(SCRATCH_PREFIX)) continue;
    const dir = path.join(tmpdir(), name);
    let owner = 0;
    try {
      owner = JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8')).pid;
    } catch {
      /* not yet written or partial */
    }
    if (!owner) continue;
    try {
      process.kill(owner, 0);
      continue;
    } catch {
      /* owner is dead */
    }
    const left = processesOf(dir);
    if (left.length) say(`ending ${left.length} process(es) left by a killed run (${dir})`);
    killAll(left, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------
// Scratch: every file the server, the extension host and the browser write goes under here.

function makeScratch() {
  const scratch = mkdtempSync(path.join(tmpdir(), SCRATCH_PREFIX));
  writeFileSync(path.join(scratch, 'run.json'), JSON.stringify({ pid: process.pid, root: ROOT }));
  const d = {
    scratch,
    tmp: path.join(scratch, 'tmp'),
    config: path.join(scratch, 'xdg', 'config'),
    data: path.join(scratch, 'xdg', 'data'),
    cache: path.join(scratch, 'xdg', 'cache'),
    runtime: path.join(scratch, 'xdg', 'runtime'),
    home: path.join(scratch, 'browser-home'),
    userData: path.join(scratch, 'user-data'),
    extensions: path.join(scratch, 'extensions'),
    workspace: path.join(scratch, 'workspace'),
    results: path.join(scratch, 'results.json'),
    serverLog: path.join(scratch, 'server.log'),
  };
  for (const k of ['tmp', 'config', 'data', 'cache', 'home', 'extensions', 'workspace']) mkdirSync(d[k], { recursive: true });
  mkdirSync(d.runtime, { recursive: true, mode: 0o700 });
  writeUserSettings(d.userData);
  if (locale !== 'en') writeStubLanguagePack(d.userData, locale, path.join(scratch, 'language-pack'));
  writeTestWorkspace(d.workspace);
  d.developmentPath = developmentPath(scratch);
  return d;
}

// The one extensionDevelopmentPath of the payload (see runInBrowser):
// - dev run, no extras: the repo itself;
// - with --extra-extension: a folder of symlinks, one per extension (the repo's too in a dev run). A
//   development path without a package.json is scanned as a folder of extensions, like an extensions
//   dir; each extension's extensionPath is then the symlink's path, not the real folder;
// - VSIX run, no extras: an empty stub extension, so that the window is still a development window
//   (which it must be for the tests to run) while the installed copy of ours is the one that loads.
function developmentPath(scratch) {
  const members = [...(mode === 'dev' ? [ROOT] : []), ...extraExtensions];
  if (members.length === 1 && mode === 'dev') return ROOT;
  if (members.length === 0) return writeStubExtension(path.join(scratch, 'stub-extension'));
  const dir = path.join(scratch, 'development-extensions');
  mkdirSync(dir);
  members.forEach((m, i) => symlinkSync(m, path.join(dir, `${i}-${path.basename(m)}`), 'dir'));
  return dir;
}

// --copilot-harness: VS Code's Copilot harness signed in offline. Without a GitHub token the workbench never
// sends a turn to it; `chat.agentHost.unsafeTestToken` (honoured only under the smoke-test driver) gives
// one. The Agent Host hands it to the Copilot SDK runtime, which validates it at <GitHub API>/copilot_internal/user
// and then sends the model's requests to the `endpoints.api` named there (the COPILOT_PROVIDER_* variables
// change nothing once it has a token). COPILOT_DEBUG_GITHUB_API_URL points the runtime's GitHub API at a
// port reserved here, which the test serves (TOR_TEST_MODEL_PORT: test/integration/copilotHarnessTurn.test.ts).
async function copilotHarnessEnv(d) {
  if (!opts['copilot-harness']) return {};
  const { createServer } = await import('node:net');
  const probe = createServer();
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = probe.address().port;
  await new Promise((resolve) => probe.close(resolve));
  const settingsFile = path.join(d.userData, 'User', 'settings.json');
  const settings = JSON.parse(readFileSync(settingsFile, 'utf8'));
  writeFileSync(
    settingsFile,
    JSON.stringify(
      {
        ...settings,
        'chat.agentHost.unsafeTestToken': 'scripted-model-token',
        'chat.defaultToCopilotHarness': true,
        // Tools approved, as by a person who allowed them all: the window shows our run_command's confirmation
        // on some harness calls (by its own timing), and nobody is there to answer it.
        'chat.tools.global.autoApprove': true,
      },
      null,
      2,
    ),
  );
  return {
    COPILOT_DEBUG_GITHUB_API_URL: `http://127.0.0.1:${port}`,
    TOR_TEST_MODEL_PORT: String(port),
  };
}

function childEnv(d, driverUrl, extra) {
  const env = { ...process.env };
  // Inside a VS Code terminal these make code-server act as a client of that VS Code instead of a server.
  for (const k of Object.keys(env)) if (k.startsWith('VSCODE_') || k === 'ELECTRON_RUN_AS_NODE') delete env[k];
  return {
    ...env,
    TMPDIR: d.tmp,
    XDG_CONFIG_HOME: d.config,
    XDG_DATA_HOME: d.data,
    XDG_CACHE_HOME: d.cache,
    XDG_RUNTIME_DIR: d.runtime,
    EXTENSIONS_GALLERY: '{}',
    NO_COLOR: '1',
    // The contract with the tests (documented in test/integration/index.ts and the report):
    TOR_TEST_SCRATCH: d.scratch,
    TOR_TEST_WORKSPACE: d.workspace,
    TOR_TEST_MODE: mode,
    TOR_TEST_REPO: ROOT,
    TOR_TEST_RESULTS_FILE: d.results,
    TOR_TEST_LOG_MARKER: LOG_MARKER,
    TOR_TEST_EXTRA_EXTENSIONS: JSON.stringify(extraExtensions),
    TOR_TEST_LOCALE: locale,
    TOR_TEST_DRIVER: driverUrl,
    ...(opts.grep ? { TOR_TEST_GREP: opts.grep } : {}),
    ...extra,
  };
}

// ---------------------------------------------------------------------------------------------------

function installVsix(host, d, env) {
  say(`installing ${vsix}`);
  const r = spawnSync(
    host.node,
    [host.codeServerEntry, '--user-data-dir', d.userData, '--extensions-dir', d.extensions, '--install-extension', vsix],
    { env, encoding: 'utf8', timeout: scaled(120_000) }, // ~1 s on an idle machine
  );
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim();
  if (r.status !== 0 || /failed|error/i.test(out)) {
    throw new Error(`installing ${vsix} failed (exit ${r.status ?? r.signal}):\n${out}`);
  }
  if (opts.verbose) say(out);
}

function startServer(host, d, env) {
  const log = createWriteStream(d.serverLog);
  const server = spawn(
    host.node,
    // The smoke-test driver stays on here: without it the workbench ignores the development and tests paths in the payload.
    [...codeServerArgs(host, { userDataDir: d.userData, extensionsDir: d.extensions }), ...(locale !== 'en' ? ['--locale', locale] : [])],
    { env, cwd: d.workspace, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise((resolve) => server.once('exit', (code, signal) => resolve({ code, signal })));
  const ready = new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk) => {
      log.write(chunk);
      if (opts.verbose) process.stdout.write(`[server] ${chunk}`);
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
  return { server, ready, exited, log };
}

async function stopServer(s) {
  if (!s || s.server.exitCode !== null || s.server.signalCode !== null) return;
  const group = -s.server.pid; // detached: the server, its extension host and pty host share this group
  try {
    process.kill(group, 'SIGTERM');
  } catch {
    return;
  }
  // It exits within a second of SIGTERM on an idle machine.
  const graceMs = scaled(5000);
  const done = await within(s.exited, graceMs);
  if (!done) say(`code-server ignored SIGTERM for ${graceMs / 1000} s; sending SIGKILL`);
  try {
    process.kill(group, 'SIGKILL');
  } catch {
    /* group already empty */
  }
}

// The workbench page, for the webview driver (driver.mjs) while the tests run; null before and after.
let workbenchPage = null;
// How the browser runs, for the driver's `browser` op (the tests report it beside their figures).
const browserInfo = { mode: opts.browser };

async function runInBrowser(host, d, env, port, testsModule, stop) {
  const { chromium } = await import('playwright-core');
  const remote = (p) => `vscode-remote://127.0.0.1:${port}${p}`;
  const payload = [
    // The workbench runs extensionTestsPath only in an extension-development window, i.e. one with an
    // extensionDevelopmentPath. The web workbench keeps the payload in a Map, so only ONE such entry
    // survives; makeScratch() picked it (the repo, a folder of several extensions, or a stub).
    ['extensionDevelopmentPath', remote(d.developmentPath)],
    ['extensionTestsPath', remote(testsModule)],
    ['skipWelcome', 'true'],
    ['skipReleaseNotes', 'true'],
  ];
  const url =
    `http://127.0.0.1:${port}/?folder=${encodeURIComponent(d.workspace)}` + `&payload=${encodeURIComponent(JSON.stringify(payload))}`;

  // Headed under an X server of our own by default: headless Chromium does not paint the
  // `content-visibility: auto` lines of a webview (nested iframes) in the workbench. See CONTRIBUTING.md.
  let xvfb;
  if (opts.browser === 'xvfb') {
    xvfb = await startXvfb({ env });
    browserInfo.display = xvfb.display;
    timing(`Xvfb on ${xvfb.display}`);
  }
  const browser = await chromium.launch({
    executablePath: host.chromium,
    headless: !xvfb,
    args: CHROMIUM_ARGS,
    env: { ...env, HOME: d.home, ...(xvfb ? { DISPLAY: xvfb.display } : {}) },
    timeout: scaled(60_000), // a second or two on an idle machine
  });
  browserInfo.version = browser.version();
  const outcome = {};
  const finished = Promise.race([
    new Promise((resolve) => {
      outcome.resolve = resolve;
    }),
    stop,
  ]);
  const workbenchLog = []; // unmarked lines: the workbench's own log, printed on failure or with --verbose
  const testLines = [];
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    workbenchPage = page;
    // Everything the workbench logs arrives here as (level, [message]): its own log and, as `info` or
    // `error`, the extension host's console. index.ts marks the console lines of the test run, which
    // are the output; the rest is workbench noise unless it is an error.
    await page.exposeFunction('codeAutomationLog', (level, args) => {
      const text = (Array.isArray(args) ? args : [args]).map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ');
      if (text.startsWith(LOG_MARKER)) {
        if (!testLines.length) timing('first test output');
        for (const line of text.slice(LOG_MARKER.length).split('\n')) {
          testLines.push(line);
          process.stdout.write(`${line}\n`);
        }
        return;
      }
      workbenchLog.push(`[${level}] ${text}`);
      if (opts.verbose || (level === 'error' && !HARMLESS.some((re) => re.test(text)))) {
        process.stdout.write(`[workbench:${level}] ${text}\n`);
      }
    });
    await page.exposeFunction('codeAutomationExit', (code) => outcome.resolve({ code: Number(code) }));
    page.on('crash', () => outcome.resolve({ error: 'the workbench page crashed' }));
    page.on('pageerror', (e) => opts.verbose && say(`page error: ${e.message}`));
    // (page 'console' events would repeat what codeAutomationLog already receives)
    await Promise.race([page.goto(url, { waitUntil: 'domcontentloaded', timeout: scaled(60_000) }), finished]);
    timing('workbench page loaded');
    return { ...(await finished), testLines, workbenchLog };
  } finally {
    workbenchPage = null;
    // A hung page must not keep us: close with a deadline, then the process-group kill cleans up.
    await within(
      browser.close().catch(() => {}),
      scaled(10_000),
    );
    xvfb?.process.kill('SIGTERM');
  }
}

function tail(file, n) {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-n).join('\n');
  } catch {
    return '';
  }
}

async function main() {
  const host = ensureHost({ quiet: true });
  if (mode === 'dev') checkExtensionBuilt();
  else if (!existsSync(vsix)) throw new Error(`no such VSIX: ${vsix}`);
  for (const dir of extraExtensions) {
    if (!existsSync(path.join(dir, 'package.json'))) throw new Error(`--extra-extension ${dir} has no package.json`);
  }
  const testsModule = await buildTests();
  timing('setup checked, tests bundled');

  reapStaleRuns();
  const d = makeScratch();
  // playwright's own temporary files (browser profile, artifacts) go to os.tmpdir(): keep them in scratch.
  process.env.TMPDIR = d.tmp;
  const driver = await startDriver({
    page: () => workbenchPage,
    artifactsDir: path.join(ROOT, 'test', 'artifacts', 'host'),
    browserInfo,
    log: (line) => opts.verbose && say(line),
  });
  const env = childEnv(d, driver.url, await copilotHarnessEnv(d));

  let s;
  let result;
  let harnessError;
  const onSignal = (sig) => {
    say(`${sig}: cleaning up`);
    cleanup().finally(() => {
      report({ suite: mode === 'vsix' ? 'integration-vsix' : 'integration', problem: `interrupted by ${sig}`, say });
      process.exit(sig === 'SIGINT' ? 130 : 143);
    });
  };
  const cleanup = async () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await driver.close();
    await stopServer(s);
    const left = processesOf(d.scratch);
    if (left.length) {
      say(`ending ${left.length} leftover process(es): ${left.join(' ')}`);
      killAll(left, 'SIGKILL');
      // Gone before their scratch folder is removed (or they write into it again). SIGKILL cannot be
      // refused; the deadline is for a process stuck in the kernel, which then outlives this run.
      const end = Date.now() + scaled(10_000);
      while (processesOf(d.scratch).length > 0 && Date.now() < end) await sleep(50);
    }
    s?.log.end();
    if (opts.keep) say(`kept ${d.scratch}`);
    else rmSync(d.scratch, { recursive: true, force: true, maxRetries: 3 });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    if (vsix) installVsix(host, d, env);
    s = startServer(host, d, env);
    const port = await s.ready;
    timing('server ready');
    say(`code-server on 127.0.0.1:${port}; mode ${mode}; workspace ${d.workspace}`);
    if (TIME_SCALE > 1) say(`deadlines ×${TIME_SCALE} (TEST_TIME_SCALE); the run's: ${timeoutMs / 1000} s`);
    // Whatever comes first ends the run: the host's exit, the overall deadline, the server dying.
    let timer;
    const stop = Promise.race([
      new Promise((resolve) => {
        timer = setTimeout(() => resolve({ error: `no exit from the extension host within ${opts.timeout} s` }), timeoutMs);
      }),
      s.exited.then(({ code, signal }) => ({ error: `code-server exited during the run (${code ?? signal})` })),
    ]);
    try {
      result = await runInBrowser(host, d, env, port, testsModule, stop);
    } finally {
      clearTimeout(timer);
    }
  } catch (e) {
    harnessError = e;
  }

  timing('host exited');
  const counts = readCounts(d.results, result?.testLines);
  let problem = harnessError?.message ?? result?.error;
  if (!problem && result.code !== 0 && !(counts?.failed > 0)) problem = `extension host exited with ${result.code}`;
  if (!problem && !counts) problem = 'the host reported no test counts';
  if (problem) {
    say(`FAILED: ${problem}`);
    if (result?.workbenchLog?.length && !opts.verbose) {
      say(`workbench log (last 40 lines):\n${result.workbenchLog.slice(-40).join('\n')}`);
    }
    say(`server log (last 40 lines):\n${tail(d.serverLog, 40)}`);
  }
  await cleanup();
  const ok = report({
    suite: mode === 'vsix' ? 'integration-vsix' : 'integration',
    counts,
    problem,
    seconds: (Date.now() - t0) / 1000,
    say,
  });
  process.exitCode = ok ? 0 : 1;
}

main().catch((e) => {
  say(`FAILED: ${e.stack ?? e}`);
  report({ suite: 'integration', problem: String(e.message ?? e), say });
  process.exitCode = 1;
});
