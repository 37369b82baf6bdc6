#!/usr/bin/env node
// `npm start`: try the extension in a real VS Code in the browser, without packaging anything.
// Builds, then starts the code-server the real-host tests install (scripts/host/setup.mjs; the first
// run installs it, saying what and how far) on 127.0.0.1 and a free port, and prints the URL of a
// normal VS Code window on a fresh copy of demo/workspace, with this working tree and the small demo
// extension installed as links in its extensions folder. Not the tests' extension-development window:
// that needs VS Code's smoke-test driver option, under which no notification ever shows (common.mjs).
// Runs until Ctrl-C; then ends everything it started and removes its temporary folder.
import { spawnSync } from 'node:child_process';
import { cpSync, createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ROOT,
  checkExtensionBuilt,
  fileTail,
  killAll,
  processesOf,
  startCodeServer,
  stopCodeServer,
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

/** The extensions `npm start` installs: this working tree and the demo extension. */
export const START_EXTENSIONS = [ROOT, path.join(ROOT, 'demo', 'extension')];

/**
 * Installs each extension folder of `roots` into `extensionsDir` as a link named as VS Code names an
 * installed extension (`<publisher>.<name>-<version>`), which VS Code scans like any other: no VSIX to
 * package or copy (instant, offline), and `npm run build` then a reload of the page loads the change.
 * Returns the links' names.
 */
export function linkExtensions(extensionsDir, roots) {
  mkdirSync(extensionsDir, { recursive: true });
  return roots.map((root) => {
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
    const name = `${pkg.publisher}.${pkg.name}-${pkg.version}`;
    symlinkSync(root, path.join(extensionsDir, name), 'dir');
    return name;
  });
}

/** The options `npm start` starts code-server with (common.mjs startCodeServer): a window as a user gets it, no driver. */
export function startServerOptions(d) {
  return { userDataDir: d.userData, extensionsDir: d.extensions, smokeTestDriver: false, cwd: d.workspace, env: serverEnv(d) };
}

/** The URL of a normal window on `folder`: no payload (without the driver option VS Code would ignore it). */
export const startUrl = (port, folder) => `http://127.0.0.1:${port}/?folder=${encodeURIComponent(folder)}`;

/** Everything the server, its extension host and the extensions write goes under one temporary folder. */
export function makeScratch() {
  const scratch = mkdtempSync(path.join(tmpdir(), 'tor-start-'));
  const d = {
    scratch,
    userData: path.join(scratch, 'user-data'),
    extensions: path.join(scratch, 'extensions'),
    workspace: path.join(scratch, 'demo-workspace'),
    serverLog: path.join(scratch, 'server.log'),
    xdg: path.join(scratch, 'xdg'),
  };
  mkdirSync(d.xdg, { recursive: true });
  writeUserSettings(d.userData);
  cpSync(path.join(ROOT, 'demo', 'workspace'), d.workspace, { recursive: true });
  linkExtensions(d.extensions, START_EXTENSIONS);
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
  say('checking the VS Code host (the first run installs it: see "What npm start installs" in docs/development.md)');
  const host = ensureHost({ quiet: true });
  const d = makeScratch();
  const log = createWriteStream(d.serverLog);
  const s = startCodeServer(host, { ...startServerOptions(d), onOutput: (chunk) => log.write(chunk) });

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
  const url = startUrl(port, d.workspace);
  process.stdout.write(
    [
      '',
      `Tool Output Recall is running in VS Code ${vscodeVersion(host)} (code-server ${CODE_SERVER_VERSION}). Open:`,
      '',
      `  ${url}`,
      '',
      `Demo workspace: ${d.workspace} (a fresh copy of demo/workspace).`,
      'Then run "Tool Output Recall Demo: Run build-log.sh with run_command" from the Command Palette.',
      'The extension is installed as a link to this working tree: after `npm run build`, reload the page to pick up changes.',
      'Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    say(`FAILED: ${error.stack ?? error}`);
    process.exitCode = 1;
  });
}
