// stderr's bytes are held once (capture/stderrCopy.ts): as spans of the merged copy while it keeps
// every byte, in a sink of their own after. Either way they are what a sink of stderr alone keeps.
import assert from 'node:assert/strict';
import { HeadTailBuffer } from '../../src/core/capture/headTailBuffer';
import { StderrCopy } from '../../src/core/capture/stderrCopy';
import { mixedBytes } from './helpers/mixedText';
import { makeRng } from './helpers/prng';

/** Interleaves chunks of stdout and stderr as a capture writes them; returns stderr's copy and its own sink beside it. */
function capture(seed: number, mergedCap: number, streamCap: number, chunks: number, maxChunk: number) {
  const rng = makeRng(seed);
  const merged = new HeadTailBuffer(mergedCap, { lines: true });
  const copy = new StderrCopy(streamCap, merged);
  const alone = new HeadTailBuffer(streamCap);
  for (let i = 0; i < chunks; i++) {
    const chunk = Buffer.from(mixedBytes(rng, rng.int(1, maxChunk)));
    if (rng.chance(0.4)) {
      copy.write(chunk);
      alone.write(chunk);
    } else {
      copy.beforeMerged(chunk.length);
    }
    merged.write(chunk);
  }
  return { copy, alone };
}

describe('StderrCopy: stderr held once', () => {
  it('within the merged cap: the spans give exactly the bytes stderr wrote', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const { copy, alone } = capture(seed, 1 << 20, 1 << 20, 200, 300);
      const { bytes, ...facts } = alone.finish();
      assert.deepEqual(copy.bytes(), bytes, `seed ${seed}`);
      assert.deepEqual(copy.summary(), { totalBytes: facts.totalBytes, droppedBytes: 0, complete: true });
    }
  });

  it('past the merged cap, and past its own: what a sink of stderr alone keeps', () => {
    for (const seed of [6, 7, 8, 9, 10]) {
      for (const streamCap of [4096, 64 * 1024]) {
        const { copy, alone } = capture(seed, 8192, streamCap, 600, 400);
        const finished = alone.finish();
        assert.deepEqual(copy.bytes(), finished.bytes, `seed ${seed}, cap ${streamCap}`);
        assert.deepEqual(copy.summary(), alone.summary());
      }
    }
  });

  it('many small interleaved chunks: stderr takes its own sink before its spans grow unbounded', () => {
    const { copy, alone } = capture(11, 8 << 20, 8 << 20, 150_000, 3);
    assert.deepEqual(copy.bytes(), alone.finish().bytes);
  });
});
