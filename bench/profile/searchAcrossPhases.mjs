// Where a search across outputs spends its time (issue 38 §3): the search worker's scan
// (workers/sessionScan.ts `scanSessions`) run on this thread over bench/searchAcross.mjs's cached
// fixture, every page with the cursor as the catalog would pass it, with and without the chunks'
// trigram masks. Run it under `--cpu-prof` to see the functions:
//   node --import tsx bench/profile/searchAcrossPhases.mjs [pattern] [--any-case] [--regex] [--per-page=1000] [--no-masks] [--in-worker]
// It needs the fixture (run bench/searchAcross.mjs once; TOR_BENCH_ACROSS_DIR to point elsewhere).
import { promises as fs } from 'node:fs';
import { Worker, isMainThread } from 'node:worker_threads';
import { tmpdir } from 'node:os';
import path from 'node:path';

const argv = process.argv.slice(2);
// --in-worker: run the scan on a worker thread, as the search worker does (a worker collects its garbage
// through its inspector session: workers/collectGarbage.ts); under --cpu-prof the worker writes its own profile.
if (isMainThread && argv.includes('--in-worker')) {
  const worker = new Worker(new URL(import.meta.url), { argv, execArgv: process.execArgv.filter((a) => a !== '--import' && a !== 'tsx') });
  await new Promise((resolve, reject) => worker.on('exit', resolve).on('error', reject));
  process.exit(0);
}
const option = (name, fallback) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
// A worker does not inherit the main thread's tsx hooks: it registers its own.
if (!isMainThread) {
  (await import('tsx/cjs/api')).register();
  (await import('tsx/esm/api')).register();
}
/** A source module's exports (through tsx's CommonJS hook they may sit under `default`). */
const load = async (file) => {
  const module = await import(file);
  return module.default && !Object.keys(module).some((key) => key !== 'default' && key !== 'module.exports') ? module.default : module;
};
const { compileSearch } = await load('../../src/core/search/index.ts');
const { listSessions } = await load('../../src/core/store/sessionFiles.ts');
const { scanSessions, scanCounts } = await load('../../src/core/workers/sessionScan.ts');

const pattern = argv.find((a) => !a.startsWith('--')) ?? 'timeout';
const perPage = Number(option('per-page', 1000));
const useMasks = !argv.includes('--no-masks');

const dir =
  process.env.TOR_BENCH_ACROSS_DIR ??
  path.join(tmpdir(), (await fs.readdir(tmpdir())).find((name) => name.startsWith('tor-bench-across-')) ?? 'none');
const stores = path.join(dir, 'stores');
const sessions = (await listSessions(stores)).map(({ sessionId, file }) => ({ sessionId, file }));
const search = compileSearch('', pattern, {
  regex: argv.includes('--regex'),
  caseSensitive: !argv.includes('--any-case'),
  maxMatches: perPage,
});
const control = { cancelled: () => false, deadline: Infinity, timeoutMs: 0 };

const cpu = process.cpuUsage();
const started = performance.now();
let after;
let pages = 0;
let matches = 0;
const pageMs = [];
do {
  const t = performance.now();
  const outcome = await scanSessions(
    { kind: 'sessions', sessions, perOutput: perPage, pageMs: 5000, ...(after ? { after } : {}) },
    search,
    control,
    useMasks,
  );
  pageMs.push(performance.now() - t);
  pages++;
  matches += outcome.across.groups.reduce((sum, group) => sum + group.matches.length, 0);
  after = outcome.across.next;
} while (after);
const used = process.cpuUsage(cpu);
const sorted = [...pageMs].sort((a, b) => a - b);
console.log(
  JSON.stringify({
    pattern,
    useMasks,
    sessions: sessions.length,
    pages,
    matches,
    ms: Math.round(performance.now() - started),
    cpuMs: Math.round((used.user + used.system) / 1000),
    pageMsMedian: Math.round(sorted[Math.floor(sorted.length / 2)]),
    scanCounts,
  }),
);
