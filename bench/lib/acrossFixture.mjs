// The workspace bench/searchAcross.mjs searches: SESSIONS closed sessions of SESSION_MIB MiB each,
// 200+ outputs per session of log-like text (lib/logtext.mjs, a seed per output) whose sizes run
// from 4 KiB to 2 MiB (log-uniform), retained through dist/core.js's `openStore` into one folder
// (closed, so their checkpoints wrote segments), and the same bytes as files, one per output, in a
// folder tree (files/<session>/<nnn>-<command>.log) for grep and rg.
//
// Building 640 MiB takes a few minutes on a loaded 2-core machine, so the fixture is cached in the
// temp folder under a name that carries FIXTURE_VERSION, its shape and the store's format as the
// build under test writes it (`storeFormat`: a build that writes chunks differently, e.g. with search
// masks, gets its own fixture); `meta.json` is written last and a folder without it is rebuilt.
// Building a new one removes the others. Bump FIXTURE_VERSION when the text or the needles change.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { makeLogText, prng } from './logtext.mjs';

const require = createRequire(import.meta.url);

export const FIXTURE_VERSION = 'v1';

const KiB = 1024;
const MiB = 1024 * KiB;
const MIN_OUTPUT = 4 * KiB;
const MAX_OUTPUT = 2 * MiB;
const OUTPUTS_PER_SESSION = 210;

/** The rare literal: planted in the oldest session's oldest output, and in the middle session's middle output. */
export const NEEDLE = 'NEEDLE-4f9c2e-recall';
/** Lines the regex `ERROR.*pool.*id=7f3a` matches: one per session (common parts, rare combination). */
const POOL_LINE = (s) =>
  `2024-05-18T03:14:15.926Z ERROR [db.pool] connection lost id=7f3a${(0x1000 + s * 97).toString(16)} after 5 retries`;

const COMMANDS = [
  'npm test',
  'npm run build',
  'cargo build --release',
  'kubectl logs deploy/api --since=2h',
  'tail -n 20000 /var/log/app/server.log',
  'pytest -x tests/',
  'go test ./...',
  'docker compose up --build',
  'journalctl -u worker --no-pager',
  'make -j2 check',
];

const PREFIX = 'tor-bench-across-';

export function fixtureDir({ sessions, sessionMiB, format }) {
  return process.env.TOR_BENCH_ACROSS_DIR ?? path.join(tmpdir(), `${PREFIX}${FIXTURE_VERSION}-${sessions}x${sessionMiB}MiB-${format}`);
}

/**
 * A fingerprint of the store's on-disk format as this build writes it: a small session is retained
 * and closed, then the schemas of its index and of a segment, and the segment's rows but their output
 * ids (the deflated chunks, and whatever else a chunk carries, such as a search mask), are hashed. A
 * build that writes another format gets a fixture of its own.
 */
