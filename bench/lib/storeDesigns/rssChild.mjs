// One memory measurement of a prototype store design in a fresh process, its store in a worker
// thread as the real store's is (bench/lib/storeRssChild.mjs does the same for today's store):
//   node bench/lib/storeDesigns/rssChild.mjs <segments|inPlace> <empty|full|resume> <file>
// full: 8 retains of crypto.randomBytes(8 MiB) (transferred to the worker), each checkpointed (the
// real store checkpoints soon after a retain), then 8 × 4 KiB pages from the start and the middle of
// each copy, the whole of the oldest and newest copy fetched in 1 MiB slices (what a search reads),
// close. resume: reopens the file, lists, reads and fetches the same way. empty: opens and closes.
// Prints one JSON line: { hwmKiB, maxRssKiB, ms, outputs, retainedBytes }.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { openDesign } from './open.mjs';

const MiB = 1048576;
const COPY = 8 * MiB;
const PAGE = 4096;

if (isMainThread) {
  const [design, mode, file] = process.argv.slice(2);
  const started = process.hrtime.bigint();
  const worker = new Worker(new URL(import.meta.url), { workerData: { design, file } });
  let next = 0;
  const waiting = new Map();
  worker.on('message', ({ id, result, error }) => {
    const { resolve, reject } = waiting.get(id);
    waiting.delete(id);
    if (error) reject(new Error(error));
    else resolve(result);
  });
  worker.on('error', (error) => {
    console.error(error);
    process.exit(1);
  });
  const call = (op, args = {}, transfer = []) =>
    new Promise((resolve, reject) => {
      const id = next++;
      waiting.set(id, { resolve, reject });
      worker.postMessage({ id, op, ...args }, transfer);
    });
  await call('open');
  if (mode === 'full') {
    for (let i = 0; i < 8; i++) {
      const content = randomBytes(COPY);
      const bytes = new Uint8Array(content.buffer, content.byteOffset, content.length);
      // randomBytes of this size has its own ArrayBuffer: transfer it, as encodeContent does with parts.
      await call('retain', { outputId: `out_${String(i).padStart(24, '0')}`, bytes }, [bytes.buffer]);
      await call('checkpoint');
    }
  }
  let outcome = {};
  if (mode !== 'empty') outcome = await call('reads');
  await call('close');
  await worker.terminate();
  const hwmKiB = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))[1]);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  process.stdout.write(`${JSON.stringify({ hwmKiB, maxRssKiB: process.resourceUsage().maxRSS, ms, ...outcome })}\n`);
} else {
  const { design, file } = workerData;
  let store;
  const ops = {
    open: async () => {
      store = await openDesign(design, file);
    },
    retain: ({ outputId, bytes }) => store.retain(outputId, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)),
    checkpoint: () => {
      store.checkpoint();
      globalThis.gc?.();
    },
    reads: () => {
      const copies = store.list();
      let fetched = 0;
      for (const { id, total_bytes: total } of copies)
        for (const start of [0, Math.floor(total / 2)])
          for (let page = 0; page < 4; page++)
            fetched += store.bytes(id, start + page * PAGE, Math.min(total, start + (page + 1) * PAGE)).length;
      for (const { id, total_bytes: total } of [copies[0], copies.at(-1)])
        for (let at = 0; at < total; at += MiB) fetched += store.bytes(id, at, Math.min(total, at + MiB)).length;
      return { outputs: copies.length, retainedBytes: copies.reduce((sum, c) => sum + c.total_bytes, 0), fetched };
    },
    close: () => store?.close(),
  };
  parentPort.on('message', async ({ id, op, ...args }) => {
    try {
      parentPort.postMessage({ id, result: await ops[op](args) });
    } catch (error) {
      parentPort.postMessage({ id, error: String(error?.stack ?? error) });
    }
  });
}
