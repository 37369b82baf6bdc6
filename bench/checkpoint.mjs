// Checkpoint cost and store-worker memory: `node bench/checkpoint.mjs` (after `npm run build`; also
// the last step of `npm run bench`).
//
// Prints ONE table, in the style of bench/run.mjs:
//   1. the checkpoint (flush) after one 8 MiB retain into sessions already holding 8, 32 and 64 MiB,
//      of log-like text and of random bytes: time (median and every run), bytes the process wrote
//      during it (/proc/self/io), the session file after, against a raw writeFile + fsync of a
//      buffer as large as that file, measured interleaved in the same run;
//   2. the peak RSS of a fresh process whose store worker holds a full 64 MiB session of random bytes
//      (and of one that resumes it), against one that only opens an empty worker store;
// then one line on whether the checkpoint's cost follows the session's size or what changed.
// Exits 0 regardless: a report, not a gate. --strict exits 1 when a goal is missed.
//
// Options:
//   --strict                 exit 1 when a goal is missed
//   --only=checkpoint,rss    run a subset
//   --reps=N                 repetitions of every measurement (≥3, default 3)
//   --against=PATH           the RSS section also runs the children on another build's core.js (with its
//                            storeWorker.js beside it), interleaved with this one's in the same run, and
//                            prints its rows under this build's (e.g. a build of the commit before a change)
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import { promises as fs } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeLogText } from './lib/logtext.mjs';
import { median, max, msSince, fmtMs, fmtMiB, fmtRatio, table } from './lib/stats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
// TOR_BENCH_CORE=/path/to/core.js (absolute) measures another build of the engine; the RSS children
// use the same one, and its storeWorker.js beside it.
const core = require(process.env.TOR_BENCH_CORE ?? '../dist/core.js');

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const hit = argv.find((a) => a.startsWith(`--${name}=`));
  return hit ? hit.slice(name.length + 3) : fallback;
};
const strict = argv.includes('--strict');
const only = new Set(option('only', 'checkpoint,rss').split(','));
const REPS = Math.max(3, Number(option('reps', 3)) || 3);
const AGAINST = option('against', undefined);

const MiB = 1048576;
const COPY = 8 * MiB;
const QUOTA = 128 * MiB;
const SESSION_COPIES = [1, 4, 8]; // 8, 32 and 64 MiB already in the session
const RSS_GOAL = 160 * MiB;
const RSS_REOPENED_GOAL = 128 * MiB;
/**
 * glibc's allocator keeps memory a process freed unless a block was at least its mmap threshold, which
 * starts at 128 KiB and rises to the size of any larger block freed (up to 32 MiB): after the first
 * 8 MiB copy is freed, the next ones come from its heaps and stay there. Pinning the threshold (an
 * environment variable read when the process starts) shows how much of the peak that is.
 */
const GLIBC = Boolean(process.report?.getReport?.().header?.glibcVersionRuntime);
const PINNED_MMAP = { MALLOC_MMAP_THRESHOLD_: '32768' };
/**
 * Today's figures, for the goals: the store before issue 19 (one sql.js database exported whole, at
 * e77dafe), measured by bench/storeDesigns.mjs in one run beside the designs (docs/decisions.md,
 * "issue 19: the store's layout"; the checkpoint totals and, for the flat line, today's cost at
 * 64 ÷ at 8 MiB in raws).
 */
const TODAY = {
  checkpoint: { 'text-1': '111 ms', 'text-8': '294 ms', 'random-1': '633 ms', 'random-8': '4302 ms' },
  flat: { text: '1.41', random: '4.82' },
  rss: { full: '402 MiB', resume: '315 MiB' },
};
// The two kinds of content: compressible (deflated about 4:1) and incompressible (stored raw).
const KINDS = {
  text: { label: 'log-like text', make: (seed) => makeLogText(COPY, seed) },
  random: { label: 'random bytes', make: () => randomBytes(COPY) },
};

// Rows and notes by section, printed checkpoint first whatever order the sections ran in.
const sections = { checkpoint: { rows: [], notes: [] }, rss: { rows: [], notes: [] } };
let rows = sections.checkpoint.rows;
let notes = sections.checkpoint.notes;
const results = [];
const log = (...parts) => process.stderr.write(`${parts.join(' ')}\n`);

