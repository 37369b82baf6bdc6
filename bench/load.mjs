// Reads under load, and the search engine's speed: `node bench/load.mjs` (after `npm run build`;
// also a step of `npm run bench`).
//
// 1. The load of issue 12, through `openWorkerStore` as the extension host uses it: four retained
//    1 MiB outputs; 200 regex searches, 24 retains of 1 MiB and (one variant) the runaway pattern
//    `(q+)+$x`, all issued at once, while one interactive reader reads 4 KiB pages one after
//    another. Each run is a fresh process (bench/lib/loadChild.mjs), against this build ("after")
//    and against the engine before issue 12 ("before": commit BEFORE_REV, extracted with
//    `git archive` and built once into the temp folder), interleaved. Reported: the reader's p50,
//    p99 and worst read over all runs, the background's time and throughput, the runaway's outcome,
//    errors and wrong answers (pages checked byte for byte, searches against a JavaScript oracle).
//    Goal (after, with the runaway): p99 ≤ 50 ms, worst ≤ 250 ms, no error, no wrong answer.
// 2. The engine on ordinary patterns: compileSearch + searchBytes over one 8 MiB copy against
//    `toString('utf8')` + the same pattern as a JavaScript RegExp (up to 51 matches), interleaved,
//    medians. Goal: ≤ 2× on each. The runaway pattern over the same copy with a line of q's: time only.
// Exits 0 regardless: a report. --strict exits 1 when a goal is missed.
//
// Options:
//   --strict          exit 1 when a goal is missed
//   --only=load,engine
//   --reps=N          runs per design and variant (default 2)
//   --engine-reps=N   repetitions per pattern (default 7)
//   --before=PATH     the "before" core.js to use instead of building BEFORE_REV
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeLogText } from './lib/logtext.mjs';
import { median, quantile, max, fmtMs, fmtRatio, table } from './lib/stats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.dirname(here);
const require = createRequire(import.meta.url);
/** The last commit before issue 12 changed search and the workers. */
const BEFORE_REV = 'fd15d6b55a52c722b04e4a52ce5d1a76d97f274e';

const argv = process.argv.slice(2);
const option = (name, fallback) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const strict = argv.includes('--strict');
const only = new Set(option('only', 'load,engine').split(','));
const REPS = Math.max(1, Number(option('reps', 2)));
const ENGINE_REPS = Math.max(3, Number(option('engine-reps', 7)));
const log = (...parts) => process.stderr.write(`${parts.join(' ')}\n`);

const afterCore = path.join(root, 'dist/core.js');
const rows = [];
const results = [];
const notes = [];
const loadBefore = loadavg()[0];
const work = await fs.mkdtemp(path.join(tmpdir(), 'tor-load-'));

try {
  if (only.has('load')) await benchLoad();
  if (only.has('engine')) await benchEngine();
} finally {
  await fs.rm(work, { recursive: true, force: true });
}

process.stdout.write(
  `\nTool Output Recall load bench — node ${process.version}, ${cpus().length} cores, load average ${loadBefore.toFixed(1)} → ${loadavg()[0].toFixed(1)}\n\n`,
);
process.stdout.write(`${table(['measure', 'before', 'after', 'goal (after)', 'ok'], rows)}\n`);
if (notes.length) process.stdout.write(`\n${notes.map((n) => `* ${n}`).join('\n')}\n`);
const missed = results.filter((r) => !r.pass);
process.stdout.write(
  `\n${results.length - missed.length}/${results.length} goals met${missed.length ? `; missed: ${missed.map((r) => r.name).join('; ')}` : ''}\n`,
);
process.exitCode = strict && missed.length ? 1 : 0;

function row(name, before, after, goal = '', pass) {
  rows.push([name, before, after, goal, pass === undefined ? '' : pass ? 'PASS' : 'FAIL']);
  if (pass !== undefined) results.push({ name, pass });
}

// ---------------------------------------------------------------------------------------------

