// One run of the load bench (bench/load.mjs) in a fresh process, against one build of the engine.
//   node bench/lib/loadChild.mjs <core.js> <dir> <runaway: 0|1> [searches] [retains]
// Prints one JSON line: the reader's latencies, the background's counts and times, errors, wrong answers.
//
// The load (issue 12): four retained 1 MiB outputs; then, issued at once, 200 regex searches over
// them, 24 retains of 1 MiB and (with runaway=1) one search for `(q+)+$x`, a pattern that makes a
// backtracking engine run for ever on a line of q's; meanwhile one interactive reader reads 4 KiB
// pages, one after another, until the background is done. Every answer is checked: pages against
// the bytes retained, searches against an oracle (the same pattern as a JavaScript RegExp over the
// decoded text, with its indexes mapped to byte offsets).
import { createRequire } from 'node:module';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { makeLogText, lineStarts, prng } from './logtext.mjs';

const require = createRequire(import.meta.url);
const [corePath, dir, runawayArg, searchesArg = '200', retainsArg = '24'] = process.argv.slice(2);
const core = require(corePath);
const withRunaway = runawayArg === '1';

const MiB = 1024 * 1024;
const SEARCHES = Number(searchesArg);
const RETAINS = Number(retainsArg);
const PAGE = 4096;
const RARE = 'settlement_ref=ZX9-7F3A-END';
const QS = 'q'.repeat(40);

// Ordinary patterns a model writes over a log; each has the same meaning in RE2 and in JavaScript.
const PATTERNS = [
  ['ECONNRESET', {}],
  ['deadlock detected', { caseSensitive: true }],
  ['ERROR .*ETIMEDOUT', { regex: true }],
  ['bytes=\\d{6} req=', { regex: true, caseSensitive: true }],
  ['p99=\\d+\\.\\d+ms', { regex: true }],
  ['Время ожидания', {}],
  ['ÜBERPRÜFUNG', {}],
  [RARE, {}],
  ['^\\S+ ERROR \\[auth\\]', { regex: true, caseSensitive: true }],
  ['req=[0-9a-f]{8} user=李雷', { regex: true }],
  ['user=nobody\\d', { regex: true }],
];

const texts = [1, 2, 3, 4].map((seed) =>
  makeLogText(MiB, seed, [
    ...(seed === 2 ? [{ at: 0.97, line: `2024-05-18T23:59:58.120Z INFO  [billing] closing batch ${RARE} total=1` }] : []),
    ...(seed === 4 ? [{ at: 0.5, line: QS }] : []),
  ]),
);
const starts = texts.map(lineStarts);

/** The first `max` matches as the store must report them (byte offsets), and whether more exist. */
function oracle(bytes, pattern, options, max = 50) {
  const source = options.regex ? pattern : pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const regex = new RegExp(source, `gm${options.caseSensitive ? '' : 'i'}`);
  const text = bytes.toString('utf8');
  const offsets = [];
  let byteAt = 0;
  let charAt = 0;
  for (const match of text.matchAll(regex)) {
    if (offsets.length === max) return { offsets, truncated: true };
    byteAt += Buffer.byteLength(text.slice(charAt, match.index));
    charAt = match.index;
    offsets.push(byteAt);
  }
  return { offsets, truncated: false };
}

const expected = new Map();
const expectedFor = (index, p) => {
  const key = `${index}:${p}`;
  if (!expected.has(key)) expected.set(key, oracle(texts[index], ...PATTERNS[p]));
  return expected.get(key);
};

const store = await core.openWorkerStore({ dir });
const ids = [];
for (const text of texts) ids.push((await store.retain(text, { tool: 'bench' })).outputId);
await store.flush();
// Warm-up: every path once (JIT, SQL statements, the engines).
for (let i = 0; i < ids.length; i++) {
  await store.read(ids[i], 0, PAGE);
  await store.search(ids[i], 'warm-up', {});
}
for (let p = 0; p < PATTERNS.length; p++) for (let i = 0; i < ids.length; i++) expectedFor(i, p);

