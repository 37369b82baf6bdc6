// Where the store worker's memory goes: storeRssChild.mjs's scenario (full: 8 retains of 8 MiB of
// random bytes, flush, pages, two searches; resume: reopen, pages, two searches) with probes.
//   node bench/profile/storeMemory.mjs [full|resume|both] [--gc-main]
// Prints, per step, the main thread's memoryUsage() and the peak RSS of the process during the
// step, and (from storeMemoryWorker.cjs, the store worker with probes) each thread's memoryUsage()
// and sql.js's WebAssembly memory whenever the worker answers. --gc-main runs node with
// --expose-gc and collects the main thread's garbage after each retain (the bench child's own
// dead 8 MiB buffers), to tell the bench's memory from the store's.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const [mode = 'both', ...flags] = process.argv.slice(2);
const MiB = 1048576;
const mib = (bytes) => +(bytes / MiB).toFixed(1);

if (mode === 'both') {
  // Each scenario in a fresh process, as storeRssChild.mjs runs them.
  const dir = mkdtempSync(path.join(tmpdir(), 'tor-memory-'));
  try {
    for (const step of ['full', 'resume']) {
      const args = [...(flags.includes('--gc-main') ? ['--expose-gc'] : []), fileURLToPath(import.meta.url), step, dir, ...flags];
      const run = spawnSync(process.execPath, args, { stdio: 'inherit' });
      if (run.status !== 0) process.exit(run.status ?? 1);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.exit(0);
}

const dir = flags.find((flag) => !flag.startsWith('--'));
const require = createRequire(import.meta.url);
const core = require(process.env.TOR_BENCH_CORE ?? '../../dist/core.js');
const statusKiB = (field) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync('/proc/self/status', 'utf8'))[1]);
function step(label) {
  globalThis.gc?.();
  const usage = process.memoryUsage();
  process.stderr.write(
    `${JSON.stringify({ thread: 'main', probe: label, rssNow: mib(usage.rss), rssPeakSinceLast: mib(statusKiB('VmHWM') * 1024), heapUsed: mib(usage.heapUsed), external: mib(usage.external), arrayBuffers: mib(usage.arrayBuffers) })}\n`,
  );
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    // not Linux
  }
}

step(`${mode}: before open`);
const store = await core.openWorkerStore({
  dir,
  sessionId: 'full64',
  quotaBytes: 8 * 8 * MiB,
  copyBytes: 8 * MiB,
  workerPath: path.join(here, 'storeMemoryWorker.cjs'),
});
step('opened');
const NEEDLE = 'settlement_ref=ZX9-7F3A-END';
const ids = [];
const middles = new Map();
if (mode === 'full') {
  for (let i = 0; i < 8; i++) {
    const content = randomBytes(8 * MiB);
    const { outputId } = await store.retain(content, { tool: 'bench', title: `random ${i + 1}` });
    ids.push(outputId);
    middles.set(outputId, core.boundaryAtOrAfter(content, 4 * MiB));
    step(`retained ${i + 1}`);
  }
  await store.flush();
  step('flushed');
} else {
  for (const output of await store.list()) ids.push(output.outputId);
}
for (const id of ids) {
  let offset = 0;
  for (let page = 0; page < 4; page++) offset = (await store.read(id, offset)).nextOffset ?? offset;
  if (middles.has(id)) await store.read(id, middles.get(id));
}
step('paged');
for (const id of [ids[0], ids.at(-1)]) {
  await store.search(id, NEEDLE);
  step('searched');
}
await store.close();
step('closed');
