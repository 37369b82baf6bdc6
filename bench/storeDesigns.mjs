// Store designs compared on one bench, in one run: `node bench/storeDesigns.mjs` (after `npm run build`;
// part of `npm run bench`). Issue 19: the store worker must not hold a whole session in memory, and a
// checkpoint must write only what changed. Three subjects:
//   today  the store of this build (dist/core.js: one sql.js database in memory, exported whole);
//   A      immutable content segments (bench/lib/storeDesigns/segments.mjs): a small index database
//          exported whole, each checkpoint's new chunks in new segment files (sql.js databases written
//          once), opened on demand in a 4-entry LRU (segments of 1 MiB; TOR_BENCH_SEGMENT_KIB);
//   B      one SQLite file paged in place through a node:fs VFS (bench/lib/storeDesigns/inPlace.mjs,
//          the npm package node-sqlite3-wasm; `TOR_BENCH_NSW=<folder holding node_modules/node-sqlite3-wasm>`
//          or installed here; B is skipped when it is absent);
// beside a raw write + fsync of the same bytes. A and B share the journal, the chunking and deflate
// (common.mjs), so only the database layout differs.
//
// Prints one table with a PASS/MISS per goal beside today's figure:
//   1. peak RSS of a fresh process whose store worker holds a full 64 MiB session of random bytes, and
//      of one that reopens it and reads (goals ≤ 160 and ≤ 128 MiB);
//   2. the checkpoint after one 8 MiB retain into 8 and into 64 MiB of session, text and random:
//      encode, write, total, against writeFile + fsync of the new chunks (goal: write ≤ 2× raw, at 8 and
//      at 64 MiB: a flat line);
//   3. retain, page read, whole-copy fetch (what a search reads) and load (open) on the 64 MiB session
//      (goal: no worse than today: ≤ 1.25× today's median, the noise of this shared machine).
// Options: --reps=N (≥3, default 3), --only=rss,checkpoint,reads, --strict (exit 1 on a miss).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeLogText } from './lib/logtext.mjs';
import { fmtMiB, fmtMs, fmtRatio, median, msSince, quantile, table } from './lib/stats.mjs';
import { encodeChunks } from './lib/storeDesigns/common.mjs';
import { DESIGNS, openDesign } from './lib/storeDesigns/open.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const core = require(process.env.TOR_BENCH_CORE ?? '../dist/core.js');
const argv = process.argv.slice(2);
const option = (name, fallback) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const REPS = Math.max(3, Number(option('reps', 3)) || 3);
const only = new Set(option('only', 'rss,checkpoint,reads').split(','));
const MiB = 1048576;
const COPY = 8 * MiB;
const log = (...parts) => process.stderr.write(`${parts.join(' ')}\n`);
const designs = Object.keys(DESIGNS).filter((d) => DESIGNS[d].available());
const SUBJECTS = ['today', ...designs];
const LABEL = { today: 'today', segments: 'A', inPlace: 'B' };
const KINDS = { text: (seed) => makeLogText(COPY, seed), random: () => randomBytes(COPY) };

const rows = [];
const notes = [];
const goals = [];
/** One row: a figure per subject; `goal(value) → boolean` judged for each design (not today). */
function row(name, values, { fmt = fmtMs, raw, goal, target = '' } = {}) {
  const cells = SUBJECTS.map((s) => (values[s] === undefined ? '-' : fmt(values[s])));
  const verdicts = designs.map((d) => {
    if (!goal || values[d] === undefined) return '';
    const pass = goal(values[d], d);
    goals.push({ name: `${name} (${LABEL[d]})`, pass });
    return `${LABEL[d]} ${pass ? 'PASS' : 'MISS'}`;
  });
  rows.push([name, ...cells, raw === undefined ? '-' : fmt(raw), target, verdicts.filter(Boolean).join(', ')]);
}

const root = await fs.mkdtemp(path.join(tmpdir(), 'tor-bench-designs-'));
const loadBefore = loadavg();
const started = process.hrtime.bigint();
try {
  if (only.has('rss')) await benchRss();
  if (only.has('checkpoint')) await benchCheckpoint();
  if (only.has('reads')) await benchReads();
} finally {
  await fs.rm(root, { recursive: true, force: true });
}
const header = [
  'benchmark',
  ...SUBJECTS.map((s) => (s === 'today' ? 'today' : `${LABEL[s]} (${s})`)),
  'raw write+fsync',
  'goal',
  'verdict',
];
process.stdout.write(
  `\nStore designs — node ${process.version}, ${cpus().length} cores, load average ${loadBefore.map((l) => l.toFixed(1)).join(' ')} → ` +
    `${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}, ${REPS} runs each (medians), ${(msSince(started) / 1000).toFixed(0)} s` +
    `${designs.includes('inPlace') ? '' : '; B skipped: node-sqlite3-wasm not found (TOR_BENCH_NSW)'}\n\n${table(header, rows)}\n`,
);
if (notes.length) process.stdout.write(`\n${notes.map((n) => `* ${n}`).join('\n')}\n`);
const missed = goals.filter((g) => !g.pass);
process.stdout.write(
  `\n${goals.length - missed.length}/${goals.length} goals met${missed.length ? `; missed: ${missed.map((g) => g.name).join('; ')}` : ''}\n`,
);
process.exitCode = argv.includes('--strict') && missed.length ? 1 : 0;