/** A table row. `pass` undefined means informational (no goal). */
function row(name, cells = {}) {
  const {
    today = '-',
    subject = '-',
    runs = '-',
    baseline = '-',
    ratio = '-',
    wchar = '-',
    writeBytes = '-',
    file = '-',
    target = 'info',
    pass,
  } = cells;
  rows.push([
    name,
    today,
    subject,
    runs,
    baseline,
    ratio,
    wchar,
    writeBytes,
    file,
    target,
    pass === undefined ? '' : pass ? 'PASS' : 'MISS',
  ]);
  if (pass !== undefined) results.push({ name, pass });
}

/** The process's I/O counters (Linux): wchar = bytes passed to write syscalls, write_bytes = bytes sent to storage. */
function processIo() {
  try {
    const io = Object.fromEntries(
      readFileSync('/proc/self/io', 'utf8')
        .trim()
        .split('\n')
        .map((line) => line.split(':').map((part) => part.trim())),
    );
    return { wchar: Number(io.wchar), writeBytes: Number(io.write_bytes) };
  } catch {
    return { wchar: NaN, writeBytes: NaN };
  }
}

/** The file system type holding `dir` (write_bytes is 0 on tmpfs, and fsync is free there). */
function fsType(dir) {
  try {
    const real = realpathSync(dir);
    let best = { at: '', type: 'unknown' };
    for (const line of readFileSync('/proc/self/mounts', 'utf8').split('\n')) {
      const [, at, type] = line.split(' ');
      if (at && (real === at || real.startsWith(at === '/' ? '/' : `${at}/`)) && at.length >= best.at.length) best = { at, type };
    }
    return best.type;
  } catch {
    return 'unknown';
  }
}

const loadBefore = loadavg()[0];
const benchRoot = await fs.mkdtemp(path.join(tmpdir(), 'tor-bench-checkpoint-'));
const started = process.hrtime.bigint();
let growthLine = '';
/** A section that throws is reported as a failed row; the other still runs. */
async function section(name, run) {
  ({ rows, notes } = sections[name]);
  try {
    await run();
  } catch (error) {
    log(`${name}: ${error?.stack ?? error}`);
    row(`${name}: ERROR ${String(error?.message ?? error).slice(0, 60)}`, { target: 'runs', pass: false });
  }
}
try {
  // RSS first, while this process is small: a child's maxRSS counts its parent's RSS at spawn time.
  if (only.has('rss')) await section('rss', benchWorkerRss);
  if (only.has('checkpoint')) await section('checkpoint', benchCheckpoint);
} finally {
  await fs.rm(benchRoot, { recursive: true, force: true });
}

const header = [
  'benchmark',
  'today (e77dafe)',
  'subject p50',
  'runs',
  'baseline p50',
  'ratio',
  'wchar p50',
  'write_bytes p50',
  'file after',
  'target',
  'ok',
];
process.stdout.write(
  `\nTool Output Recall checkpoint bench — node ${process.version}, ${process.platform}/${process.arch}, ${cpus().length} cores, ` +
    `load average ${loadBefore.toFixed(1)} → ${loadavg()[0].toFixed(1)}, total ${(msSince(started) / 1000).toFixed(0)} s, ` +
    `session folder on ${fsType(tmpdir())}\n\n`,
);
const allNotes = [...sections.checkpoint.notes, ...sections.rss.notes];
process.stdout.write(`${table(header, [...sections.checkpoint.rows, ...sections.rss.rows])}\n`);
if (growthLine) process.stdout.write(`\n${growthLine}\n`);
if (allNotes.length) process.stdout.write(`\n${allNotes.map((n) => `* ${n}`).join('\n')}\n`);
const missed = results.filter((r) => !r.pass);
process.stdout.write(
  `\n${results.length - missed.length}/${results.length} goals met${missed.length ? `; missed: ${missed.map((r) => r.name.trim()).join('; ')}` : ''}\n`,
);
process.exitCode = strict && missed.length ? 1 : 0;

// ---------------------------------------------------------------------------------------------
// 1. The checkpoint after one 8 MiB retain, by session size and kind of content.

function storeOptions(dir, sessionId) {
  return { dir, sessionId, quotaBytes: QUOTA, copyBytes: COPY, checkpoints: 'manual' };
}