export async function storeFormat(core) {
  const dir = await fs.mkdtemp(path.join(tmpdir(), 'tor-bench-format-'));
  try {
    const store = await core.openStore({ dir, quotaBytes: 16 * MiB });
    await store.retain(makeLogText(200 * KiB, 99), { tool: 'run_command', title: 'probe', extra: { exitCode: 0 } });
    await store.close();
    const SQL = await require('sql.js')();
    const hash = createHash('sha256');
    const files = (await fs.readdir(dir)).sort();
    for (const kind of [/\.sqlite$/, /\.segment\.\d+$/]) {
      const file = files.find((name) => kind.test(name));
      hash.update(`${kind}:${file ? 'present' : 'absent'}\n`);
      if (!file) continue;
      const db = new SQL.Database(await fs.readFile(path.join(dir, file)));
      try {
        hash.update(JSON.stringify(db.exec('SELECT type, name, sql FROM sqlite_master ORDER BY name')));
        hash.update(JSON.stringify(db.exec('PRAGMA user_version')));
        if (kind.source.includes('segment')) {
          for (const { values } of db.exec('SELECT * FROM chunks ORDER BY idx'))
            for (const row of values) for (const value of row.slice(1)) hash.update(value instanceof Uint8Array ? value : String(value));
        }
      } finally {
        db.close();
      }
    }
    return hash.digest('hex').slice(0, 10);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** Output sizes of session `s`: OUTPUTS_PER_SESSION of them, log-uniform in [4 KiB, 2 MiB], summing to exactly `total`. */
function outputSizes(s, total) {
  const rand = prng(7000 + s);
  const raw = Array.from({ length: OUTPUTS_PER_SESSION }, () => MIN_OUTPUT * Math.pow(MAX_OUTPUT / MIN_OUTPUT, rand()));
  const scale = total / raw.reduce((a, b) => a + b, 0);
  const clamp = (n) => Math.min(MAX_OUTPUT, Math.max(MIN_OUTPUT, Math.round(n)));
  const sizes = raw.map((n) => clamp(n * scale));
  let diff = total - sizes.reduce((a, b) => a + b, 0);
  for (let i = 0; diff !== 0 && i < sizes.length * 4; i++) {
    const k = i % sizes.length;
    const next = clamp(sizes[k] + diff);
    diff -= next - sizes[k];
    sizes[k] = next;
  }
  if (diff !== 0) throw new Error(`cannot fit ${total} bytes in ${sizes.length} outputs of at most ${MAX_OUTPUT}`);
  return sizes;
}

/** Lines planted in output `i` of session `s` (of `n` outputs in `sessions`), at fractional positions. */
function plantsFor(s, i, n, sessions) {
  const lines = [];
  if (s === 0 && i === 0)
    lines.push({ at: 0.5, line: `2024-05-17T08:00:01.000Z WARN  [billing] settlement ref=${NEEDLE} held for review` });
  if (s === Math.floor(sessions / 2) && i === Math.floor(n / 2))
    lines.push({ at: 0.3, line: `2024-05-18T12:00:00.000Z WARN  [billing] settlement ref=${NEEDLE} held for review` });
  if (i === (7 * s + 3) % n) lines.push({ at: 0.7, line: POOL_LINE(s) });
  return lines;
}

const slug = (command) =>
  command
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 40);

/**
 * The fixture, built unless a complete one is cached: { dir, storesDir, filesDir, meta }. `core` is
 * dist/core.js. `log` reports progress.
 */
export async function ensureFixture(core, { sessions, sessionMiB, rebuild = false, log = () => undefined }) {
  const format = await storeFormat(core);
  const dir = fixtureDir({ sessions, sessionMiB, format });
  const storesDir = path.join(dir, 'stores');
  const filesDir = path.join(dir, 'files');
  const metaFile = path.join(dir, 'meta.json');
  if (!rebuild) {
    try {
      const meta = JSON.parse(await fs.readFile(metaFile, 'utf8'));
      return { dir, storesDir, filesDir, meta, cached: true };
    } catch {
      // Not built, or not to the end: build it.
    }
  }
  // Fixtures of other formats or shapes are 0.8 GiB each: only this one is kept.
  if (!process.env.TOR_BENCH_ACROSS_DIR) {
    for (const name of await fs.readdir(tmpdir())) {
      if (name.startsWith(PREFIX)) await fs.rm(path.join(tmpdir(), name), { recursive: true, force: true });
    }
  }
  await fs.rm(dir, { recursive: true, force: true });
  await fs.mkdir(storesDir, { recursive: true });
  const started = Date.now();
  const meta = { version: FIXTURE_VERSION, format, sessions: [], needles: [], poolLines: [], totalBytes: 0, outputs: 0 };
  for (let s = 0; s < sessions; s++) {
    const sizes = outputSizes(s, sessionMiB * MiB);
    const store = await core.openStore({ dir: storesDir, quotaBytes: 80 * MiB });
    const sessionFiles = path.join(filesDir, `session-${String(s).padStart(2, '0')}-${store.sessionId}`);
    await fs.mkdir(sessionFiles, { recursive: true });
    let bytesIn = 0;
    try {
      for (const [i, size] of sizes.entries()) {
        const plants = plantsFor(s, i, sizes.length, sessions);
        const bytes = makeLogText(size, 100_000 + s * 1000 + i, plants);
        const command = COMMANDS[(s * 3 + i) % COMMANDS.length];
        const exitCode = (s + i) % 11 === 0 ? 1 : 0;
        const { outputId, totalBytes } = await store.retain(bytes, { tool: 'run_command', title: command, extra: { exitCode } });
        if (totalBytes !== size) throw new Error(`retained ${totalBytes} of ${size} bytes`);
        await fs.writeFile(path.join(sessionFiles, `${String(i).padStart(3, '0')}-${slug(command)}.log`), bytes);
        for (const plant of plants) {
          const where = { session: s, sessionId: store.sessionId, output: i, outputId, bytes: size };
          (plant.line.includes(NEEDLE) ? meta.needles : meta.poolLines).push(where);
        }
        bytesIn += size;
      }
    } finally {
      await store.close();
    }
    if ((await core.listSessions(storesDir)).length !== s + 1) throw new Error('a session file is missing after close');
    meta.sessions.push({
      sessionId: store.sessionId,
      outputs: sizes.length,
      bytes: bytesIn,
      minOutput: Math.min(...sizes),
      maxOutput: Math.max(...sizes),
    });
    meta.totalBytes += bytesIn;
    meta.outputs += sizes.length;
    log(
      `fixture: session ${s + 1}/${sessions} (${store.sessionId}): ${sizes.length} outputs, ${(bytesIn / MiB).toFixed(0)} MiB, ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
  }
  meta.buildSeconds = Math.round((Date.now() - started) / 1000);
  await fs.writeFile(metaFile, `${JSON.stringify(meta, null, 2)}\n`);
  return { dir, storesDir, filesDir, meta, cached: false };
}

/** Bytes of the files under `dir`, recursively. */
export async function folderBytes(dir) {
  let total = 0;
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += await folderBytes(full);
    else if (entry.isFile()) total += (await fs.stat(full)).size;
  }
  return total;
}