/** core.js of BEFORE_REV, built once into the temp folder (git archive + this checkout's node_modules). */
async function beforeCore() {
  const given = option('before', undefined);
  if (given) return path.resolve(given);
  const dir = path.join(tmpdir(), `tor-load-before-${BEFORE_REV.slice(0, 12)}`);
  const core = path.join(dir, 'dist/core.js');
  if (existsSync(core) && existsSync(path.join(dir, 'dist/storeWorker.js'))) return core;
  log(`load: building the "before" engine (${BEFORE_REV.slice(0, 12)}) in ${dir}…`);
  await fs.rm(dir, { recursive: true, force: true });
  await fs.mkdir(dir, { recursive: true });
  const archive = execFileSync('git', ['-C', root, 'archive', '--format=tar', BEFORE_REV], { maxBuffer: 512 * 1024 * 1024 });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  await fs.symlink(path.join(root, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  return core;
}

function runChild(core, runaway) {
  return new Promise((resolve, reject) => {
    const dir = path.join(work, `run-${Math.random().toString(36).slice(2)}`);
    const child = spawn(process.execPath, [path.join(here, 'lib/loadChild.mjs'), core, dir, runaway ? '1' : '0'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`loadChild exited ${code}`));
      try {
        resolve(JSON.parse(out.trim().split('\n').pop()));
      } catch {
        reject(new Error(`loadChild printed no JSON: ${out.slice(0, 200)}`));
      }
    });
  });
}

async function benchLoad() {
  const cores = { before: await beforeCore(), after: afterCore };
  const runs = { before: { 0: [], 1: [] }, after: { 0: [], 1: [] } };
  for (let rep = 0; rep < REPS; rep++) {
    for (const runaway of [1, 0]) {
      // Alternate which design runs first, so neither always gets the quieter moment.
      const order = rep % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
      for (const design of order) {
        const result = await runChild(cores[design], runaway === 1);
        runs[design][runaway].push(result);
        log(
          `load rep ${rep + 1}/${REPS} ${design.padEnd(6)} runaway=${runaway}: ${result.reads.length} reads, p99 ${fmtMs(quantile(result.reads, 0.99))}, worst ${fmtMs(max(result.reads))}, background ${fmtMs(result.backgroundMs)}`,
        );
      }
    }
  }
  for (const runaway of [1, 0]) {
    const label = runaway ? 'with the runaway' : 'no runaway';
    const stats = Object.fromEntries(
      Object.entries(runs).map(([design, byVariant]) => {
        const list = byVariant[runaway];
        const reads = list.flatMap((r) => r.reads);
        return [
          design,
          {
            reads,
            p50: quantile(reads, 0.5),
            p99: quantile(reads, 0.99),
            worst: max(reads),
            background: median(list.map((r) => r.backgroundMs)),
            searchRate: median(list.map((r) => r.searches / (r.searchesDoneMs / 1000))),
            retainRate: median(list.map((r) => r.retainedBytes / 1048576 / (r.retainsDoneMs / 1000))),
            errors: list.flatMap((r) => r.errors),
            wrong: list.flatMap((r) => r.wrong),
            runaway: list.map((r) => r.runaway && `${r.runaway.outcome} in ${fmtMs(r.runaway.ms)}`).filter(Boolean),
            stall: max(list.map((r) => r.mainStallMs)),
          },
        ];
      }),
    );
    const { before, after } = stats;
    const goal = runaway === 1;
    row(`${label}: reader p50`, fmtMs(before.p50), fmtMs(after.p50));
    row(`${label}: reader p99`, fmtMs(before.p99), fmtMs(after.p99), goal ? '≤ 50 ms' : '', goal ? after.p99 <= 50 : undefined);
    row(`${label}: reader worst`, fmtMs(before.worst), fmtMs(after.worst), goal ? '≤ 250 ms' : '', goal ? after.worst <= 250 : undefined);
    row(`${label}: reads done`, String(before.reads.length), String(after.reads.length));
    row(`${label}: background done in (median)`, fmtMs(before.background), fmtMs(after.background));
    row(`${label}: searches/s (median)`, before.searchRate.toFixed(1), after.searchRate.toFixed(1));
    row(`${label}: retained MiB/s (median)`, before.retainRate.toFixed(1), after.retainRate.toFixed(1));
    if (goal) row(`${label}: the runaway search`, before.runaway.join('; '), after.runaway.join('; '));
    row(`${label}: errors`, String(before.errors.length), String(after.errors.length), '0', after.errors.length === 0);
    row(`${label}: wrong answers`, String(before.wrong.length), String(after.wrong.length), '0', after.wrong.length === 0);
    row(`${label}: reader thread's own worst stall`, fmtMs(before.stall), fmtMs(after.stall));
    for (const [design, s] of Object.entries(stats))
      for (const text of [...new Set([...s.errors, ...s.wrong])].slice(0, 3)) notes.push(`${label}, ${design}: ${text}`);
  }
  notes.push(
    `load: ${REPS} run(s) per design and variant, each a fresh process; before = ${BEFORE_REV.slice(0, 12)} (searches on the store worker with JavaScript's RegExp, a runaway stopped by restarting the worker at its 10 s limit). ` +
      `Reader figures pool every read of those runs. "Own worst stall" is the reader thread's longest event-loop delay: a slow read that is not one is the store's (or the machine's: compare with the load average).`,
  );
}