/** A session's files (its index, segments and journals), by name. */
async function filesOf(dir, sessionId) {
  const prefix = path.basename(core.sessionFile(dir, sessionId));
  return (await fs.readdir(dir)).filter((name) => name === prefix || name.startsWith(`${prefix}.`));
}

/** Copies session `from` (in `fromDir`) to session `to` in `toDir`: every file, renamed. */
async function copySession(fromDir, from, toDir, to) {
  const prefix = path.basename(core.sessionFile(fromDir, from));
  const target = path.basename(core.sessionFile(toDir, to));
  for (const name of await filesOf(fromDir, from))
    await fs.copyFile(path.join(fromDir, name), path.join(toDir, target + name.slice(prefix.length)));
}

/** Template sessions holding 1, 4 and 8 copies of `kind` (built by retaining them and flushing), and the incoming copy. */
async function buildTemplates(dir, kind) {
  const store = await core.openStore(storeOptions(dir, `build-${kind}`));
  const templates = new Map();
  let held = 0;
  for (const copies of SESSION_COPIES) {
    for (; held < copies; held++) await store.retain(KINDS[kind].make(held + 1), { tool: 'bench', title: `filler ${held + 1}` });
    await store.flush();
    const stats = await store.stats();
    if (stats.outputs !== copies || stats.retainedBytes !== copies * COPY) throw new Error(`template holds ${JSON.stringify(stats)}`);
    const id = `template-${kind}-${copies}`;
    await copySession(dir, `build-${kind}`, dir, id);
    templates.set(copies, id);
  }
  await store.delete();
  return { templates, incoming: KINDS[kind].make(1000) };
}

/** open + writeFile + fsync + close of `buffer`, the raw lower bound of writing a file that large. */
async function rawWrite(dir, buffer, rep) {
  const file = path.join(dir, `raw-${rep}.bin`);
  const io = processIo();
  const t = process.hrtime.bigint();
  const handle = await fs.open(file, 'wx', 0o600);
  try {
    await handle.writeFile(buffer);
    await handle.sync();
  } finally {
    await handle.close();
  }
  const ms = msSince(t);
  const after = processIo();
  await fs.rm(file);
  return { ms, wchar: after.wchar - io.wchar, writeBytes: after.writeBytes - io.writeBytes };
}

/**
 * The I/O a checkpoint's protocol needs, done raw with nothing else: the new chunks written to a new
 * file + fsync, the folder fsync'd (the segments exist before an index names them), an index as large
 * as the session's written atomically (temp file + fsync + rename + folder fsync), and the rotated
 * journal (the 8 MiB record, written and fsync'd untimed before) removed. What any design that keeps
 * "segments durable before the index names them, the journal until then" pays, whatever its code.
 */
async function floorWrite(dir, buffer, indexBytes, rep) {
  const journal = path.join(dir, `floor-${rep}.journal`);
  const segment = path.join(dir, `floor-${rep}.segment`);
  const index = path.join(dir, `floor-${rep}.index`);
  const temp = `${index}.tmp`;
  const prior = await fs.open(journal, 'wx', 0o600);
  await prior.writeFile(randomBytes(COPY));
  await prior.sync();
  await prior.close();
  const syncDir = async () => {
    const handle = await fs.open(dir, 'r');
    await handle.sync();
    await handle.close();
  };
  const t = process.hrtime.bigint();
  const seg = await fs.open(segment, 'wx', 0o600);
  await seg.writeFile(buffer);
  await seg.sync();
  await seg.close();
  await syncDir();
  const idx = await fs.open(temp, 'wx', 0o600);
  await idx.writeFile(Buffer.alloc(indexBytes, 1));
  await idx.sync();
  await idx.close();
  await fs.rename(temp, index);
  await syncDir();
  await fs.rm(journal);
  const ms = msSince(t);
  await fs.rm(segment);
  await fs.rm(index);
  return ms;
}

/**
 * One checkpoint: a copy of the template session, one more 8 MiB retained (untimed), then the timed
 * flush(). `newBytes`: the segment files it added, the new chunks as stored.
 */
