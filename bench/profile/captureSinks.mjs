// Main-thread CPU of the capture sinks, without a child process: 1 GiB in 64 KiB chunks through
// captureCommand's three HeadTailBuffers (stdout + merged written per chunk, then finish() of all three)
// vs a merged-only zero-copy sink (bench/profile/zeroCopyCapture.mjs's idea).
// Run: node --import tsx bench/profile/captureSinks.mjs
import { HeadTailBuffer } from '../../src/core/capture/headTailBuffer.ts';
import { median } from '../lib/stats.mjs';

const MiB = 1048576;
const CHUNK = 65536;
const TOTAL = 1024 * MiB;
const t = () => process.hrtime.bigint();
const ms = (s) => Number(process.hrtime.bigint() - s) / 1e6;
// Fresh chunks as a pipe would deliver them (a pool of 64 to keep allocation out of the timing).
const pool = Array.from({ length: 64 }, (_, i) => Buffer.alloc(CHUNK, 97 + (i % 26)));
const r = { currentWrite: [], currentFinish: [], zeroCopyWrite: [], zeroCopyFinish: [] };
for (let rep = 0; rep < 5; rep++) {
  let s = t();
  const out = new HeadTailBuffer(8 * MiB);
  const err = new HeadTailBuffer(8 * MiB);
  const merged = new HeadTailBuffer(8 * MiB);
  for (let i = 0; i < TOTAL / CHUNK; i++) {
    const c = pool[i % 64];
    out.write(c);
    merged.write(c);
  }
  r.currentWrite.push(ms(s));
  s = t();
  out.finish();
  err.finish();
  merged.finish();
  r.currentFinish.push(ms(s));

  s = t();
  const headCap = (8 * MiB - 256) >> 1;
  const head = [];
  let headLength = 0;
  const tail = [];
  let tailLength = 0;
  for (let i = 0; i < TOTAL / CHUNK; i++) {
    let c = pool[i % 64];
    if (headLength < headCap) {
      const take = Math.min(headCap - headLength, c.length);
      head.push(Buffer.from(c.subarray(0, take)));
      headLength += take;
      c = c.subarray(take);
      if (!c.length) continue;
    }
    tail.push(c);
    tailLength += c.length;
    while (tail.length > 1 && tailLength - tail[0].length >= 8 * MiB - 256 - headCap) tailLength -= tail.shift().length;
  }
  r.zeroCopyWrite.push(ms(s));
  s = t();
  Buffer.concat([...head, Buffer.from('marker'), ...tail]);
  r.zeroCopyFinish.push(ms(s));
}
console.log('medians (ms) for 1 GiB:', Object.fromEntries(Object.entries(r).map(([k, v]) => [k, +median(v).toFixed(1)])));
