// Peak RSS and time of encoding one 8 MiB copy: the engine's encodeChunks (all 128 deflate jobs
// started at once, each with its own ~256 KiB zlib state) vs the same jobs with at most 4 in flight.
// Run each variant in a fresh process: node --import tsx bench/profile/encodeMemory.mjs <engine|limited> [zeros|log]
import { deflateRaw, constants } from 'node:zlib';
import { promisify } from 'node:util';
import { encodeChunks, CHUNK_BYTES } from '../../src/core/store/chunks.ts';
import { makeLogText } from '../lib/logtext.mjs';

const [variant = 'engine', content = 'zeros'] = process.argv.slice(2);
const bytes = content === 'log' ? makeLogText(8 << 20, 3) : Buffer.alloc(8 << 20);
const deflateAsync = promisify(deflateRaw);
async function limited(buffer, inFlight = 4) {
  const out = [];
  let next = 0;
  const worker = async () => {
    for (let at = next; at < buffer.length; at = next) {
      next += CHUNK_BYTES;
      out[at / CHUNK_BYTES] = await deflateAsync(buffer.subarray(at, at + CHUNK_BYTES), {
        level: 1,
        strategy: constants.Z_DEFAULT_STRATEGY,
      });
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return out;
}
await new Promise((r) => setTimeout(r, 50));
const start = process.memoryUsage.rss();
let peak = start;
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage.rss());
}, 1);
const t = process.hrtime.bigint();
const chunks = variant === 'engine' ? await encodeChunks(bytes) : await limited(bytes);
const ms = Number(process.hrtime.bigint() - t) / 1e6;
peak = Math.max(peak, process.memoryUsage.rss());
clearInterval(sampler);
console.log(
  `${variant.padEnd(7)} ${content}: ${ms.toFixed(1)} ms, peak RSS growth ${((peak - start) / 1048576).toFixed(1)} MiB, ${chunks.length} chunks`,
);