async function checkpointOnce(dir, template, incoming, rep) {
  const sessionId = `rep-${rep}`;
  await copySession(dir, template, dir, sessionId);
  const store = await core.openStore(storeOptions(dir, sessionId));
  try {
    const before = await store.stats();
    const held = new Set(await filesOf(dir, sessionId));
    await store.retain(incoming, { tool: 'bench', title: 'incoming' });
    const io = processIo();
    const t = process.hrtime.bigint();
    await store.flush();
    const ms = msSince(t);
    const after = processIo();
    const stats = await store.stats();
    if (stats.evicted !== before.evicted || stats.outputs !== before.outputs + 1)
      throw new Error(`checkpoint session holds ${JSON.stringify(stats)}`);
    const fileBytes = (await fs.stat(store.file)).size;
    let newBytes = 0;
    for (const name of await filesOf(dir, sessionId))
      if (!held.has(name) && name.includes('.segment.')) newBytes += (await fs.stat(path.join(dir, name))).size;
    return { ms, wchar: after.wchar - io.wchar, writeBytes: after.writeBytes - io.writeBytes, fileBytes, newBytes };
  } finally {
    await store.delete();
  }
}

async function benchCheckpoint() {
  const dir = path.join(benchRoot, 'checkpoint');
  await fs.mkdir(dir, { recursive: true });
  const cases = [];
  for (const kind of Object.keys(KINDS)) {
    log(`checkpoint: building the ${KINDS[kind].label} sessions (8, 32, 64 MiB)…`);
    const { templates, incoming } = await buildTemplates(dir, kind);
    for (const copies of SESSION_COPIES)
      cases.push({ kind, copies, template: templates.get(copies), incoming, rawBuffer: undefined, subject: [], raw: [], floor: [] });
  }
  for (let rep = 0; rep < REPS; rep++) {
    // Rotate the cases, and alternate which of subject and baseline goes first.
    for (let i = 0; i < cases.length; i++) {
      const c = cases[(i + rep) % cases.length];
      const doSubject = async () => c.subject.push(await checkpointOnce(dir, c.template, c.incoming, rep));
      // As large as the new chunks as stored (the segments the checkpoint added), so the first run of a case goes subject first.
      const doRaw = async () => {
        c.rawBuffer ??= randomBytes(c.subject[0].newBytes);
        c.raw.push({ ...(await rawWrite(dir, c.rawBuffer, rep)), bytes: c.rawBuffer.length });
        c.floor.push(await floorWrite(dir, c.rawBuffer, c.subject[0].fileBytes, rep));
      };
      if (rep === 0 || (rep + i) % 2 === 0) {
        await doSubject();
        await doRaw();
      } else {
        await doRaw();
        await doSubject();
      }
      const s = c.subject.at(-1);
      log(
        `checkpoint rep ${rep + 1}/${REPS} ${c.kind.padEnd(6)} ${String(c.copies * 8).padStart(2)} MiB: ${fmtMs(s.ms)} ` +
          `(wchar ${fmtMiB(s.wchar)}, write_bytes ${fmtMiB(s.writeBytes)}, file ${fmtMiB(s.fileBytes)}), raw ${fmtMs(c.raw.at(-1).ms)}`,
      );
    }
  }
  const summary = new Map();
  for (const c of cases) {
    const ms = c.subject.map((s) => s.ms);
    const rawMs = c.raw.map((r) => r.ms);
    const fileBytes = median(c.subject.map((s) => s.fileBytes));
    const wchar = median(c.subject.map((s) => s.wchar));
    const writeBytes = median(c.subject.map((s) => s.writeBytes));
    const ratio = median(ms) / median(rawMs);
    summary.set(`${c.kind}-${c.copies}`, { ms: median(ms), wchar, writeBytes, raws: ratio });
    row(`checkpoint +8 MiB into ${c.copies * 8} MiB, ${KINDS[c.kind].label}`, {
      subject: fmtMs(median(ms)),
      runs: ms.map((m) => m.toFixed(0)).join('/'),
      baseline: fmtMs(median(rawMs)),
      ratio: fmtRatio(ratio),
      wchar: fmtMiB(wchar),
      writeBytes: fmtMiB(writeBytes),
      file: fmtMiB(fileBytes),
      today: TODAY.checkpoint[`${c.kind}-${c.copies}`],
      target: '≤ 2× raw',
      pass: ratio <= 2,
    });
  }
  for (const kind of Object.keys(KINDS)) {
    const of = cases.filter((c) => c.kind === kind);
    const inRaws = of.map((c) => median(c.floor) / median(c.raw.map((r) => r.ms)));
    row(`  … the floor, in raws: the same I/O done raw (see notes), ${KINDS[kind].label}`, {
      subject: fmtMs(median(of.flatMap((c) => c.floor))),
      runs: inRaws.map((r) => r.toFixed(2)).join('/'),
      ratio: fmtRatio(median(inRaws)),
      target: 'info',
    });
  }
  for (const kind of Object.keys(KINDS)) {
    const flat = summary.get(`${kind}-8`).raws / summary.get(`${kind}-1`).raws;
    row(`  … cost at 64 ÷ at 8 MiB, in raws, ${KINDS[kind].label}`, {
      subject: fmtRatio(flat),
      today: TODAY.flat[kind],
      target: 'flat: ≤ 1.5',
      pass: flat <= 1.5,
    });
  }
  const raw = cases.flatMap((c) => c.raw);
  notes.push(
    `checkpoint: a session holding N different 8 MiB copies (built by retain + flush, all its files copied per run), openStore with ` +
      `quotaBytes 128 MiB, copyBytes 8 MiB, checkpoints 'manual' (no background timer); one more 8 MiB retained untimed, then ` +
      `the flush() that checkpoints it is timed (deflate of the new copy, a window of 1 MiB at a time, its segment files built and written + fsync'd, ` +
      `the index exported and written atomically: temp file + fsync + rename + directory fsync). Runs in ms, in order. No evictions. ` +
      `"file after" is the index.`,
  );
  notes.push(
    `baseline (raw): open + writeFile + fsync + close of a buffer as large as the segment files that checkpoint added (the new chunks as stored), same ` +
      `folder, interleaved with the checkpoints (subject first in the first run, then alternated). Its own wchar equals its size (median wchar/size ` +
      `${fmtRatio(median(raw.map((r) => r.wchar / r.bytes)))}).`,
  );
  notes.push(
    `the floor: the I/O the checkpoint's protocol needs, done raw in the same folder right after each raw baseline: the new chunks ` +
      `written to one new file + fsync, the folder fsync'd, an index as large as the checkpoint's written atomically (temp file + ` +
      `fsync + rename + folder fsync), and an 8 MiB rotated journal (written and fsync'd untimed before) removed. Its runs are ` +
      `its ratio to the raw baseline for 8 / 32 / 64 MiB sessions: what the ≤ 2× raw goal leaves for everything else.`,
  );
  notes.push(
    `wchar and write_bytes are /proc/self/io deltas over the flush() alone (the whole process): wchar counts bytes passed to write ` +
      `syscalls, write_bytes bytes the process sent to the storage layer (on ext4, accounted when pages are dirtied).`,
  );
  // One line: do the checkpoint's bytes (the deterministic measure) and time follow the session's
  // size (8 vs 64 MiB already held) or what changed (8 MiB in both)?
  const growth = Object.keys(KINDS).map((kind) => {
    const small = summary.get(`${kind}-1`);
    const large = summary.get(`${kind}-8`);
    return { kind, small, large, bytes: large.wchar / small.wchar, time: large.ms / small.ms };
  });
  const grows = growth.every((g) => g.bytes >= 2);
  growthLine =
    `checkpoint cost ${grows ? 'GROWS WITH THE SESSION SIZE, not with what changed' : 'follows what changed, not the session size'}: ` +
    `+8 MiB into 64 vs 8 MiB writes ${growth.map((g) => `${fmtMiB(g.large.wchar)} vs ${fmtMiB(g.small.wchar)} (×${fmtRatio(g.bytes)}, ${g.kind})`).join(' and ')}, ` +
    `and takes ${growth.map((g) => `×${fmtRatio(g.time)} (${g.kind})`).join(' and ')} as long` +
    (grows ? ' — every checkpoint exports and rewrites the whole sql.js database' : '') +
    (growth.every((g) => g.time < 2)
      ? '; the time grows less, as at these sizes most of it is work on the new copy (deflate, building the segments; see the raw baseline), not the write.'
      : '.');
}