// ---------------------------------------------------------------------------------------------
function child(args, execArgv = []) {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [...execArgv, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (d) => (out += d));
    proc.on('error', reject);
    proc.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${args.join(' ')} exited ${code}`));
      resolve(JSON.parse(out.trim().split('\n').pop()));
    });
  });
}

async function benchRss() {
  // Variants: each subject as it runs, and A/B once more with a GC after each checkpoint (--expose-gc):
  // the difference is garbage V8 had not collected yet, not memory the design holds.
  const variants = [...SUBJECTS.map((s) => ({ s, gc: false })), ...designs.map((s) => ({ s, gc: true }))];
  const samples = new Map(variants.map((v) => [`${v.s}${v.gc}`, { empty: [], full: [], resume: [] }]));
  for (let rep = 0; rep < REPS; rep++) {
    for (const { s, gc } of rep % 2 ? [...variants].reverse() : variants) {
      const dir = path.join(root, `rss-${s}-${gc}-${rep}`);
      await fs.mkdir(dir, { recursive: true });
      for (const mode of gc ? ['full', 'resume'] : ['empty', 'full', 'resume']) {
        const result =
          s === 'today'
            ? await child([path.join(here, 'lib/storeRssChild.mjs'), mode, dir, mode === 'empty' ? 'empty' : 'full64'])
            : await child(
                [
                  path.join(here, 'lib/storeDesigns/rssChild.mjs'),
                  s,
                  mode,
                  path.join(dir, `${mode === 'empty' ? 'empty' : 'full'}.sqlite`),
                ],
                gc ? ['--expose-gc'] : [],
              );
        if (mode !== 'empty' && result.retainedBytes !== 64 * MiB) throw new Error(`${s} ${mode}: ${JSON.stringify(result)}`);
        samples.get(`${s}${gc}`)[mode].push(result.hwmKiB * 1024);
        log(`rss ${rep + 1}/${REPS} ${s}${gc ? '+gc' : ''} ${mode}: ${fmtMiB(result.hwmKiB * 1024)}`);
      }
      await fs.rm(dir, { recursive: true, force: true });
    }
  }
  const of = (mode, gc = false) =>
    Object.fromEntries(
      SUBJECTS.map((s) => [s, samples.get(`${s}${gc}`)?.[mode].length ? median(samples.get(`${s}${gc}`)[mode]) : undefined]),
    );
  row('worker RSS, empty session', of('empty'), { fmt: fmtMiB });
  row('worker RSS, full 64 MiB random', of('full'), { fmt: fmtMiB, target: '≤ 160 MiB', goal: (v) => v <= 160 * MiB });
  row('  … with a GC after each checkpoint', of('full', true), { fmt: fmtMiB });
  row('worker RSS, reopened + reads', of('resume'), { fmt: fmtMiB, target: '≤ 128 MiB', goal: (v) => v <= 128 * MiB });
  row('  … after a GC-ed full run', of('resume', true), { fmt: fmtMiB });
  notes.push(
    'RSS: VmHWM of a fresh process, store in a worker thread (today: bench/lib/storeRssChild.mjs through openWorkerStore; ' +
      'A, B: bench/lib/storeDesigns/rssChild.mjs). full: 8 × randomBytes(8 MiB) retained and checkpointed, pages and two whole ' +
      'copies read; reopened: a fresh process opens that session and reads the same way.',
  );
}

/** A session of `copies` × 8 MiB of `kind`, checkpointed; returns the files to copy as a template. */
async function buildTemplate(subject, kind, copies, dir) {
  if (subject === 'today') {
    const store = await core.openStore({ dir, sessionId: 'tpl', quotaBytes: 128 * MiB, copyBytes: COPY, checkpoints: 'manual' });
    for (let i = 0; i < copies; i++) await store.retain(KINDS[kind](i + 1), { tool: 'bench' });
    await store.close();
    // Every file of the session (the store as built keeps its content in segments beside the index).
    return core.sessionFiles(core.sessionFile(dir, 'tpl'));
  }
  const store = await openDesign(subject, path.join(dir, 'tpl.sqlite'));
  for (let i = 0; i < copies; i++) {
    store.retain(`out_${String(i).padStart(24, '0')}`, KINDS[kind](i + 1));
    store.checkpoint();
  }
  const files = store.sessionFiles();
  store.close();
  return files;
}

async function copyTemplate(files, dir) {
  await fs.rm(dir, { recursive: true, force: true });
  await fs.mkdir(dir, { recursive: true });
  for (const file of files) await fs.copyFile(file, path.join(dir, path.basename(file).replace(/^tpl/, 'run')));
  return path.join(dir, 'run.sqlite');
}

async function rawWrite(dir, buffer) {
  const file = path.join(dir, 'raw.bin');
  const t = process.hrtime.bigint();
  const handle = await fs.open(file, 'w', 0o600);
  await handle.writeFile(buffer);
  await handle.sync();
  await handle.close();
  const ms = msSince(t);
  await fs.rm(file);
  return ms;
}

async function benchCheckpoint() {
  const cases = [];
  for (const kind of Object.keys(KINDS)) {
    const incoming = KINDS[kind](1000);
    const newChunks = encodeChunks(incoming).reduce((sum, c) => sum + c.data.length, 0);
    for (const copies of [1, 8]) cases.push({ kind, copies, incoming, raw: randomBytes(newChunks), templates: {}, ms: {}, rawMs: [] });
  }
  for (const subject of SUBJECTS)
    for (const c of cases) {
      const dir = path.join(root, `tpl-${subject}-${c.kind}-${c.copies}`);
      await fs.mkdir(dir, { recursive: true });
      log(`checkpoint: building ${subject} ${c.kind} ${c.copies * 8} MiB`);
      c.templates[subject] = await buildTemplate(subject, c.kind, c.copies, dir);
      c.ms[subject] = { encode: [], write: [], total: [] };
    }
  const runDir = path.join(root, 'run');
  for (let rep = 0; rep < REPS; rep++)
    for (const c of cases)
      for (const subject of rep % 2 ? [...SUBJECTS].reverse() : SUBJECTS) {
        const file = await copyTemplate(c.templates[subject], runDir);
        if (subject === 'today') {
          const store = await core.openStore({
            dir: runDir,
            sessionId: 'run',
            quotaBytes: 128 * MiB,
            copyBytes: COPY,
            checkpoints: 'manual',
          });
          await store.retain(c.incoming, { tool: 'bench' });
          const t = process.hrtime.bigint();
          await store.flush();
          c.ms.today.total.push(msSince(t));
          await store.close();
        } else {
          const store = await openDesign(subject, file);
          store.retain('out_incoming00000000000000', c.incoming);
          const t = process.hrtime.bigint();
          const encoded = store.encodePending();
          const t2 = process.hrtime.bigint();
          store.write(encoded);
          c.ms[subject].encode.push(msSince(t) - msSince(t2));
          c.ms[subject].write.push(msSince(t2));
          c.ms[subject].total.push(msSince(t));
          store.close();
        }
        if (subject === SUBJECTS[0]) c.rawMs.push(await rawWrite(runDir, c.raw));
        log(`checkpoint ${rep + 1}/${REPS} ${c.kind} ${c.copies * 8} MiB ${subject}: ${fmtMs(c.ms[subject].total.at(-1))}`);
      }
  const flat = {};
  for (const c of cases) {
    const raw = median(c.rawMs);
    const at = `${c.kind}, +8 MiB into ${c.copies * 8} MiB`;
    const pick = (part) => Object.fromEntries(SUBJECTS.map((s) => [s, c.ms[s][part].length ? median(c.ms[s][part]) : undefined]));
    row(`checkpoint ${at}: total`, pick('total'), { raw });
    row(`  … encode (deflate the new copy)`, pick('encode'));
    row(`  … write (new chunks → durable)`, pick('write'), { raw, target: '≤ 2× raw', goal: (v) => v <= 2 * raw });
    for (const s of designs) (flat[`${s}-${c.kind}`] ??= {})[c.copies] = median(c.ms[s].write) / raw;
    (flat[`today-${c.kind}`] ??= {})[c.copies] = median(c.ms.today.total) / raw;
  }
  for (const kind of Object.keys(KINDS))
    row(
      `checkpoint ${kind}: cost at 64 ÷ at 8 MiB (×raw)`,
      Object.fromEntries(SUBJECTS.map((s) => [s, flat[`${s}-${kind}`][8] / flat[`${s}-${kind}`][1]])),
      {
        fmt: fmtRatio,
        target: '≤ 1.5 (flat)',
        goal: (v) => v <= 1.5,
      },
    );
  notes.push(
    `checkpoint: a copy of a template session (built by retaining and checkpointing N copies), opened, one more 8 MiB retained ` +
      `(untimed), then the checkpoint timed. today: flush() (deflate + export of the whole database + atomic write). A, B: encode ` +
      `(deflate level 1; after two chunks that do not pay, only every 8th is tried) then write (A: new segment files and the index, ` +
      `each temp + fsync + rename + folder fsync; B: one transaction, rollback journal, synchronous=FULL). raw: open + writeFile + ` +
      `fsync + close of as many bytes as the new copy's encoded chunks (text ${fmtMiB(cases[0].raw.length)}, random ` +
      `${fmtMiB(cases[2].raw.length)}), once per case and run. The flat line: (write ÷ raw at 64 MiB) ÷ (write ÷ raw at 8 MiB); today: total.`,
  );
}