// The retains' content, made before the clock starts (generating it blocks this thread).
const fresh = Array.from({ length: RETAINS }, (_, k) => makeLogText(MiB, 100 + k));

const errors = [];
const wrong = [];
let done = false;
// This thread's own stalls (the reader runs here): a slow read that is not one is the store's.
const loop = monitorEventLoopDelay({ resolution: 5 });
loop.enable();
const t0 = performance.now();

const searches = Array.from({ length: SEARCHES }, (_, k) => {
  const index = k % ids.length;
  const p = k % PATTERNS.length;
  const [pattern, options] = PATTERNS[p];
  return store.search(ids[index], pattern, options).then(
    (found) => {
      const want = expectedFor(index, p);
      const got = found.matches.map((m) => m.offset);
      if (found.truncated !== want.truncated || got.join() !== want.offsets.join()) wrong.push(`search ${pattern} in output ${index}`);
      return performance.now() - t0;
    },
    (error) => {
      errors.push(`search ${pattern}: ${error.code ?? ''} ${error.message.slice(0, 120)}`);
      return performance.now() - t0;
    },
  );
});
const retains = fresh.map((text) =>
  store.retain(text, { tool: 'bench' }).then(
    (kept) => {
      if (kept.totalBytes !== text.length) wrong.push(`retain of ${text.length} bytes kept ${kept.totalBytes}`);
      return { id: kept.outputId, at: performance.now() - t0 };
    },
    (error) => {
      errors.push(`retain: ${error.code ?? ''} ${error.message.slice(0, 120)}`);
      return { at: performance.now() - t0 };
    },
  ),
);
let runaway;
if (withRunaway) {
  const started = performance.now();
  runaway = store.search(ids[3], '(q+)+$x', { regex: true }).then(
    (found) => ({ ms: performance.now() - started, outcome: `${found.matches.length} matches` }),
    (error) => ({ ms: performance.now() - started, outcome: error.code ?? error.message }),
  );
}

// The interactive reader: one 4 KiB page after another, at random line starts, checked byte for byte.
const reads = [];
const rand = prng(7);
const reader = (async () => {
  while (!done) {
    const index = Math.floor(rand() * ids.length);
    const offset = starts[index][Math.floor(rand() * starts[index].length)];
    const started = performance.now();
    try {
      const page = await store.read(ids[index], offset, PAGE);
      reads.push(performance.now() - started);
      const bytes = Buffer.from(page.text, 'utf8');
      const want = texts[index].subarray(offset, offset + bytes.length);
      if (!bytes.equals(want) || page.nextOffset !== offset + bytes.length || bytes.length === 0) wrong.push(`read ${index}@${offset}`);
    } catch (error) {
      reads.push(performance.now() - started);
      errors.push(`read: ${error.code ?? ''} ${error.message.slice(0, 120)}`);
    }
  }
})();

const searchTimes = await Promise.all(searches);
const retained = await Promise.all(retains);
const runawayResult = await runaway;
const backgroundMs = performance.now() - t0;
done = true;
await reader;
loop.disable();
// Every retained copy reads back whole.
for (let k = 0; k < retained.length; k++) {
  if (!retained[k].id) continue;
  const page = await store.read(retained[k].id, 0, PAGE);
  if (!fresh[k].subarray(0, Buffer.byteLength(page.text)).equals(Buffer.from(page.text))) wrong.push(`retained copy ${k}`);
}
await store.delete();

process.stdout.write(
  `${JSON.stringify({
    reads,
    backgroundMs,
    searchesDoneMs: Math.max(0, ...searchTimes),
    retainsDoneMs: Math.max(0, ...retained.map((r) => r.at)),
    searches: SEARCHES,
    retainedBytes: RETAINS * MiB,
    runaway: runawayResult,
    mainStallMs: loop.max / 1e6,
    errors,
    wrong,
  })}\n`,
);