// ---------------------------------------------------------------------------------------------
// 2. Peak RSS of a process whose store worker holds a full 64 MiB session of random bytes.

function runChild(mode, dir, sessionId, env) {
  return new Promise((resolve, reject) => {
    // --expose-gc: the child collects the copies it made and dropped (the bench's garbage, not the store's).
    const gc = process.env.TOR_BENCH_KEEP_GARBAGE ? [] : ['--expose-gc'];
    const child = spawn(process.execPath, [...gc, path.join(here, 'lib/storeRssChild.mjs'), mode, dir, sessionId], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, ...env },
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`storeRssChild ${mode} exited ${code}`));
      try {
        resolve(JSON.parse(out.trim().split('\n').pop()));
      } catch {
        reject(new Error(`storeRssChild ${mode} printed no JSON: ${out}`));
      }
    });
  });
}

/** One RSS child of `mode`; a full or resumed session must hold the 8 copies, none evicted. */
async function measureChild(mode, dir, env) {
  const result = await runChild(mode, dir, mode === 'empty' ? 'empty' : 'full64', env);
  if (mode !== 'empty' && (result.outputs !== 8 || result.retainedBytes !== 64 * MiB || result.evicted !== 0))
    throw new Error(`${mode} child's session holds ${JSON.stringify(result)}`);
  return result;
}

