// One capture measurement in a fresh process, so earlier allocations cannot mask RSS growth.
//   node bench/captureChild.mjs <mode> <shell command>
// Prints one JSON line: { mode, ms, bytes, rssStart, rssPeak, hwmGrowth, samples, ... }.
//
// baseline:        child_process.spawn(shell, ['-c', command]) that only drains stdout/stderr.
// baseline-detached: the same with detached: true, as captureCommand spawns (a new session: on Linux
//                  with sched_autogroup that is also a new scheduling group).
// subject:         runCommand(...) (tools/runCommand.ts: captureCommand, then preview and retain) with a session store (capture, cap, retain the merged copy durably).
// subject-nostore: runCommand(...) without a store (capture and caps only).
// prototype:       bench/profile/zeroCopyCapture.mjs, the capture fix proposed in the report (opt-in).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const require = createRequire(import.meta.url);
// TOR_BENCH_CORE=/path/to/core.js measures another build of the engine (an A/B of a candidate fix).
const core = require(process.env.TOR_BENCH_CORE ?? '../dist/core.js');
const [mode, command] = process.argv.slice(2);
const MODES = ['baseline', 'baseline-detached', 'subject', 'subject-nostore', 'prototype'];
if (!MODES.includes(mode) || !command) {
  console.error(`usage: captureChild.mjs <${MODES.join('|')}> <command>`);
  process.exit(2);
}

const MiB = 1048576;
const dir = mkdtempSync(path.join(tmpdir(), 'tor-bench-capture-'));
// Every mode opens a store (and so loads sql.js) before the starting RSS is taken, so all processes
// start from the same state: in the extension the store is already open when a command runs, and
// V8's GC heuristics (which decide how long dead pipe buffers linger) depend on the heap's state.
const store = await core.openStore({ dir });
const prototype = mode === 'prototype' ? (await import('./profile/zeroCopyCapture.mjs')).prototypeCapture : undefined;
// Warm the spawn path and JIT a little in both modes, identically.
await new Promise((resolve) => spawn('/bin/sh', ['-c', 'true']).on('close', resolve));
globalThis.gc?.();
await new Promise((resolve) => setTimeout(resolve, 50));

/** Peak resident set (VmHWM) can be reset on Linux by writing 5 to clear_refs. */
function resetHwm() {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}
function hwmBytes() {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    return match ? Number(match[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

const hwmReset = resetHwm();
const rssStart = process.memoryUsage.rss();
let rssPeak = rssStart;
let samples = 0;
const sampler = setInterval(() => {
  samples++;
  const rss = process.memoryUsage.rss();
  if (rss > rssPeak) rssPeak = rss;
}, 10);

let bytes = 0;
let detail = {};
const started = process.hrtime.bigint();
if (mode.startsWith('baseline')) {
  await new Promise((resolve, reject) => {
    // The same shell captureCommand picks (src/core/capture/processTree.ts), so the command is the same.
    const shell = process.env.SHELL && /\/(ba|z|da)?sh$/.test(process.env.SHELL) ? process.env.SHELL : '/bin/sh';
    const child = spawn(shell, ['-c', command], { cwd: dir, detached: mode === 'baseline-detached', stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk) => {
      bytes += chunk.length;
    });
    child.stderr.on('data', (chunk) => {
      bytes += chunk.length;
    });
    child.on('error', reject);
    child.on('close', resolve);
  });
} else {
  const limits = { previewBytes: 24 * 1024, streamBytes: 8 * MiB };
  const result = prototype
    ? await prototype(command, dir, store, core, limits)
    : await core.runCommand({ command, cwd: dir }, mode === 'subject' ? store : undefined, limits);
  bytes = result.stdout.totalBytes + result.stderr.totalBytes;
  detail = {
    recovery: result.recovery,
    recoveryReason: result.recoveryReason,
    exitCode: result.exitCode,
    mergedCaptured: result.merged.capturedBytes,
  };
}
const ms = Number(process.hrtime.bigint() - started) / 1e6;
const rssEnd = process.memoryUsage.rss();
if (rssEnd > rssPeak) rssPeak = rssEnd;
clearInterval(sampler);
const hwm = hwmBytes();

await store.close();
rmSync(dir, { recursive: true, force: true });
process.stdout.write(
  `${JSON.stringify({ mode, ms, bytes, rssStart, rssPeak, rssGrowth: rssPeak - rssStart, hwmGrowth: hwmReset ? hwm - rssStart : NaN, samples, ...detail })}\n`,
);
