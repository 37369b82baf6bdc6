import assert from 'node:assert/strict';
import {
  boundaryAtOrAfter,
  boundaryAtOrBefore,
  countNewlines,
  decodeUtf8,
  isUnitBoundary,
  lastCompleteBoundary,
  pageCut,
  unitAround,
  unitLengthAt,
  rejectMidCharacter,
} from '../../src/core/utf8';
import { throwsWith } from './helpers/assertions';
import { boundarySet, decode, isBoundaryOracle, mixedBytes } from './helpers/mixedText';
import { makeRng, seedFromEnv } from './helpers/prng';

const bytes = (...values: number[]): Uint8Array => Uint8Array.from(values);
const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('utf8: the test oracle itself', () => {
  it('agrees with hand-worked WHATWG decodings', () => {
    // é = C3 A9: offset 1 is inside it.
    assert.deepEqual(boundarySet(utf8('aé')), [true, true, false, true]);
    // E2 82 then 'A': one U+FFFD for the maximal subpart E2 82, so offset 1 is inside it.
    assert.equal(decode(bytes(0xe2, 0x82, 0x41)), '\uFFFDA');
    assert.deepEqual(boundarySet(bytes(0xe2, 0x82, 0x41)), [true, false, true, true]);
    // Overlong C0 80: two stray bytes, two U+FFFD, every offset a boundary.
    assert.equal(decode(bytes(0xc0, 0x80)), '\uFFFD\uFFFD');
    assert.deepEqual(boundarySet(bytes(0xc0, 0x80)), [true, true, true]);
    // Surrogate ED A0 80: three U+FFFD (A0 is outside ED's second-byte range).
    assert.equal(decode(bytes(0xed, 0xa0, 0x80)), '\uFFFD\uFFFD\uFFFD');
    assert.deepEqual(boundarySet(bytes(0xed, 0xa0, 0x80)), [true, true, true, true]);
  });
});

describe('utf8: unit boundaries match TextDecoder', () => {
  const seed = seedFromEnv(0x5eed01);

  it('isUnitBoundary, boundaryAtOrBefore/After and unitAround agree with the oracle on random mixed bytes', () => {
    const rng = makeRng(seed);
    for (let round = 0; round < 400; round++) {
      const input = mixedBytes(rng, rng.int(0, 60), rng.pick([0, 0.1, 0.5, 0.9]));
      const oracle = boundarySet(input);
      const context = `seed ${seed}, round ${round}, bytes ${Buffer.from(input).toString('hex')}`;
      for (let k = 0; k <= input.length; k++) {
        assert.equal(isUnitBoundary(input, k), oracle[k], `isUnitBoundary(${k}); ${context}`);
        let before = k;
        while (!oracle[before]) before--;
        let after = k;
        while (!oracle[after]) after++;
        assert.equal(boundaryAtOrBefore(input, k), before, `boundaryAtOrBefore(${k}); ${context}`);
        assert.equal(boundaryAtOrAfter(input, k), after, `boundaryAtOrAfter(${k}); ${context}`);
        if (k < input.length) {
          const unit = unitAround(input, k);
          assert.ok(unit.start <= k && k < unit.end, `unitAround(${k}) = [${unit.start}, ${unit.end}); ${context}`);
          assert.ok(
            oracle[unit.start] && oracle[unit.end],
            `unitAround(${k}) = [${unit.start}, ${unit.end}) not on boundaries; ${context}`,
          );
          for (let inside = unit.start + 1; inside < unit.end; inside++) assert.equal(oracle[inside], false, context);
          if (oracle[k]) assert.equal(unitLengthAt(input, k), unit.end - unit.start, context);
        }
      }
    }
  });

  it('slicing at boundaries and decoding each slice reproduces the whole decoding', () => {
    const rng = makeRng(seed + 1);
    for (let round = 0; round < 200; round++) {
      const input = mixedBytes(rng, rng.int(1, 400), 0.2);
      let text = '';
      let at = 0;
      while (at < input.length) {
        const next = boundaryAtOrAfter(input, at + rng.int(1, 9));
        text += decodeUtf8(input.subarray(at, next));
        at = next;
      }
      assert.equal(text, decode(input), `seed ${seed}, round ${round}`);
    }
  });

  it('boundary helpers clamp outside the buffer', () => {
    const input = utf8('😀');
    assert.equal(isUnitBoundary(input, -5), true);
    assert.equal(isUnitBoundary(input, 99), true);
    assert.equal(boundaryAtOrBefore(input, -1), 0);
    assert.equal(boundaryAtOrAfter(input, 99), 4);
    assert.equal(boundaryAtOrBefore(input, 2), 0);
    assert.equal(boundaryAtOrAfter(input, 2), 4);
  });
});

