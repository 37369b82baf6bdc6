import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { CHUNK_BYTES, Codec } from '../../src/core/store/chunks';
import { inMemory } from '../../src/core/store/pendingContent';
import { PRE_ENCODED_BYTES, PreEncoder } from '../../src/core/store/preEncode';
import { openStore } from '../../src/core/store/sessionStore';
import { storedChunks } from './helpers/storedChunks';
import { useTempDirs } from './helpers/tempDirs';

const text = (bytes: number, seed = 0): Buffer => {
  const lines: string[] = [];
  for (let i = 0, size = 0; size < bytes; i++) {
    const line = `2026-12-05T03:${String(i % 60).padStart(2, '0')}:00Z WARN job ${seed}-${i} retried after ${i % 89} ms\n`;
    lines.push(line);
    size += line.length;
  }
  return Buffer.from(lines.join('')).subarray(0, bytes);
};

describe('store: chunks encoded beside the retain, written by the checkpoint', function () {
  this.timeout(60_000);
  const dirs = useTempDirs('pre-encode');

  it('keeps the deflated chunks only: a raw one is a gap the checkpoint reads back, incompressible bytes keep nothing', async () => {
    const encoder = new PreEncoder();
    const mixed = inMemory(Buffer.concat([text(CHUNK_BYTES), randomBytes(CHUNK_BYTES), text(CHUNK_BYTES)]));
    const mixedEncoding = encoder.start(Buffer.from(mixed.read(0, mixed.length)), () => []);
    encoder.attach(mixed, mixedEncoding);
    const chunks = await encoder.take(mixed);
    assert.deepEqual(
      chunks?.map((chunk) => chunk?.codec),
      [Codec.Deflate, undefined, Codec.Deflate],
    );
    assert.equal(await encoder.take(mixed), undefined, 'taken once');
    const random = inMemory(randomBytes(3 * CHUNK_BYTES));
    encoder.attach(
      random,
      encoder.start(Buffer.from(random.read(0, random.length)), () => []),
    );
    assert.equal(await encoder.take(random), undefined, 'nothing deflated: the checkpoint reads the copy back as before');
    assert.equal(await encoder.take(inMemory(text(10))), undefined, 'a copy never started: encoded by its checkpoint');
  });

  it(`holds at most ${PRE_ENCODED_BYTES / 1048576} MiB of deflated chunks over the pending copies; past it a copy is left to its checkpoint`, async () => {
    const encoder = new PreEncoder();
    const pending: ReturnType<typeof inMemory>[] = [];
    let kept = 0;
    let refused = 0;
    // Random hex deflates only to about half: a few copies fill the bound.
    for (let i = 0; i < 8; i++) {
      const copy = inMemory(Buffer.from(randomBytes(2 * 1048576).toString('hex')));
      const encoding = encoder.start(Buffer.from(copy.read(0, copy.length)), () => pending);
      encoder.attach(copy, encoding);
      const held = await encoding;
      pending.push(copy);
      if (held.chunks) kept += held.bytes;
      else refused++;
    }
    assert.ok(kept <= PRE_ENCODED_BYTES, `${kept} bytes held`);
    assert.ok(refused > 0, 'later copies are left to the checkpoint');
    // Taken by a checkpoint, a copy's chunks leave the bound: the next one is kept again.
    for (const copy of pending) await encoder.take(copy);
    const next = inMemory(Buffer.from(randomBytes(1048576).toString('hex')));
    assert.ok((await encoder.start(Buffer.from(next.read(0, next.length)), () => pending)).chunks);
  });

  it('a checkpoint after encoded() writes deflated chunks that read back byte for byte; a copy removed meanwhile is gone', async () => {
    const dir = dirs.make();
    const store = await openStore({ dir, checkpoints: 'manual' });
    const logs = text(5 * CHUNK_BYTES + 123, 1);
    const alternating = Buffer.concat([text(CHUNK_BYTES, 2), randomBytes(2 * CHUNK_BYTES), text(CHUNK_BYTES, 3)]);
    const kept = (await store.retain(logs)).outputId;
    const mixed = (await store.retain(alternating)).outputId;
    const removed = (await store.retain(text(3 * CHUNK_BYTES, 4))).outputId;
    await store.remove(removed);
    await store.encoded();
    await store.flush();
    const chunks = await storedChunks(store.file);
    const codecs = (id: string): number[] => chunks.filter((chunk) => chunk.output_id === id).map((chunk) => chunk.codec);
    assert.deepEqual(codecs(kept), [1, 1, 1, 1, 1, 1]);
    assert.deepEqual(codecs(mixed), [1, 0, 0, 1]);
    assert.deepEqual(codecs(removed), []);
    await store.close();
    const reopened = await openStore({ dir, sessionId: store.sessionId, checkpoints: 'manual' });
    assert.deepEqual(await reopened.readAll(kept), logs);
    assert.deepEqual(await reopened.readAll(mixed), alternating);
    await assert.rejects(reopened.read(removed, 0), { code: 'NOT_FOUND' });
    await reopened.close();
  });
});
