import assert from 'node:assert/strict';
import { capBytes, gapMarker } from '../../src/core/bytes';
import { HeadTailBuffer, StreamCounter } from '../../src/core/capture/headTailBuffer';
import { LineTally } from '../../src/core/previewSource';
import { decode, mixedBytes, mixedText } from './helpers/mixedText';
import { makeRng, seedFromEnv } from './helpers/prng';

/** Checks a finished buffer against everything that was written. */
function assertCapped(
  written: Buffer,
  result: ReturnType<HeadTailBuffer['finish']>,
  cap: number,
  context = '',
): { head: Buffer; marker: Buffer; tail: Buffer } {
  assert.equal(result.totalBytes, written.length, context);
  assert.ok(result.bytes.length <= cap, `${result.bytes.length} bytes exceed the cap ${cap}; ${context}`);
  if (written.length <= cap && result.complete) {
    assert.deepEqual(result.bytes, written, context);
    assert.equal(result.droppedBytes, 0);
    assert.equal(result.gapOffset, undefined);
    return { head: written, marker: Buffer.alloc(0), tail: Buffer.alloc(0) };
  }
  assert.equal(result.complete, false, context);
  assert.ok(result.gapOffset !== undefined, context);
  const head = result.bytes.subarray(0, result.gapOffset);
  const marker = Buffer.from(gapMarker(result.droppedBytes, result.totalBytes));
  assert.deepEqual(
    result.bytes.subarray(result.gapOffset, result.gapOffset + marker.length),
    marker,
    `the gap marker sits at gapOffset; ${context}`,
  );
  const tail = result.bytes.subarray(result.gapOffset + marker.length);
  assert.deepEqual(head, written.subarray(0, head.length), `head is the written prefix; ${context}`);
  assert.deepEqual(tail, written.subarray(written.length - tail.length), `tail is the written suffix; ${context}`);
  assert.equal(result.droppedBytes, written.length - head.length - tail.length, `dropped count; ${context}`);
  assert.ok(result.droppedBytes > 0);
  return { head, marker, tail };
}

describe('HeadTailBuffer', () => {
  it('keeps everything while under the cap', () => {
    const sink = new HeadTailBuffer(4096);
    sink.write(Buffer.from('hello '));
    sink.write(Buffer.from('world'));
    assert.equal(sink.totalBytes, 11);
    const result = sink.finish();
    assert.deepEqual(result, { bytes: Buffer.from('hello world'), totalBytes: 11, droppedBytes: 0, complete: true });
  });

  it('keeps head and tail around a gap marker past the cap, with totals, dropped count and gapOffset', () => {
    const cap = 4096;
    const written = Buffer.from(Array.from({ length: 2000 }, (_, i) => `${i}\n`).join(''));
    const sink = new HeadTailBuffer(cap);
    for (let at = 0; at < written.length; at += 77) sink.write(written.subarray(at, at + 77));
    const result = sink.finish();
    const { head, tail, marker } = assertCapped(written, result, cap);
    assert.match(marker.toString(), /\d+ bytes of \d+ were dropped here.*complete=false/);
    assert.ok(head.length > 1500 && tail.length > 1500, `head ${head.length}, tail ${tail.length}`);
    assert.equal(result.gapOffset, head.length);
  });

  it('handles one write far larger than the cap, and exactly the cap', () => {
    const cap = 2048;
    const big = Buffer.alloc(1_000_000, 'a');
    big.write('START', 0);
    big.write('END', big.length - 3);
    const sink = new HeadTailBuffer(cap);
    sink.write(big);
    const result = sink.finish();
    const { head, tail } = assertCapped(big, result, cap);
    assert.ok(head.toString().startsWith('START'));
    assert.ok(tail.toString().endsWith('END'));
    const exact = new HeadTailBuffer(cap);
    exact.write(Buffer.alloc(cap, 'b'));
    // The cap counts the marker's reserve, so exactly `cap` bytes of input already drop some.
    assertCapped(Buffer.alloc(cap, 'b'), exact.finish(), cap);
  });

  it('never splits a character at the gap', () => {
    const seed = seedFromEnv(31337);
    const rng = makeRng(seed);
    for (let round = 0; round < 200; round++) {
      const cap = rng.int(1024, 6000);
      const written = Buffer.from(mixedText(rng, rng.int(cap - 500, cap * 4)));
      const sink = new HeadTailBuffer(cap);
      for (let at = 0; at < written.length;) {
        const size = rng.int(1, rng.chance(0.2) ? 5000 : 40);
        sink.write(written.subarray(at, at + size));
        at += size;
      }
      const result = sink.finish();
      const context = `seed ${seed}, round ${round}, cap ${cap}, ${written.length} bytes`;
      assertCapped(written, result, cap, context);
      assert.ok(!decode(result.bytes).includes('\uFFFD'), `a character was split; ${context}`);
    }
  });

  it('counts binary input exactly and never exceeds the cap', () => {
    const rng = makeRng(seedFromEnv(4));
    for (let round = 0; round < 50; round++) {
      const cap = rng.int(1024, 5000);
      const written = Buffer.from(mixedBytes(rng, rng.int(0, 20_000), 0.5));
      const sink = new HeadTailBuffer(cap);
      for (let at = 0; at < written.length; at += 100) sink.write(written.subarray(at, at + 100));
      assertCapped(written, sink.finish(), cap, `round ${round}`);
    }
  });

  it('summary() reports what finish() would, without building the bytes', () => {
    for (const size of [0, 100, 4096, 4097, 5000, 40_000]) {
      const sink = new HeadTailBuffer(4096);
      sink.write(Buffer.from('é😀a'.repeat(Math.ceil(size / 7))).subarray(0, size));
      const { totalBytes, droppedBytes, complete } = sink.finish();
      assert.deepEqual(sink.summary(), { totalBytes, droppedBytes, complete }, `size ${size}`);
    }
  });

  it('StreamCounter counts a stream as a sink of the same cap would, without keeping it', () => {
    const seed = seedFromEnv(2718);
    const rng = makeRng(seed);
    for (let round = 0; round < 300; round++) {
      const cap = rng.int(1024, 6000);
      // Text, binary and ASCII runs between characters, so the cut lands on every kind of byte.
      const written = Buffer.from(
        rng.chance(0.3) ? mixedBytes(rng, rng.int(0, cap * 4), 0.5) : mixedText(rng, rng.int(cap - 500, cap * 4)),
      );
      const sink = new HeadTailBuffer(cap);
      const count = new StreamCounter(cap);
      for (let at = 0; at < written.length;) {
        const size = rng.int(1, rng.chance(0.2) ? cap * 2 : 40);
        sink.write(written.subarray(at, at + size));
        count.write(written.subarray(at, at + size));
        at += size;
      }
      assert.deepEqual(count.summary(), sink.summary(), `seed ${seed}, round ${round}, cap ${cap}, ${written.length} bytes`);
    }
  });

  it('rejects a cap too small for the marker', () => {
    assert.throws(() => new HeadTailBuffer(1023), RangeError);
    assert.throws(() => new HeadTailBuffer(2048.5), RangeError);
  });
});