describe('utf8: rejectMidCharacter and pageCut (where readers start and end pages)', () => {
  const seed = seedFromEnv(0x5eed02);

  it('rejectMidCharacter throws MID_CHARACTER_OFFSET exactly inside a unit, with the boundaries either side (oracle, random mixed bytes)', () => {
    const rng = makeRng(seed);
    for (let round = 0; round < 300; round++) {
      const input = mixedBytes(rng, rng.int(0, 60), rng.pick([0, 0.1, 0.5]));
      const oracle = boundarySet(input);
      const windowStart = rng.int(0, 1000);
      const context = `seed ${seed}, round ${round}, bytes ${Buffer.from(input).toString('hex')}`;
      for (let k = -1; k <= input.length + 1; k++) {
        const check = () => rejectMidCharacter(input, k, windowStart, (before, after) => `inside [${before}, ${after})`);
        if (k <= 0 || k >= input.length || oracle[k]) {
          check();
          continue;
        }
        const before = windowStart + boundaryAtOrBefore(input, k);
        const after = windowStart + boundaryAtOrAfter(input, k);
        const error = throwsWith(check, 'MID_CHARACTER_OFFSET');
        assert.equal(error.message, `inside [${before}, ${after})`, `${k}; ${context}`);
        assert.deepEqual(error.details, { before, after }, `${k}; ${context}`);
      }
    }
  });

  it('pageCut ends at the target when it is a boundary, else before its character, but keeps one whole character', () => {
    const input = utf8('a中b'); // a = [0,1), 中 = [1,4), b = [4,5)
    assert.equal(pageCut(input, 0, 1), 1, 'a boundary');
    assert.equal(pageCut(input, 0, 2), 1, 'inside 中: back to before it');
    assert.equal(pageCut(input, 0, 3), 1);
    assert.equal(pageCut(input, 1, 2), 4, '中 is the first character of the page: past it');
    assert.equal(pageCut(input, 1, 4), 4);
  });

  it('pageCut never splits a unit and always moves forward (oracle, random mixed bytes)', () => {
    const rng = makeRng(seed + 1);
    for (let round = 0; round < 300; round++) {
      const input = mixedBytes(rng, rng.int(2, 60), rng.pick([0, 0.2]));
      const oracle = boundarySet(input);
      const start = boundaryAtOrBefore(input, rng.int(0, input.length - 2));
      const target = rng.int(start + 1, input.length - 1);
      const end = pageCut(input, start, target);
      const context = `seed ${seed}, round ${round}, start ${start}, target ${target}, bytes ${Buffer.from(input).toString('hex')}`;
      assert.ok(oracle[end] && end > start, context);
      assert.ok(end <= target || end === boundaryAtOrAfter(input, start + 1), context);
      if (oracle[target]) assert.equal(end, target, context);
    }
  });
});

describe('utf8: lastCompleteBoundary (cutting before unknown bytes)', () => {
  it('drops a sequence its lead byte says is unfinished, keeps finished ones', () => {
    const emoji = utf8('a😀');
    assert.equal(lastCompleteBoundary(emoji, 5), 5);
    for (const cut of [2, 3, 4]) assert.equal(lastCompleteBoundary(emoji, cut), 1, `cut ${cut}`);
    assert.equal(lastCompleteBoundary(emoji, 1), 1);
    assert.equal(lastCompleteBoundary(emoji, 0), 0);
    // Already-invalid bytes are kept: nothing that follows can complete them.
    assert.equal(lastCompleteBoundary(bytes(0x41, 0xff), 2), 2);
    assert.equal(lastCompleteBoundary(bytes(0x41, 0x80), 2), 2);
  });

  it('never leaves a prefix whose decoding changes when more bytes follow', () => {
    const rng = makeRng(seedFromEnv(77));
    for (let round = 0; round < 300; round++) {
      const input = mixedBytes(rng, rng.int(1, 40), 0.05);
      const cut = rng.int(0, input.length);
      const keep = lastCompleteBoundary(input, cut);
      assert.ok(keep <= cut && keep >= cut - 3, `round ${round}`);
      assert.ok(
        isBoundaryOracle(input, keep),
        `lastCompleteBoundary(${cut}) = ${keep} is inside a character; ${Buffer.from(input).toString('hex')}`,
      );
    }
  });
});

describe('utf8: countNewlines', () => {
  it('counts \\n bytes in a range, on Buffers and plain Uint8Arrays', () => {
    const text = 'a\nb\n\nc😀\n';
    assert.equal(countNewlines(utf8(text)), 4);
    assert.equal(countNewlines(Buffer.from(text)), 4);
    assert.equal(countNewlines(utf8(text), 2, 5), 2);
    assert.equal(countNewlines(utf8(text), 0, 0), 0);
  });
});
