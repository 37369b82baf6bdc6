import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { MessageChannel } from 'node:worker_threads';
import { KiB, MiB } from '../../src/core/limits';
import { CHUNK_BYTES } from '../../src/core/store/chunks';
import { openStore, STORE_ENGINES } from '../../src/core/workers/stores';
import { serveStores } from '../../src/core/store/serveStores';
import type { WorkerReply } from '../../src/core/worker/reply';
import { storedChunks } from './helpers/storedChunks';
import { useTempDirs } from './helpers/tempDirs';

const logText = (bytes: number): Buffer => {
  const lines: string[] = [];
  for (let i = 0, size = 0; size < bytes; i++) {
    const line = `2026-12-04T18:${String(i % 60).padStart(2, '0')}:00Z INFO request ${i} served in ${i % 97} ms\n`;
    lines.push(line);
    size += line.length;
  }
  return Buffer.from(lines.join('')).subarray(0, bytes);
};

describe('store: how a checkpoint encodes chunks (deflated, or raw when deflate does not pay)', function () {
  this.timeout(30_000);
  const dirs = useTempDirs('chunk-codec');

  it('text is deflated, incompressible bytes and a chunk whose start is incompressible are stored raw; all read back byte for byte', async () => {
    const dir = dirs.make();
    const store = await openStore({ dir, checkpoints: 'manual' });
    const text = logText(3 * CHUNK_BYTES + 1000);
    const random = randomBytes(2 * CHUNK_BYTES + 7);
    // Its first 4 KiB (the sample) incompressible, the rest text: stored raw, larger than it could be.
    const mixed = Buffer.concat([randomBytes(4 * KiB), logText(CHUNK_BYTES - 4 * KiB)]);
    // Text, then incompressible chunks (the first tried whole, the next only sampled), then text again, and base64 (6 bits a byte: deflates).
    const alternating = Buffer.concat([logText(CHUNK_BYTES), randomBytes(2 * CHUNK_BYTES), logText(CHUNK_BYTES)]);
    const base64 = Buffer.from(randomBytes(CHUNK_BYTES).toString('base64')).subarray(0, CHUNK_BYTES);
    const ids = {
      alternating: (await store.retain(alternating)).outputId,
      base64: (await store.retain(base64)).outputId,
      text: (await store.retain(text)).outputId,
      random: (await store.retain(random)).outputId,
      mixed: (await store.retain(mixed)).outputId,
    };
    await store.flush();
    const codecs = (outputId: string, chunks: Awaited<ReturnType<typeof storedChunks>>): number[] =>
      chunks.filter((chunk) => chunk.output_id === outputId).map((chunk) => chunk.codec);
    const chunks = await storedChunks(store.file);
    assert.deepEqual(codecs(ids.text, chunks), [1, 1, 1, 1], 'text: deflated');
    assert.deepEqual(codecs(ids.random, chunks), [0, 0, 0], 'random: raw');
    assert.deepEqual(codecs(ids.mixed, chunks), [0], 'an incompressible sample: raw');
    assert.deepEqual(codecs(ids.alternating, chunks), [1, 0, 0, 1], 'each chunk on its own merits');
    assert.deepEqual(codecs(ids.base64, chunks), [1], 'base64: deflated');
    assert.deepEqual(await store.readAll(ids.alternating), alternating);
    assert.deepEqual(await store.readAll(ids.text), text);
    assert.deepEqual(await store.readAll(ids.random), random);
    assert.deepEqual(await store.readAll(ids.mixed), mixed);
    assert.equal(
      (await store.read(ids.text, 2 * CHUNK_BYTES - 10, 100)).text,
      text.toString('utf8', 2 * CHUNK_BYTES - 10, 2 * CHUNK_BYTES + 90),
    );
    await store.close();
    // Reopened: read from the segments alone.
    const reopened = await openStore({ dir, sessionId: store.sessionId, checkpoints: 'manual' });
    assert.deepEqual(await reopened.readAll(ids.text), text);
    assert.deepEqual(await reopened.readAll(ids.random), random);
    await reopened.close();
  });

  it('a copy larger than a checkpoint reads back at once is written window by window into the same chunks', async () => {
    const dir = dirs.make();
    const store = await openStore({ dir, checkpoints: 'manual' });
    const bytes = Buffer.concat([randomBytes(1 * MiB + 5), logText(1 * MiB + 3 * KiB)]);
    const { outputId } = await store.retain(bytes);
    await store.flush();
    const chunks = (await storedChunks(store.file)).filter((chunk) => chunk.output_id === outputId);
    assert.deepEqual(
      chunks.map((chunk) => chunk.idx),
      Array.from({ length: Math.ceil(bytes.length / CHUNK_BYTES) }, (_, i) => i),
      'every chunk once, in order, across the 1 MiB windows',
    );
    assert.deepEqual(await store.readAll(outputId), bytes);
    await store.delete();
  });
});

describe('store worker: slices written into the buffer the caller sends', function () {
  this.timeout(30_000);
  const dirs = useTempDirs('slice-into');

  /** A store worker's request handling on one end of a real MessageChannel; `call` sends on the other. */
  function worker(): { call(request: Record<string, unknown>, transfer?: ArrayBuffer[]): Promise<WorkerReply>; close(): void } {
    const { port1, port2 } = new MessageChannel();
    serveStores(port1, STORE_ENGINES);
    let nextId = 1;
    const waiting = new Map<number, (reply: WorkerReply) => void>();
    port2.on('message', (reply: WorkerReply) => waiting.get(reply.id)?.(reply));
    return {
      call: (request, transfer) =>
        new Promise((resolve) => {
          const id = nextId++;
          waiting.set(id, resolve);
          port2.postMessage({ id, ...request }, transfer);
        }),
      close: () => {
        port1.close();
        port2.close();
      },
    };
  }

  it('fills the buffer at the offset and sends it back; a buffer of the wrong size is INVALID_ARGUMENT saying what it must be', async () => {
    const w = worker();
    try {
      const opened = await w.call({ op: 'open', args: [{ dir: dirs.make(), checkpoints: 'manual' }] });
      assert.ok(opened.ok);
      const { handle } = opened.result as { handle: number };
      const bytes = randomBytes(3 * CHUNK_BYTES);
      const retained = await w.call({ op: 'retain', handle, args: [new Uint8Array(bytes)] });
      assert.ok(retained.ok);
      const { outputId } = retained.result as { outputId: string };
      const into = new Uint8Array(bytes.length);
      const filled = await w.call({ op: 'slice', handle, args: [outputId, CHUNK_BYTES, 2 * CHUNK_BYTES, into] }, [into.buffer]);
      assert.ok(filled.ok);
      const back = (filled.result as { bytes: Uint8Array }).bytes;
      assert.equal(back.length, bytes.length);
      assert.deepEqual(Buffer.from(back.subarray(CHUNK_BYTES, 2 * CHUNK_BYTES)), bytes.subarray(CHUNK_BYTES, 2 * CHUNK_BYTES));
      assert.ok(
        back.subarray(0, CHUNK_BYTES).every((byte) => byte === 0),
        'the rest of the buffer untouched',
      );
      const wrong = await w.call({ op: 'slice', handle, args: [outputId, 0, CHUNK_BYTES, new Uint8Array(10)] });
      assert.ok(!wrong.ok);
      assert.equal(wrong.error.code, 'INVALID_ARGUMENT');
      assert.match(wrong.error.message, new RegExp(`"into" must be a Uint8Array of the copy's ${bytes.length} bytes`));
      await w.call({ op: 'close', handle, args: [] });
    } finally {
      w.close();
    }
  });
});