// ---------------------------------------------------------------------------------------------

async function benchEngine() {
  const core = require(afterCore);
  const MiB = 1024 * 1024;
  const RARE = 'settlement_ref=ZX9-7F3A-END';
  const bytes = makeLogText(8 * MiB, 100, [
    { at: 0.5, line: 'q'.repeat(40) },
    { at: 0.985, line: `2024-05-18T23:59:58.120Z INFO  [billing] closing batch 9931 ${RARE} total=48213.07` },
  ]);
  const patterns = [
    [RARE, {}],
    [RARE, { caseSensitive: true }],
    ['Время ожидания', {}],
    ['ÜBERPRÜFUNG', {}],
    ['ERROR .*ETIMEDOUT', { regex: true }],
    ['bytes=\\d{6} req=', { regex: true, caseSensitive: true }],
    ['p99=\\d+\\.\\d+ms', { regex: true }],
    ['^\\S+ ERROR \\[auth\\]', { regex: true, caseSensitive: true }],
    ['user=nobody\\d', { regex: true }],
    ['ERROR|FATAL', { regex: true, caseSensitive: true }],
    ['\\b[0-9a-f]{8}\\b', { regex: true }],
    // The slow kinds, for the record: no literal part to scan for (RE2's DFA reads every line), and a
    // pattern that names a line break (RE2's NFA over the whole text).
    ['[0-9]{3}-[0-9]{4}-[0-9]{4}', { regex: true }, 'info'],
    ['ETIMEDOUT\\n\\s+at ', { regex: true }, 'info'],
  ];
  const copy = Buffer.from(bytes);
  const time = (fn) => {
    const started = performance.now();
    fn();
    return performance.now() - started;
  };
  for (const [pattern, options, info] of patterns) {
    const source = options.regex ? pattern : pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const baseline = () => {
      const regex = new RegExp(source, `gm${options.caseSensitive ? '' : 'i'}`);
      const text = copy.toString('utf8');
      let count = 0;
      for (let m = regex.exec(text); m && count <= 50; m = regex.exec(text)) count++;
      return count;
    };
    // What the search worker does with a copy it was sent (a fresh buffer each time: nothing cached
    // from the last run): compile, then search the bytes.
    const subject = (fresh) => core.searchBytes(fresh, core.compileSearch('bench', pattern, options));
    const ours = [];
    const theirs = [];
    for (let i = 0; i < ENGINE_REPS + 2; i++) {
      const fresh = Buffer.from(copy);
      const a = time(() => subject(fresh));
      const b = time(baseline);
      if (i >= 2) (ours.push(a), theirs.push(b)); // two warm-ups
    }
    const ratio = median(ours) / median(theirs);
    const name = `engine 8 MiB: ${JSON.stringify(pattern)} ${JSON.stringify(options)}`;
    const after = `${fmtMs(median(ours))} (${fmtRatio(ratio)}×)`;
    if (info) row(`${name} (info)`, fmtMs(median(theirs)), after);
    else row(name, fmtMs(median(theirs)), after, 'ratio ≤ 2', ratio <= 2);
  }
  const runaway = [];
  for (let i = 0; i < 3; i++) {
    const fresh = Buffer.from(copy);
    runaway.push(time(() => core.searchBytes(fresh, core.compileSearch('bench', '(q+)+$x', { regex: true }))));
  }
  row('engine 8 MiB: "(q+)+$x" (runaway in JavaScript)', 'never ends', fmtMs(median(runaway)));
  notes.push(
    `engine: before = toString('utf8') + the same pattern as a JavaScript RegExp (gm, i unless caseSensitive), up to 51 matches; after = compileSearch + searchBytes (what the search worker runs on a copy it was sent), maxMatches 50; both over the same Buffer in memory (fetching a copy from the store is measured by run.mjs's search row). ${ENGINE_REPS} interleaved runs after two warm-ups, medians; the ratio after/before is in brackets.`,
  );
}