async function benchWorkerRss() {
  const samples = { empty: [], full: [], resume: [] };
  const pinned = { empty: [], full: [], resume: [] };
  // --against: the same children on another build, interleaved (which build goes first alternates by rep).
  const other = { empty: [], full: [], resume: [] };
  const otherEnv = AGAINST ? { TOR_BENCH_CORE: path.resolve(AGAINST) } : undefined;
  for (let rep = 0; rep < REPS; rep++) {
    const dir = path.join(benchRoot, `rss-${rep}`);
    // The empty baseline alternates before and after the pair (resume needs the full session first).
    const order = rep % 2 === 0 ? ['empty', 'full', 'resume'] : ['full', 'resume', 'empty'];
    const builds = [
      { into: samples, env: undefined, label: 'this' },
      ...(otherEnv ? [{ into: other, env: otherEnv, label: 'against' }] : []),
    ];
    if (rep % 2 === 1) builds.reverse();
    for (const build of builds) {
      await fs.mkdir(dir, { recursive: true });
      for (const mode of order) {
        const result = await measureChild(mode, dir, build.env);
        build.into[mode].push(result);
        log(
          `rss rep ${rep + 1}/${REPS} ${otherEnv ? `${build.label.padEnd(7)} ` : ''}${mode.padEnd(6)} maxRSS ${fmtMiB(result.maxRssKiB * 1024)}, ` +
            `VmHWM ${fmtMiB(result.hwmKiB * 1024)}, in ${fmtMs(result.ms)}, CPU ${fmtMs(result.cpuMs)}`,
        );
      }
      await fs.rm(dir, { recursive: true, force: true });
    }
    if (!GLIBC) continue;
    await fs.mkdir(dir, { recursive: true });
    for (const mode of order) pinned[mode].push(await measureChild(mode, dir, PINNED_MMAP));
    await fs.rm(dir, { recursive: true, force: true });
  }
  // maxRSS as asked, unless it was inherited from this process (then VmHWM, the child's own peak).
  const inherited = [...Object.values(samples), ...Object.values(other)].flat().some((s) => s.maxRssKiB - s.hwmKiB > 8 * 1024);
  const rss = (mode) => samples[mode].map((s) => (inherited ? s.hwmKiB : s.maxRssKiB) * 1024);
  const hwm = (mode) => median(samples[mode].map((s) => s.hwmKiB * 1024));
  const runs = (mode) =>
    rss(mode)
      .map((b) => (b / MiB).toFixed(0))
      .join('/');
  const base = median(rss('empty'));
  const what = inherited ? 'VmHWM' : 'maxRSS';
  row(`worker store, empty session: ${what}`, { subject: fmtMiB(base), runs: runs('empty') });
  for (const [mode, label, goal] of [
    ['full', `worker store, 64 MiB random: ${what}`, RSS_GOAL],
    ['resume', `worker resume of it + reads: ${what}`, RSS_REOPENED_GOAL],
  ]) {
    const peak = median(rss(mode));
    row(label, {
      today: TODAY.rss[mode],
      subject: fmtMiB(peak),
      runs: runs(mode),
      baseline: fmtMiB(base),
      ratio: fmtRatio(peak / base),
      file: fmtMiB(median(samples[mode].map((s) => s.fileBytes))),
      target: `≤ ${fmtMiB(goal)}`,
      pass: peak <= goal,
    });
    row('  … minus the empty baseline (info)', { subject: fmtMiB(peak - base), runs: `max ${fmtMiB(max(rss(mode)) - base)}` });
    const cpu = samples[mode].map((s) => s.cpuMs);
    row('  … CPU time of the whole child (info)', { subject: fmtMs(median(cpu)), runs: cpu.map((ms) => ms.toFixed(0)).join('/') });
    if (otherEnv) {
      const theirs = other[mode].map((s) => (inherited ? s.hwmKiB : s.maxRssKiB) * 1024);
      const theirBase = median(other.empty.map((s) => (inherited ? s.hwmKiB : s.maxRssKiB) * 1024));
      const theirCpu = other[mode].map((s) => s.cpuMs);
      row(`  … the --against build, same run (info)`, {
        subject: fmtMiB(median(theirs)),
        runs: theirs.map((b) => (b / MiB).toFixed(0)).join('/'),
        baseline: fmtMiB(theirBase),
        ratio: fmtRatio(median(theirs) / theirBase),
        target: `≤ ${fmtMiB(goal)}`,
      });
      row(`  … its CPU time (info)`, { subject: fmtMs(median(theirCpu)), runs: theirCpu.map((ms) => ms.toFixed(0)).join('/') });
    }
    if (!GLIBC) continue;
    const tuned = pinned[mode].map((s) => s.hwmKiB * 1024);
    row(`  … the same with MALLOC_MMAP_THRESHOLD_=${PINNED_MMAP.MALLOC_MMAP_THRESHOLD_} (info)`, {
      subject: fmtMiB(median(tuned)),
      runs: tuned.map((b) => (b / MiB).toFixed(0)).join('/'),
      baseline: fmtMiB(median(pinned.empty.map((s) => s.hwmKiB * 1024))),
      target: `≤ ${fmtMiB(goal)}`,
    });
  }
  notes.push(
    `peak RSS: process.resourceUsage().maxRSS of a fresh \`node bench/lib/storeRssChild.mjs\` per run (runs in MiB). The store ` +
      `worker is a worker_thread, so this is the whole process: the main thread (Node, the caller's buffers) plus the worker ` +
      `(sql.js with the index, the maps of segments read, decoded chunks) and the search worker. full: openWorkerStore quotaBytes 64 MiB, copyBytes ` +
      `8 MiB, 8 retains of crypto.randomBytes(8 MiB) (copied to the worker, as callers do), flush, 8 pages from the start and ` +
      `the middle of each copy, a search of the oldest and newest copy, close; the child's main thread collects its own garbage ` +
      `after each retain and search (--expose-gc; TOR_BENCH_KEEP_GARBAGE=1 to measure without). resume: a fresh process reopens that session ` +
      `(sessionId), lists, reads 8 pages of each copy, searches two, closes. empty: opens an empty worker store and closes. ` +
      `CPU time: the child's process.cpuUsage() at the end, user + system, all threads. ` +
      (otherEnv
        ? `--against rows: the same children on ${AGAINST} (its storeWorker.js beside it), each rep running both builds, alternating which goes first. `
        : '') +
      `The goal applies to the peak, baseline included. ` +
      (inherited
        ? `maxRSS was inherited from this process at spawn (Linux counts the parent's RSS then), so the table shows VmHWM, the child's own peak.`
        : `VmHWM (the child's own peak, /proc/self/status) agrees: empty ${fmtMiB(hwm('empty'))}, full ${fmtMiB(hwm('full'))}, resume ${fmtMiB(hwm('resume'))}.`),
  );
  if (GLIBC)
    notes.push(
      `MALLOC_MMAP_THRESHOLD_ rows (VmHWM; baseline: the empty store with it): the same children started with glibc's mmap threshold pinned ` +
        `at 32 KiB, so every freed block of 32 KiB or more goes back to the system. Without it glibc raises the threshold to the ` +
        `largest block freed (an 8 MiB copy), and later blocks below that come from its heaps, which keep what was freed: the ` +
        `difference between the two rows is memory the process freed and glibc kept.`,
    );
}