async function benchReads() {
  const values = { retain: {}, page: {}, pageP95: {}, sequential: {}, fetch: {}, load: {} };
  const dir = path.join(root, 'reads');
  for (const subject of SUBJECTS) {
    await fs.mkdir(path.join(dir, 'tpl'), { recursive: true });
    log(`reads: building ${subject}`);
    const files = await buildTemplate(subject, 'random', 8, path.join(dir, 'tpl'));
    const loads = [];
    const pages = [];
    const fetches = [];
    const retains = [];
    const sequential = [];
    for (let rep = 0; rep < REPS; rep++) {
      const file = await copyTemplate(files, path.join(dir, 'run'));
      const t = process.hrtime.bigint();
      const today = subject === 'today';
      const store = today
        ? await core.openStore({
            dir: path.join(dir, 'run'),
            sessionId: 'run',
            quotaBytes: 128 * MiB,
            copyBytes: COPY,
            checkpoints: 'manual',
          })
        : await openDesign(subject, file);
      const ids = today ? (await store.list()).map((o) => o.outputId) : store.list().map((o) => o.id);
      loads.push(msSince(t));
      // Pages at random offsets across the copies (cold and warm alike), then one whole copy in 1 MiB slices.
      for (let i = 0; i < 64; i++) {
        const id = ids[i % ids.length];
        const offset = Math.floor(Math.random() * (COPY - 4096));
        const tp = process.hrtime.bigint();
        if (today) await store.slice(id, offset, offset + 4096);
        else store.bytes(id, offset, offset + 4096);
        pages.push(msSince(tp));
      }
      const tf = process.hrtime.bigint();
      for (let at = 0; at < COPY; at += MiB) {
        if (today) await store.slice(ids[rep % ids.length], at, at + MiB);
        else store.bytes(ids[rep % ids.length], at, at + MiB);
      }
      fetches.push(msSince(tf));
      // The pager's pattern: the next pages of one copy from a random start.
      let offset = Math.floor(Math.random() * (COPY / 2));
      for (let i = 0; i < 32; i++, offset += 4096) {
        const tp = process.hrtime.bigint();
        if (today) await store.slice(ids[(rep + 1) % ids.length], offset, offset + 4096);
        else store.bytes(ids[(rep + 1) % ids.length], offset, offset + 4096);
        sequential.push(msSince(tp));
      }
      const content = randomBytes(COPY);
      const tr = process.hrtime.bigint();
      if (today) await store.retain(content, { tool: 'bench' });
      else store.retain(`out_retained${String(rep).padStart(14, '0')}`, content);
      retains.push(msSince(tr));
      if (today) await store.close();
      else store.close();
    }
    values.load[subject] = median(loads);
    values.page[subject] = median(pages);
    values.pageP95[subject] = quantile(pages, 0.95);
    values.sequential[subject] = median(sequential);
    values.fetch[subject] = median(fetches);
    values.retain[subject] = median(retains);
    await fs.rm(dir, { recursive: true, force: true });
  }
  const noWorse = (name) => (v) => v <= 1.25 * values[name].today;
  row('load: open the 64 MiB session + list', values.load, { target: '≤ today', goal: noWorse('load') });
  row('page read 4 KiB, next pages of a copy, p50', values.sequential, { target: '≤ today', goal: noWorse('sequential') });
  row('page read 4 KiB, random copy and offset, p50', values.page, { target: '≤ today', goal: noWorse('page') });
  row('  … p95', values.pageP95, {});
  row('whole 8 MiB copy in 1 MiB slices (search)', values.fetch, { target: '≤ today', goal: noWorse('fetch') });
  row('retain 8 MiB (journal + fsync)', values.retain, { target: '≤ today', goal: noWorse('retain') });
  notes.push(
    `reads: on the 64 MiB random session, in this process, ${REPS} opens; 64 pages of 4 KiB at random offsets of the 8 copies per open, then 32 consecutive pages of one copy from a random start (today: ` +
      `store.slice, A/B: the design's bytes()); one whole copy fetched in 1 MiB slices (what a search reads); one 8 MiB retain ` +
      `(journal append + fsync; today also inserts the row). "≤ today": at most 1.25× today's median (this machine is shared).`,
  );
}
