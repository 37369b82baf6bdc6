// The store caps a whole copy with bytes.ts's capBytes; a capture's sink caps a stream as it comes
// (HeadTailBuffer). A copy cut at either place must hold the same bytes.
import assert from 'node:assert/strict';
import { capBytes, toBuffer } from '../../src/core/bytes';
import { HeadTailBuffer } from '../../src/core/capture/headTailBuffer';

/** Deterministic text of ASCII and 2-, 3- and 4-byte characters, so cuts fall inside characters too. */
function text(length: number, seed: number): Buffer {
  const pieces = ['a', 'line\n', 'é', '€', '😀', 'Ж', '\n'];
  let state = seed;
  const out: string[] = [];
  let bytes = 0;
  while (bytes < length) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    const piece = pieces[state % pieces.length];
    out.push(piece);
    bytes += Buffer.byteLength(piece);
  }
  return Buffer.from(out.join('')).subarray(0, length);
}

describe('bytes: capBytes cuts a whole buffer as a capture sink cuts the stream', () => {
  it('within the cap: the same bytes, as a view', () => {
    const bytes = new Uint8Array(Buffer.from('hello'));
    const capped = capBytes(bytes, 4096);
    assert.deepEqual({ ...capped, bytes: capped.bytes.toString() }, { bytes: 'hello', totalBytes: 5, droppedBytes: 0, complete: true });
    assert.equal(capped.bytes.buffer, bytes.buffer);
    assert.equal(toBuffer(capped.bytes), capped.bytes);
  });

  it('past the cap: what a HeadTailBuffer of that cap keeps, written in any chunks', () => {
    for (const cap of [1024, 1025, 4096, 5000])
      for (const length of [cap + 1, cap + 3, cap + 700, 3 * cap + 11])
        for (const seed of [1, 2, 3, 4, 5]) {
          const bytes = text(length, seed);
          const sink = new HeadTailBuffer(cap);
          for (let at = 0; at < length; at += 97 * seed) sink.write(bytes.subarray(at, at + 97 * seed));
          assert.deepEqual(capBytes(bytes, cap), sink.finish(), `cap ${cap}, ${length} bytes, seed ${seed}`);
        }
  });

  it('refuses a cap too small for the marker, as the sink does', () => {
    assert.throws(() => capBytes(Buffer.alloc(2000), 1000), RangeError);
    assert.throws(() => new HeadTailBuffer(1000), RangeError);
  });
});
