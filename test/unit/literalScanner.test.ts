// The literal scanners decode their bytes a 64 KiB slice at a time (src/core/search/scanners.ts):
// every occurrence they report is the one a single global pass over the whole text reports, for
// occurrences across a slice's edge, back to back and overlapping, ASCII and folded characters.
import assert from 'node:assert/strict';
import { caseVariants, literalScanner } from '../../src/core/search/scanners';
import { makeRng, seedFromEnv } from './helpers/prng';

const KiB = 1024;

/** Every occurrence a scanner reports, as the engine asks for them (each from the last one + 1). */
function scanAll(bytes: Buffer, literals: string[], caseSensitive: boolean): number[] {
  const scanner = literalScanner(bytes, literals, caseSensitive);
  const found: number[] = [];
  for (let hit = scanner.find(0); hit >= 0; hit = scanner.find(hit + 1)) found.push(hit);
  return found;
}

/** One global pass over the whole text, as the scanner did before it sliced (byte offsets). */
function onePass(bytes: Buffer, literals: string[], caseSensitive: boolean): number[] {
  const text = bytes.toString('latin1');
  const escape = (literal: string): string =>
    [...Buffer.from(literal, 'utf8')].map((byte) => `\\x${byte.toString(16).padStart(2, '0')}`).join('');
  // The literals here are ASCII, whose folding is JavaScript's non-Unicode `i`.
  const regex = new RegExp(literals.map(escape).join('|'), caseSensitive ? 'g' : 'gi');
  return [...text.matchAll(regex)].map((match) => match.index ?? -1);
}

describe('literal scanners over 64 KiB slices', () => {
  const seed = seedFromEnv(7);

  it('report exactly what one pass over the whole text reports, wherever the occurrences fall', () => {
    const rng = makeRng(seed);
    for (let round = 0; round < 60; round++) {
      const literals = rng.pick([['aa'], ['abab'], ['needle'], ['needle', 'edl'], ['x-y_z', 'Zq']]);
      const size = rng.int(1, 5) * 64 * KiB + rng.int(-40, 40);
      const bytes = Buffer.alloc(Math.max(1, size), 0x2e);
      // Occurrences at and around each slice edge, back to back and overlapping, and at random.
      const spots = [0, size - 12];
      for (let edge = 64 * KiB; edge < size; edge += 64 * KiB) spots.push(edge - rng.int(0, 8), edge - 1, edge);
      for (let i = 0; i < 30; i++) spots.push(rng.int(0, size - 1));
      for (const at of spots) {
        const literal = rng.pick(literals);
        const text = rng.chance(0.3) ? literal.repeat(rng.int(2, 4)) : rng.chance(0.5) ? literal.toUpperCase() : literal;
        if (at >= 0 && at < bytes.length) bytes.write(text.slice(0, bytes.length - at), at, 'latin1');
      }
      // (One case-sensitive literal is Buffer.indexOf over the bytes, not sliced.)
      for (const caseSensitive of literals.length > 1 ? [true, false] : [false]) {
        const whole = onePass(bytes, literals, caseSensitive);
        assert.deepEqual(
          scanAll(bytes, literals, caseSensitive),
          whole,
          `seed ${seed} round ${round} ${literals.join(',')} ${caseSensitive}`,
        );
      }
    }
  });

  it('finds a folded character whose UTF-8 bytes cross a slice edge', () => {
    const bytes = Buffer.alloc(128 * KiB, 0x2e);
    const at = 64 * KiB - 1;
    bytes.write('Straße', at - 4, 'utf8');
    assert.deepEqual(scanAll(bytes, ['STRASSE'.slice(0, 4) + 'ße'], false), [at - 4]);
  });
});

