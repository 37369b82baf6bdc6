// What would retain cost if a copy's chunks lived in a file of its own (written once, fsync'd,
// renamed) and the sql.js database held only metadata? Prototype timings against the bench's
// baseline (writeFile + fsync of the same 8 MiB). Run: node --import tsx bench/profile/retainAlternatives.mjs
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { makeLogText } from '../lib/logtext.mjs';
import { median } from '../lib/stats.mjs';
import { encodeChunks } from '../../src/core/store/chunks.ts';
import { atomicWriteFile } from '../../src/core/store/atomicWrite.ts';
import { openStore } from '../../src/core/workers/stores.ts';

const MiB = 1048576;
const dir = await fs.mkdtemp(path.join(tmpdir(), 'tor-alt-'));
const incoming = makeLogText(8 * MiB, 7);
// A metadata-only session database (what would remain in sql.js): 7 output rows, no chunks.
const meta = await openStore({ dir, sessionId: 'meta', quotaBytes: 128 * MiB });
for (let i = 0; i < 6; i++) await meta.retain(`tiny ${i}`);
const t = () => process.hrtime.bigint();
const ms = (s) => Number(process.hrtime.bigint() - s) / 1e6;

function segment(chunks) {
  // [u32 count][count × (u32 offset, u32 length, u8 codec)] then the chunk bytes.
  const header = Buffer.alloc(4 + chunks.length * 9);
  header.writeUInt32LE(chunks.length, 0);
  let at = header.length;
  chunks.forEach((c, i) => {
    header.writeUInt32LE(at, 4 + i * 9);
    header.writeUInt32LE(c.data.length, 8 + i * 9);
    header[12 + i * 9] = c.codec;
    at += c.data.length;
  });
  return Buffer.concat([header, ...chunks.map((c) => c.data)]);
}

const r = { baseline: [], encode: [], segmentWrite: [], metaFlush: [], proposedTotal: [], rawSegmentTotal: [], encodeSync1Thread: [] };
for (let rep = 0; rep < 7; rep++) {
  let s = t();
  const h = await fs.open(path.join(dir, `base-${rep}`), 'wx');
  await h.writeFile(incoming);
  await h.sync();
  await h.close();
  r.baseline.push(ms(s));

  const t0 = t();
  s = t();
  const chunks = await encodeChunks(incoming);
  r.encode.push(ms(s));
  s = t();
  await atomicWriteFile(path.join(dir, `seg-${rep}.chunks`), segment(chunks));
  r.segmentWrite.push(ms(s));
  s = t();
  await meta.flush();
  r.metaFlush.push(ms(s));
  r.proposedTotal.push(ms(t0));

  // Variant: persist raw chunks first (compress later, off the critical path).
  s = t();
  await atomicWriteFile(path.join(dir, `raw-${rep}.chunks`), incoming);
  await meta.flush();
  r.rawSegmentTotal.push(ms(s));
  console.log(
    `rep ${rep}:`,
    Object.entries(r)
      .map(([k, v]) => `${k}=${(v.at(-1) ?? NaN).toFixed(1)}`)
      .join(' '),
    `segment ${(segment(chunks).length / MiB).toFixed(2)} MiB`,
  );
}
const zlib = await import('node:zlib');
for (let rep = 0; rep < 3; rep++) {
  const s = t();
  for (let at = 0; at < incoming.length; at += 65536) zlib.deflateRawSync(incoming.subarray(at, at + 65536), { level: 1 });
  r.encodeSync1Thread.push(ms(s));
}
const med = Object.fromEntries(Object.entries(r).map(([k, v]) => [k, +median(v).toFixed(1)]));
console.log('medians (ms):', med);
console.log(
  `ratio proposed/baseline ${(med.proposedTotal / med.baseline).toFixed(2)}, raw-first/baseline ${(med.rawSegmentTotal / med.baseline).toFixed(2)}`,
);
await meta.close();
await fs.rm(dir, { recursive: true, force: true });
