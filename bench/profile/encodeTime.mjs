// Time to deflate one 8 MiB log-like copy, interleaved: the engine's encodeChunks (128 async jobs
// at once) vs at most N in flight vs synchronous chunk-by-chunk deflateRawSync.
// Run: node --import tsx bench/profile/encodeTime.mjs
import { deflateRaw, deflateRawSync, constants } from 'node:zlib';
import { promisify } from 'node:util';
import { encodeChunks, CHUNK_BYTES } from '../../src/core/store/chunks.ts';
import { makeLogText } from '../lib/logtext.mjs';
import { median } from '../lib/stats.mjs';

const bytes = makeLogText(8 << 20, 3);
const options = { level: 1, strategy: constants.Z_DEFAULT_STRATEGY };
const deflateAsync = promisify(deflateRaw);
const limited = (inFlight) => async (buffer) => {
  const out = [];
  let next = 0;
  const worker = async () => {
    for (let at = next; at < buffer.length; at = next) {
      next += CHUNK_BYTES;
      out[at / CHUNK_BYTES] = await deflateAsync(buffer.subarray(at, at + CHUNK_BYTES), options);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return out;
};
const sync = async (buffer) => {
  const out = [];
  for (let at = 0; at < buffer.length; at += CHUNK_BYTES) out.push(deflateRawSync(buffer.subarray(at, at + CHUNK_BYTES), options));
  return out;
};
const variants = { engineAllAtOnce: encodeChunks, inFlight2: limited(2), inFlight4: limited(4), syncOneThread: sync };
const r = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
for (let rep = 0; rep < 9; rep++) {
  for (const [name, fn] of Object.entries(variants)) {
    const t = process.hrtime.bigint();
    await fn(bytes);
    r[name].push(Number(process.hrtime.bigint() - t) / 1e6);
  }
}
console.log('median ms to deflate 8 MiB:', Object.fromEntries(Object.entries(r).map(([k, v]) => [k, +median(v).toFixed(1)])));
