// The literal scanners decode their bytes a 64 KiB slice at a time (src/core/search/scanners.ts):
// every occurrence they report is the one a single global pass over the whole text reports, for
// occurrences across a slice's edge, back to back and overlapping, ASCII and folded characters.
import assert from 'node:assert/strict';
import { literalScanner } from '../../src/core/search/scanners';
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