describe('capBytes', () => {
  it('returns content within the cap as is', () => {
    const bytes = new TextEncoder().encode('日本語');
    const result = capBytes(bytes, 4096);
    assert.equal(result.complete, true);
    assert.equal(result.droppedBytes, 0);
    assert.equal(result.totalBytes, 9);
    assert.deepEqual(Buffer.from(result.bytes), Buffer.from(bytes));
  });

  it('caps larger content like a stream: head, marker, tail, counts', () => {
    const written = Buffer.from('😀'.repeat(10_000));
    const result = capBytes(written, 4096);
    assertCapped(written, result, 4096);
    assert.ok(!decode(result.bytes).includes('\uFFFD'));
    assert.equal(result.totalBytes, 40_000);
  });
});

describe('HeadTailBuffer: what a capture hands on', () => {
  it('counts the line facts of the kept bytes: as written while it keeps them all, else in the finished bytes', () => {
    for (const length of [0, 1, 5000, 16 * 1024, 40_000, 70_000, 300_000]) {
      const written = Buffer.from(mixedBytes(makeRng(length + 7), length)).subarray(0, length);
      const sink = new HeadTailBuffer(64 * 1024, { lines: true });
      for (let at = 0; at < length; at += 997) sink.write(written.subarray(at, at + 997));
      const finished = sink.finish();
      assert.deepEqual(finished.lines, new LineTally().write(finished.bytes).facts(), `${length} bytes`);
      assert.equal(new HeadTailBuffer(64 * 1024).finish().lines, undefined, 'counted only when asked');
    }
  });

  it('builds the same bytes again, with the same digest of what it dropped', () => {
    const sink = new HeadTailBuffer(4096, { notable: 'command', lines: true });
    sink.write(Buffer.from(Array.from({ length: 2000 }, (_, i) => (i === 900 ? 'ERROR: boom\n' : `line ${i}\n`)).join('')));
    const first = sink.finish();
    const again = sink.finish();
    assert.ok(first.dropped && first.dropped.counts.error === 1);
    assert.deepEqual(again, first);
  });

  it('hands out views of any range of the stream while it has dropped nothing', () => {
    const written = Buffer.from(mixedBytes(makeRng(11), 4000)).subarray(0, 4000);
    const sink = new HeadTailBuffer(4096);
    sink.write(written);
    const rng = makeRng(12);
    for (let i = 0; i < 50; i++) {
      const from = rng.int(0, 4000);
      const to = rng.int(from, 4000);
      assert.deepEqual(Buffer.concat(sink.kept(from, to)), written.subarray(from, to));
    }
    sink.write(Buffer.alloc(200));
    assert.throws(() => sink.kept(0, 1), RangeError);
  });
});
