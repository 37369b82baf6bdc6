import assert from 'node:assert/strict';
import { openStore } from '../../src/core/workers/stores';
import { CHUNK_BYTES } from '../../src/core/store/chunks';
import { useTempDirs } from './helpers/tempDirs';

describe('chunk reader cache', () => {
  const dirs = useTempDirs('chunk-reader');

  it('a read across two chunks, one cached and about to be pushed out of the cache, reads both', async () => {
    const store = await openStore({ dir: dirs.make(), checkpoints: 'manual' });
    try {
      // 20 chunks, each filled with its own letter, stored in the session file's chunk rows.
      const bytes = Buffer.concat(Array.from({ length: 20 }, (_, i) => Buffer.alloc(CHUNK_BYTES, 97 + i)));
      const { outputId } = await store.retain(bytes);
      await store.flush();
      // Chunk 1 first, then seven others: the 8-entry cache holds 1 as its oldest entry.
      for (const chunk of [1, 10, 11, 12, 13, 14, 15, 16]) await store.read(outputId, chunk * CHUNK_BYTES + 100, 16);
      // A page from the end of chunk 0 into chunk 1: caching 0 pushes 1 out while the read needs it.
      const page = await store.read(outputId, CHUNK_BYTES - 8, 16);
      assert.equal(page.text, `${'a'.repeat(8)}${'b'.repeat(8)}`);
    } finally {
      await store.close();
    }
  });
});
