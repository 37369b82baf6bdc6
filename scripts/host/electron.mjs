#!/usr/bin/env node
// `npm run test:electron`: the integration suites (test/integration) in desktop VS Code through
// @vscode/test-electron. For machines WITH internet: runTests() downloads VS Code into .vscode-test/
// on first use (offline it fails at once with getaddrinfo ENOTFOUND update.code.visualstudio.com; use
// scripts/host/run.mjs there). Same bundle, same env contract and same closing report as run.mjs.
//
//   node scripts/host/electron.mjs [--vsix <file>] [--grep <pattern>] [--extra-extension <dir>]...
//        [--vscode-version <1.x.y|stable|insiders>] [--vscode-executable <path>] [--timeout <seconds>]
//
// Linux without a display: Electron needs an X server. If DISPLAY is unset and Xvfb is installed
// (Debian: apt-get install xvfb), one is started for the run; otherwise run under `xvfb-run -a`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  ROOT,
  buildTests,
  checkExtensionBuilt,
  killAll,
  processesOf,
  readCounts,
  report,
  scaled,
  startXvfb,
  writeStubExtension,
  writeTestWorkspace,
  writeUserSettings,
} from './common.mjs';

const say = (msg) => process.stdout.write(`[electron] ${msg}\n`);
const t0 = Date.now();

const { values: opts } = parseArgs({
  options: {
    vsix: { type: 'string' },
    grep: { type: 'string' },
    'extra-extension': { type: 'string', multiple: true, default: [] },
    // The same VS Code as the offline host (code-server 4.139.1) unless told otherwise.
    'vscode-version': { type: 'string', default: process.env.TOR_VSCODE_VERSION || '1.139.1' },
    'vscode-executable': { type: 'string', default: process.env.TOR_VSCODE_EXECUTABLE },
    timeout: { type: 'string', default: process.env.TOR_HOST_TIMEOUT || '600' },
  },
});
const mode = opts.vsix ? 'vsix' : 'dev';
const vsix = opts.vsix && path.resolve(opts.vsix);
const extraExtensions = opts['extra-extension'].map((d) => path.resolve(d));

// Electron needs an X server: without DISPLAY, start one (Debian xvfb) for the run.
async function startDisplay() {
  if (process.platform !== 'linux' || process.env.DISPLAY) return undefined;
  if (spawnSync('sh', ['-c', 'command -v Xvfb']).status !== 0) {
    say('no DISPLAY and no Xvfb: install xvfb or run under `xvfb-run -a`; trying anyway');
    return undefined;
  }
  const { display, process: xvfb } = await startXvfb({ width: 1280, height: 1024 });
  process.env.DISPLAY = display;
  say(`started Xvfb on ${display}`);
  return xvfb;
}

async function main() {
  // Loaded here so that a missing package fails inside main() with the usual report.
  const { downloadAndUnzipVSCode, resolveCliArgsFromVSCodeExecutablePath, runTests } = await import('@vscode/test-electron');
  if (mode === 'dev') checkExtensionBuilt();
  else if (!existsSync(vsix)) throw new Error(`no such VSIX: ${vsix}`);
  const testsModule = await buildTests();

  const scratch = mkdtempSync(path.join(tmpdir(), 'tor-electron-'));
  const userData = path.join(scratch, 'user-data');
  const extensions = path.join(scratch, 'extensions');
  const workspace = path.join(scratch, 'workspace');
  const results = path.join(scratch, 'results.json');
  mkdirSync(extensions, { recursive: true });
  writeUserSettings(userData);
  writeTestWorkspace(workspace);

  let xvfb;
  let timer;
  let problem;
  try {
    xvfb = await startDisplay();
    const vscodeExecutablePath =
      opts['vscode-executable'] ??
      (await downloadAndUnzipVSCode({ version: opts['vscode-version'], cachePath: path.join(ROOT, '.vscode-test') }));
    const profile = [`--user-data-dir=${userData}`, `--extensions-dir=${extensions}`];

    if (vsix) {
      // reuseMachineInstall: true only stops the helper from adding .vscode-test/ profile folders; ours follow.
      const [cli, ...cliArgs] = resolveCliArgsFromVSCodeExecutablePath(vscodeExecutablePath, { reuseMachineInstall: true });
      say(`installing ${vsix}`);
      const r = spawnSync(cli, [...cliArgs, ...profile, '--install-extension', vsix], { encoding: 'utf8', stdio: 'pipe' });
      if (r.status !== 0) throw new Error(`installing ${vsix} failed (exit ${r.status ?? r.signal}):\n${r.stdout}${r.stderr}`);
    }

    // Desktop accepts several --extensionDevelopmentPath. A VSIX run still needs one (tests only run in
    // an extension-development window): the extras, or a stub, never the repo.
    const developmentPaths =
      mode === 'dev'
        ? [ROOT, ...extraExtensions]
        : extraExtensions.length
          ? extraExtensions
          : [writeStubExtension(path.join(scratch, 'stub-extension'))];

    const deadline = new Promise((_, reject) => {
      timer = setTimeout(
        () => {
          killAll(processesOf(scratch), 'SIGKILL'); // VS Code and its children carry TOR_TEST_SCRATCH
          reject(new Error(`no exit from VS Code within ${scaled(Number(opts.timeout) * 1000) / 1000} s`));
        },
        // Seconds on an idle machine, stretched by TEST_TIME_SCALE like every deadline (common.mjs).
        scaled(Number(opts.timeout) * 1000),
      );
    });
    await Promise.race([
      deadline,
      runTests({
        vscodeExecutablePath,
        extensionDevelopmentPath: developmentPaths,
        extensionTestsPath: testsModule,
        // First argument: the folder to open. Then our own profile and quiet, offline-friendly flags.
        launchArgs: [workspace, ...profile, '--disable-telemetry', '--disable-gpu'],
        extensionTestsEnv: {
          NO_COLOR: '1',
          TOR_TEST_SCRATCH: scratch,
          TOR_TEST_WORKSPACE: workspace,
          TOR_TEST_MODE: mode,
          TOR_TEST_REPO: ROOT,
          TOR_TEST_RESULTS_FILE: results,
          TOR_TEST_EXTRA_EXTENSIONS: JSON.stringify(extraExtensions),
          ...(opts.grep ? { TOR_TEST_GREP: opts.grep } : {}),
        },
      }),
    ]);
  } catch (e) {
    // runTests rejects with TestRunFailedError on a non-zero exit, which includes failing tests.
    problem = e?.message ?? String(e);
  } finally {
    clearTimeout(timer);
    xvfb?.kill('SIGTERM');
  }

  const counts = readCounts(results);
  // Failing tests are reported by their counts; anything else that went wrong is a problem of its own.
  if (counts && counts.failed > 0) problem = undefined;
  else if (!problem && !counts) problem = 'VS Code reported no test counts';
  if (problem) say(`FAILED: ${problem}`);
  killAll(processesOf(scratch), 'SIGKILL');
  rmSync(scratch, { recursive: true, force: true, maxRetries: 3 });
  const ok = report({ suite: mode === 'vsix' ? 'electron-vsix' : 'electron', counts, problem, seconds: (Date.now() - t0) / 1000, say });
  process.exitCode = ok ? 0 : 1;
}

main().catch((e) => {
  say(`FAILED: ${e.stack ?? e}`);
  report({ suite: 'electron', problem: String(e.message ?? e), say });
  process.exitCode = 1;
});
