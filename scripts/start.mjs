#!/usr/bin/env node
// `npm start`: try the extension in a real VS Code in the browser, without packaging anything.
// Builds, then starts the code-server the real-host tests install (scripts/host/setup.mjs; the first
// run installs it) on 127.0.0.1 and a free port, and prints the URL of a window that has this working
// tree loaded as the extension under development, beside the small demo extension, on a fresh copy of
// demo/workspace. Runs until Ctrl-C; then ends everything it started and removes its temporary folder.
import { spawnSync } from 'node:child_process';
import { cpSync, createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  ROOT,
  checkExtensionBuilt,
  fileTail,
  killAll,
  processesOf,
  startCodeServer,
  stopCodeServer,
  workbenchUrl,
  writeUserSettings,
} from './host/common.mjs';
import { CODE_SERVER_VERSION, ensureHost } from './host/setup.mjs';

const say = (msg) => process.stdout.write(`[start] ${msg}\n`);

function build() {
  say('building (node scripts/build.mjs)');
  const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`the build failed (exit ${r.status ?? r.signal})`);
  checkExtensionBuilt();
}

// Everything the server, its extension host and the extensions write goes under one temporary folder.
function makeScratch() {
  const scratch = mkdtempSync(path.join(tmpdir(), 'tor-start-'));
  const d = {
    scratch,
    userData: path.join(scratch, 'user-data'),
    extensions: path.join(scratch, 'extensions'),
    workspace: path.join(scratch, 'demo-workspace'),
    development: path.join(scratch, 'development-extensions'),
    serverLog: path.join(scratch, 'server.log'),
    xdg: path.join(scratch, 'xdg'),
  };
  for (const dir of [d.extensions, d.development, d.xdg]) mkdirSync(dir, { recursive: true });
  writeUserSettings(d.userData);
  cpSync(path.join(ROOT, 'demo', 'workspace'), d.workspace, { recursive: true });
  // Two extensions under development, one payload entry: a folder of links is scanned like an
  // extensions folder (scripts/host/run.mjs does the same with --extra-extension).
  symlinkSync(ROOT, path.join(d.development, 'tool-output-recall'), 'dir');
  symlinkSync(path.join(ROOT, 'demo', 'extension'), path.join(d.development, 'demo'), 'dir');
  return d;
}

function serverEnv(d) {
  const env = { ...process.env };
  // Inside a VS Code terminal these make code-server act as a client of that VS Code instead of a server.
  for (const k of Object.keys(env)) if (k.startsWith('VSCODE_') || k === 'ELECTRON_RUN_AS_NODE') delete env[k];
  return {
    ...env,
    XDG_CONFIG_HOME: path.join(d.xdg, 'config'),
    XDG_DATA_HOME: path.join(d.xdg, 'data'),
    XDG_CACHE_HOME: path.join(d.xdg, 'cache'),
    // No marketplace: nothing is fetched.
    EXTENSIONS_GALLERY: '{}',
    // Marks every process started from here, so the ones a stopped server leaves are found (processesOf).
    TOR_TEST_SCRATCH: d.scratch,
  };
}

const vscodeVersion = (host) => JSON.parse(readFileSync(path.join(host.codeServerDir, 'lib', 'vscode', 'package.json'), 'utf8')).version;

async function main() {
  build();
  const host = ensureHost({ quiet: true });
  const d = makeScratch();
  const log = createWriteStream(d.serverLog);
  const s = startCodeServer(host, {
    userDataDir: d.userData,
    extensionsDir: d.extensions,
    cwd: d.workspace,
    env: serverEnv(d),
    onOutput: (chunk) => log.write(chunk),
  });

  let stopping = false;
  const stop = async (why, code) => {
    if (stopping) return;
    stopping = true;
    say(`${why}: stopping code-server`);
    await stopCodeServer(s);
    const left = processesOf(d.scratch);
    if (left.length) killAll(left, 'SIGKILL');
    log.end();
    rmSync(d.scratch, { recursive: true, force: true, maxRetries: 3 });
    say(`stopped; removed ${d.scratch}`);
    process.exit(code);
  };
  process.on('SIGINT', () => void stop('Ctrl-C', 0));
  process.on('SIGTERM', () => void stop('SIGTERM', 0));
  void s.exited.then(({ code, signal }) => {
    if (stopping) return;
    say(`code-server exited by itself (${code ?? signal}); its log:\n${fileTail(d.serverLog, 40)}`);
    void stop('code-server gone', 1);
  });

  let port;
  try {
    port = await s.ready;
  } catch (error) {
    say(`FAILED: ${error.message}\n${fileTail(d.serverLog, 40)}`);
    return stop('no server', 1);
  }
  const url = workbenchUrl(port, { folder: d.workspace, developmentPath: d.development });
  process.stdout.write(
    [
      '',
      `Tool Output Recall is running in VS Code ${vscodeVersion(host)} (code-server ${CODE_SERVER_VERSION}). Open:`,
      '',
      `  ${url}`,
      '',
      `Demo workspace: ${d.workspace} (a fresh copy of demo/workspace).`,
      'Then run "Tool Output Recall Demo: Run build-log.sh with run_command" from the Command Palette.',
      'The extension is loaded from this working tree: after `npm run build`, reload the page to pick up changes.',
      'Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );
}

main().catch((error) => {
  say(`FAILED: ${error.stack ?? error}`);
  process.exitCode = 1;
});
