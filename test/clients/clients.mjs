// Running the real CLIs against the scripted model, each in a throwaway HOME (and CODEX_HOME), with
// our server configured the way docs/agents.md tells users to (or as Connect Other Agents writes it):
// stdio from `.mcp.json` / `config.toml`, or HTTP with the token in an environment variable. Every
// process runs in its own process group and is killed with it after a bounded time.
//
// The configuration files name plain `node`. A `node` first on PATH (shimDir) is the real Node, with
// the recording preload (tap.mjs) added when it starts our server, so the files stay as users write them.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { scaled } from '../../scripts/host/common.mjs';

// TEST_TIME_SCALE: scripts/test-all.mjs measures the machine; every limit of this suite is multiplied by it.
export { scaled };

const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.dirname(path.dirname(here));
export const DIST_MCP = path.join(root, 'dist', 'mcp.js');
export const TOKEN_ENV = 'TOOL_OUTPUT_RECALL_MCP_TOKEN';
const TAP = path.join(here, 'tap.mjs');

/** The preload argument recording into `out` (our scratch paths need no escaping in a URL or in sh). */
export const tapArg = (out) => `--import=file://${TAP}?out=${out}`;

/** A folder with a `node` that records our server's traffic into <taps>/tap-<pid>.jsonl and runs anything else as it is. */
export function makeShim(dir, taps) {
  mkdirSync(dir, { recursive: true });
  mkdirSync(taps, { recursive: true });
  const node = path.join(dir, 'node');
  // `$$`: the shell's pid, which exec hands to Node.
  const preload = tapArg(path.join(taps, 'tap-$$.jsonl'));
  writeFileSync(
    node,
    [
      '#!/bin/sh',
      '# Our MCP server (dist/mcp.js or the installed launcher) starts with the recording preload; the pid names its record.',
      'case "$1" in',
      `  *mcp.js) exec "${process.execPath}" "${preload}" "$@" ;;`,
      'esac',
      `exec "${process.execPath}" "$@"`,
      '',
    ].join('\n'),
  );
  chmodSync(node, 0o755);
  return dir;
}

/**
 * Runs a command in its own process group with stdin closed; resolves when it exits or after
 * `limitMs` (then the group is killed). The group is killed at the end in any case, so a server the
 * CLI started cannot outlive the test. Every limit here is generous for an idle machine and is
 * multiplied by TEST_TIME_SCALE (scripts/host/common.mjs): it is there so that a hung CLI ends.
 * `stopWhen` (a promise) stops it earlier.
 */
export function runGroup(file, args, { cwd, env, limitMs: idleLimitMs = 180_000, stopWhen }) {
  const limitMs = scaled(idleLimitMs);
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(file, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    let timedOut = false;
    let stopped = false;
    /** When this suite first signalled the group: a server's stop cue after it is ours, not the client's. */
    let signalledAt;
    const kill = (signal) => {
      signalledAt ??= Date.now();
      try {
        process.kill(-child.pid, signal);
      } catch {
        // the group is gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill('SIGTERM');
      setTimeout(() => kill('SIGKILL'), scaled(5_000)).unref(); // its time to stop after SIGTERM
    }, limitMs);
    // `stopWhen`: a promise after which the run has shown what it was for (the start-up race's first model request): the group is stopped then.
    void stopWhen?.then(() => {
      stopped = true;
      kill('SIGTERM');
    });
    const done = async (code, signal) => {
      clearTimeout(timer);
      const ended = Date.now();
      // A client may exit while what it started (our server) is still stopping, as it told it to: that
      // stop is measured (tap.mjs), so the group gets time to end by itself before it is stopped here.
      await groupGone(child.pid, scaled(3_000));
      kill('SIGTERM');
      setTimeout(() => kill('SIGKILL'), scaled(3_000)).unref(); // what it started, its time to stop
      resolve({ code, signal, stdout, stderr, ms: ended - started, started, ended, signalledAt, timedOut, stopped });
    };
    child.on('error', (error) => done(null, String(error)));
    child.on('exit', done);
  });
}

/** Resolves true once process group `pgid` has no process left (polled), false after `limitMs`. */
async function groupGone(pgid, limitMs) {
  const until = Date.now() + limitMs;
  for (;;) {
    try {
      process.kill(-pgid, 0);
    } catch {
      return true;
    }
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 20)); // a poll, not a wait for time
  }
}

/**
 * The hook door's files (hookListener.ts: `<pid>.json` and `<pid>.sock`, named by the process the
 * client started) still in the run folders a server opens its door in (hookRunDir.ts): those a stop
 * must remove.
 */
export function doorFilesLeft(pid) {
  const dirs = readdirSync(tmpdir())
    .filter((name) => name.startsWith(`tool-output-recall-${process.getuid()}-`))
    .map((name) => path.join(tmpdir(), name));
  if (process.env.XDG_RUNTIME_DIR) dirs.push(path.join(process.env.XDG_RUNTIME_DIR, 'tool-output-recall'));
  return dirs.flatMap((dir) => [`${pid}.json`, `${pid}.sock`].map((name) => path.join(dir, name))).filter((file) => existsSync(file));
}

/** Starts `dist/mcp.js --http 0` (recorded into `tap`) with the token in the environment; resolves with its URL. */
export function startHttpServer({ workspace, store, tap, token, limitMs: idleLimitMs = 30_000 }) {
  const limitMs = scaled(idleLimitMs); // it says where it serves within a second on an idle machine
  mkdirSync(workspace, { recursive: true });
  mkdirSync(store, { recursive: true });
  const args = [tapArg(tap), DIST_MCP, '--http', '0', '--workspace', workspace, '--store', store];
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
    env: { ...process.env, [TOKEN_ENV]: token },
  });
  let stderr = '';
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // gone already
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // gone
      }
    }, scaled(5_000)); // its time to close the session after SIGTERM
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`the HTTP server did not say where it serves within ${limitMs} ms: ${stderr}`));
    }, limitMs);
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const match = /serving MCP at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve({ url: match[1], stderr: () => stderr, stop });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the HTTP server exited with ${code}: ${stderr}`));
    });
  });
}

/** The environment every CLI run gets: a throwaway HOME, our `node` first, nothing from the caller's npm or agent settings. */
export function baseEnv({ home, shim }) {
  const env = {};
  for (const key of ['PATH', 'LANG', 'TERM', 'TMPDIR', 'TZ', 'USER', 'LOGNAME', 'SHELL']) if (process.env[key]) env[key] = process.env[key];
  return { ...env, HOME: home, PATH: `${shim}${path.delimiter}${process.env.PATH}`, NO_COLOR: '1' };
}