// Over a window of at least two slices a scanner skips, undecoded, the slices before the next place
// one of its literals' anchors occurs (a few characters, as the byte strings of their case
// variants, found by Buffer.indexOf); it decides by how often the anchors' first bytes occur. Either
// way it reports what one pass reports: checked here against JavaScript's `iu` folding (RE2's, see
// searchEngine.test.ts) over well-formed text, with characters whose variants differ in length.
describe('literal scanners skipping to their anchors', () => {
  const seed = seedFromEnv(11);

  /** One `iu` (or `u`) pass over the text, as byte offsets. */
  function onePassFolded(text: string, literals: string[], caseSensitive: boolean): number[] {
    const escape = (literal: string): string => literal.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
    const regex = new RegExp(literals.map(escape).join('|'), caseSensitive ? 'gu' : 'giu');
    const offsets: number[] = [];
    let chars = 0;
    let bytes = 0;
    for (const match of text.matchAll(regex)) {
      bytes += Buffer.byteLength(text.slice(chars, match.index));
      chars = match.index;
      offsets.push(bytes);
    }
    return offsets;
  }

  /** The literal with each character replaced by one of its case variants (RE2's folding). */
  const variantOf = (rng: ReturnType<typeof makeRng>, literal: string): string =>
    [...literal].map((char) => rng.pick(caseVariants(char))).join('');

  it('report exactly what one pass reports, over sparse and dense text, wherever the occurrences fall', () => {
    const rng = makeRng(seed);
    const characters = [...'abcdefghijklmnopqrstuvwxyz0123456789 =_-\n'];
    const filler = Array.from({ length: 256 * KiB }, () => rng.pick(characters)).join('');
    const sparse = Array.from({ length: 256 * KiB }, () => (rng.chance(0.02) ? '\n' : '.')).join('');
    const sets = [
      ['settlement_ref=ZX9-7F3A-END'],
      ['settlement_ref='],
      ['kiss_9x'], // K and s have 3-byte and 2-byte variants: the bytes before the anchor vary
      ['Straße-7'],
      ['needle', 'edl'],
      ['x-y_z', 'Zq'],
      ['ab'],
      ['ſk'],
      ['Σ=σ'],
    ];
    for (let round = 0; round < 40; round++) {
      const literals = rng.pick(sets);
      const dense = rng.chance(0.3);
      const size = rng.int(128 * KiB, 640 * KiB);
      const pieces: string[] = [];
      let length = 0;
      const fill = (count: number): void => {
        const from = rng.int(0, filler.length - count);
        pieces.push((dense ? filler : sparse).slice(from, from + count));
        length += count;
      };
      while (length < size) {
        const literal = rng.pick(literals);
        // Whole, repeated, or cut short (an anchor's bytes with no match around them).
        const variant = variantOf(rng, literal);
        const spelt = rng.chance(0.2)
          ? variant.repeat(rng.int(2, 3))
          : rng.chance(0.3)
            ? [...variant].slice(0, rng.int(1, [...variant].length - 1)).join('')
            : variant;
        // Across a slice edge, right after the last one, or anywhere ahead.
        const edge = (Math.floor(length / (64 * KiB)) + 1) * 64 * KiB - rng.int(0, Buffer.byteLength(spelt));
        const gap = rng.pick([Math.min(Math.max(0, edge - length), 100 * KiB), 0, rng.int(0, 200), rng.int(0, 100 * KiB)]);
        fill(gap);
        pieces.push(spelt);
        length += Buffer.byteLength(spelt);
      }
      const text = pieces.join('');
      const bytes = Buffer.from(text, 'utf8');
      for (const caseSensitive of literals.length > 1 ? [true, false] : [false]) {
        assert.deepEqual(
          scanAll(bytes, literals, caseSensitive),
          onePassFolded(text, literals, caseSensitive),
          `seed ${seed} round ${round} ${literals.join(',')} ${caseSensitive} dense ${dense}`,
        );
      }
    }
  });

  it('decodes only the slice where the one occurrence of 4 MiB is, when the anchors are rare', () => {
    const bytes = Buffer.alloc(4 * 1024 * KiB, '0123 abc.\n');
    const at = bytes.length - 100;
    bytes.write('total SETTLEMENT_REF=zx9-7f3a-end', at - 6, 'latin1');
    const decoded: number[] = [];
    const toString = Buffer.prototype.toString as (this: Buffer, encoding?: string, start?: number, end?: number) => string;
    Buffer.prototype.toString = function (this: Buffer, encoding?: BufferEncoding, start?: number, end?: number): string {
      if (encoding === 'latin1') decoded.push(Number(start));
      return toString.call(this, encoding, start, end);
    };
    try {
      assert.deepEqual(scanAll(bytes, ['settlement_ref=ZX9-7F3A-END'], false), [at]);
    } finally {
      Buffer.prototype.toString = toString;
    }
    assert.equal(decoded.length, 1, `decoded slices at ${decoded.join(', ')}`);
  });
});
