// One store-worker memory measurement in a fresh process, so nothing earlier in the bench inflates it.
//   node bench/lib/storeRssChild.mjs <empty|full|resume> <dir> <sessionId>
// Prints one JSON line: { mode, maxRssKiB, hwmKiB, ms, cpuMs, outputs, retainedBytes, evicted, reads, matches, fileBytes }.
//
// empty:  opens an empty worker store and closes it (the baseline: Node, the worker thread, sql.js).
// full:   retains 8 × 8 MiB of random bytes (incompressible) through openWorkerStore, flushes, reads
//         a few pages of every copy, searches two of them, closes.
// resume: reopens that session (sessionId) in the worker, reads the same way, searches, closes.
// maxRssKiB is process.resourceUsage().maxRSS: the whole process (main thread and worker thread).
// With --expose-gc (checkpoint.mjs passes it unless TOR_BENCH_KEEP_GARBAGE is set) the child collects its own
// garbage after each retain and search: the 8 MiB copies it made and dropped are the bench's memory, not
// the store's (without it, V8 kept 16-32 MiB of them alive in this thread, measured in bench/profile/storeMemory.mjs).
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { readFileSync, statSync } from 'node:fs';

const require = createRequire(import.meta.url);
// TOR_BENCH_CORE=/path/to/core.js measures another build of the engine (storeWorker.js beside it).
const core = require(process.env.TOR_BENCH_CORE ?? '../../dist/core.js');
const [mode, dir, sessionId] = process.argv.slice(2);
if (!['empty', 'full', 'resume'].includes(mode) || !dir || !sessionId) {
  console.error('usage: storeRssChild.mjs <empty|full|resume> <dir> <sessionId>');
  process.exit(2);
}

/**
 * VmHWM, this process's own peak RSS. On Linux maxRSS also counts the parent's RSS at spawn time (exec
 * keeps the pre-exec memory's high-water mark), so from a large parent the two differ.
 */
function hwmKiB() {
  try {
    return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))[1]);
  } catch {
    return NaN;
  }
}

const MiB = 1048576;
const COPY = 8 * MiB;
const OUTPUTS = 8;
const QUOTA = OUTPUTS * COPY;
// Not in random bytes (a 27-byte literal has no realistic chance of matching): the search scans the whole copy.
const NEEDLE = 'settlement_ref=ZX9-7F3A-END';

const started = process.hrtime.bigint();
const store = await core.openWorkerStore({ dir, sessionId, quotaBytes: QUOTA, copyBytes: COPY });
let reads = 0;
let matches = 0;
/** A few pages at the start of a copy and a few from `middle` (a UTF-8 unit boundary), following nextOffset. */
async function readPages(outputId, middle) {
  for (const start of [0, middle]) {
    let offset = start;
    for (let page = 0; page < 4; page++) {
      const result = await store.read(outputId, offset);
      reads++;
      if (!result.hasMore) break;
      offset = result.nextOffset;
    }
  }
}

if (mode === 'full') {
  const middles = [];
  for (let i = 0; i < OUTPUTS; i++) {
    // Generated and retained one at a time, as a tool's output arrives; the caller's buffer is then garbage.
    const content = randomBytes(COPY);
    const middle = core.boundaryAtOrAfter(content, COPY / 2);
    const { outputId, totalBytes } = await store.retain(content, { tool: 'bench', title: `random ${i + 1}` });
    if (totalBytes !== COPY) throw new Error(`retained ${totalBytes} bytes, expected ${COPY}`);
    middles.push({ outputId, middle });
    globalThis.gc?.();
  }
  await store.flush();
  for (const { outputId, middle } of middles) await readPages(outputId, middle);
  for (const { outputId } of [middles[0], middles.at(-1)]) {
    matches += (await store.search(outputId, NEEDLE)).matches.length;
    globalThis.gc?.();
  }
} else if (mode === 'resume') {
  if (!store.resumed) throw new Error(`session ${sessionId} was not resumed`);
  const outputs = await store.list();
  for (const output of outputs) await readPages(output.outputId, 0);
  for (const output of [outputs[0], outputs.at(-1)]) {
    matches += (await store.search(output.outputId, NEEDLE)).matches.length;
    globalThis.gc?.();
  }
}
const stats = await store.stats();
const file = store.file;
await store.close();
const ms = Number(process.hrtime.bigint() - started) / 1e6;
const cpu = process.cpuUsage();
let fileBytes = NaN;
try {
  fileBytes = statSync(file).size;
} catch {
  // the empty session's file may not exist
}
process.stdout.write(
  `${JSON.stringify({
    mode,
    maxRssKiB: process.resourceUsage().maxRSS,
    hwmKiB: hwmKiB(),
    ms,
    cpuMs: (cpu.user + cpu.system) / 1000,
    outputs: stats.outputs,
    retainedBytes: stats.retainedBytes,
    evicted: stats.evicted,
    reads,
    matches,
    fileBytes,
  })}\n`,
);
