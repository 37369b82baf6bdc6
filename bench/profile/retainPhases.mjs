// Times the phases of SessionStore.retain() on a session already holding 48 MiB, using the engine's
// own modules from src/ (run with `node --import tsx bench/profile/retainPhases.mjs`).
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { makeLogText } from '../lib/logtext.mjs';
import { median } from '../lib/stats.mjs';
import { encodeChunks } from '../../src/core/store/chunks.ts';
import { atomicWriteFile } from '../../src/core/store/atomicWrite.ts';
import { openStore } from '../../src/core/workers/stores.ts';
import { applyPragmas } from '../../src/core/store/schema.ts';

const MiB = 1048576;
const dir = await fs.mkdtemp(path.join(tmpdir(), 'tor-prof-'));
const store = await openStore({ dir, quotaBytes: 128 * MiB });
for (let seed = 1; seed <= 6; seed++) await store.retain(makeLogText(8 * MiB, seed));
const incoming = makeLogText(8 * MiB, 7);
const db = store.db;
const phases = { encode: [], insert: [], export: [], pragmas: [], write: [], writeRawBaseline: [], total: [] };
const t = () => process.hrtime.bigint();
const ms = (s) => Number(process.hrtime.bigint() - s) / 1e6;
for (let rep = 0; rep < 6; rep++) {
  const t0 = t();
  let s = t();
  const chunks = await encodeChunks(incoming);
  phases.encode.push(ms(s));
  s = t();
  db.exec('BEGIN');
  db.run('INSERT INTO outputs (id, seq, created_at, total_bytes, complete, dropped_bytes, chunk_bytes) VALUES (?, ?, 0, ?, 1, 0, 65536)', [
    `out_bench${rep}`,
    100 + rep,
    incoming.length,
  ]);
  const insert = db.prepare('INSERT INTO chunks (output_id, idx, codec, data) VALUES (?, ?, ?, ?)');
  chunks.forEach((chunk, index) => insert.run([`out_bench${rep}`, index, chunk.codec, chunk.data]));
  insert.free();
  db.exec('COMMIT');
  phases.insert.push(ms(s));
  s = t();
  const data = db.export();
  phases.export.push(ms(s));
  s = t();
  applyPragmas(db);
  phases.pragmas.push(ms(s));
  s = t();
  await atomicWriteFile(path.join(dir, 'x.sqlite'), data);
  phases.write.push(ms(s));
  phases.total.push(ms(t0));
  s = t();
  const h = await fs.open(path.join(dir, `raw${rep}`), 'w');
  await h.writeFile(data);
  await h.sync();
  await h.close();
  phases.writeRawBaseline.push(ms(s));
  db.run('DELETE FROM chunks WHERE output_id = ?', [`out_bench${rep}`]);
  db.run('DELETE FROM outputs WHERE id = ?', [`out_bench${rep}`]);
  console.log(
    `rep ${rep}: exported ${(data.length / MiB).toFixed(1)} MiB`,
    Object.entries(phases)
      .map(([k, v]) => `${k}=${v.at(-1).toFixed(1)}`)
      .join(' '),
  );
}
console.log('medians (ms):', Object.fromEntries(Object.entries(phases).map(([k, v]) => [k, +median(v).toFixed(1)])));
await store.close();
await fs.rm(dir, { recursive: true, force: true });
