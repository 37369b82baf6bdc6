import assert from 'node:assert/strict';
import { clampPageBytes, MIN_FIT_PAGE_BYTES, readFittingPage } from '../../src/core/pager';
import type { SessionStore } from '../../src/core/store/sessionStore';
import { openStore } from '../../src/core/workers/stores';
import type { ReadResult } from '../../src/core/types';
import { MAX_PART_BYTES } from '../../src/core/tools/parts';
import { rejectsWith, readThrough } from './helpers/assertions';
import {
  boundarySet,
  decode,
  enclosingBoundaries,
  enclosingBoundariesFrom,
  isBoundaryFrom,
  isBoundaryOracle,
  mixedBytes,
} from './helpers/mixedText';
import { makeRng, seedFromEnv, type Rng } from './helpers/prng';
import { useTempDirs } from './helpers/tempDirs';

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('pager: read(outputId, offset, maxBytes)', () => {
  const dirs = useTempDirs('pager');
  let store: SessionStore;
  before(async () => {
    store = await openStore({ dir: dirs.make() });
  });
  after(() => store.delete());

  it('pages ASCII by byte offsets with defaults offset=0, maxBytes=4096', async () => {
    const text = 'x'.repeat(10_000);
    const { outputId, totalBytes, complete } = await store.retain(text);
    assert.equal(totalBytes, 10_000);
    assert.equal(complete, true);
    const first = await store.read(outputId);
    assert.deepEqual(
      { ...first, text: first.text.length },
      { text: 4096, nextOffset: 4096, totalBytes: 10_000, hasMore: true, complete: true },
    );
    const last = await store.read(outputId, 8192);
    assert.equal(last.text.length, 10_000 - 8192);
    assert.equal(last.hasMore, false);
    assert.equal(last.nextOffset, 10_000);
  });

  it('clamps maxBytes above 4096 and rejects 0, negative and non-integer sizes', async () => {
    const { outputId } = await store.retain('y'.repeat(9000));
    const page = await store.read(outputId, 0, 1_000_000);
    assert.equal(page.nextOffset, 4096);
    assert.equal(page.text.length, 4096);
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      const error = await rejectsWith(store.read(outputId, 0, bad), 'INVALID_ARGUMENT', `maxBytes ${bad}`);
      assert.match(error.message, /maxBytes/);
    }
    for (const bad of [-1, 0.5, Number.NaN]) await rejectsWith(store.read(outputId, bad), 'INVALID_ARGUMENT', `offset ${bad}`);
    assert.equal((await store.read(outputId, 0, 1)).text, 'y');
  });

  it('returns an empty last page at offset == totalBytes and rejects offsets beyond it', async () => {
    const { outputId } = await store.retain('hello');
    assert.deepEqual(await store.read(outputId, 5), { text: '', nextOffset: 5, totalBytes: 5, hasMore: false, complete: true });
    const error = await rejectsWith(store.read(outputId, 6), 'OFFSET_OUT_OF_RANGE');
    assert.match(error.message, /5 bytes/);
    assert.equal(error.details.totalBytes, 5);
    await rejectsWith(store.read(outputId, 1_000_000), 'OFFSET_OUT_OF_RANGE');
    const empty = await store.retain('');
    assert.deepEqual(await store.read(empty.outputId), { text: '', nextOffset: 0, totalBytes: 0, hasMore: false, complete: true });
    await rejectsWith(store.read(empty.outputId, 1), 'OFFSET_OUT_OF_RANGE');
  });

  it('never ends a page inside a character, yet returns at least one whole character', async () => {
    const { outputId } = await store.retain('😀日a');
    assert.deepEqual(await store.read(outputId, 0, 1), { text: '😀', nextOffset: 4, totalBytes: 8, hasMore: true, complete: true });
    assert.equal((await store.read(outputId, 0, 3)).text, '😀');
    assert.equal((await store.read(outputId, 0, 6)).text, '😀');
    assert.equal((await store.read(outputId, 0, 7)).text, '😀日');
    assert.equal((await store.read(outputId, 4, 1)).text, '日');
    assert.deepEqual(await store.read(outputId, 7, 1), { text: 'a', nextOffset: 8, totalBytes: 8, hasMore: false, complete: true });
  });

  it('rejects an offset inside a character with both boundaries in details and message', async () => {
    const { outputId } = await store.retain('ab😀c');
    for (const inside of [3, 4, 5]) {
      const error = await rejectsWith(store.read(outputId, inside), 'MID_CHARACTER_OFFSET', `offset ${inside}`);
      assert.deepEqual(error.details, { before: 2, after: 6 });
      assert.ok(error.message.includes(`"offset":2`), error.message);
      assert.ok(error.message.includes(`"offset":6`), error.message);
      assert.ok(error.message.includes(outputId), error.message);
    }
    assert.equal((await store.read(outputId, 2)).text, '😀c');
    assert.equal((await store.read(outputId, 6)).text, 'c');
  });

  it('decodes invalid UTF-8 as U+FFFD and pages it so the pages concatenate to the whole', async () => {
    const bytes = Uint8Array.from([0x41, 0xe2, 0x82, 0x42, 0xc0, 0x80, 0xed, 0xa0, 0x80, 0xff, 0xf0, 0x9f, 0x98, 0x80, 0x80]);
    const { outputId, totalBytes } = await store.retain(bytes);
    assert.equal(totalBytes, bytes.length);
    const whole = decode(bytes);
    assert.equal(whole, 'A\uFFFDB\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD😀\uFFFD');
    for (const size of [1, 2, 3, 5]) assert.equal((await readThrough(store, outputId, () => size)).text, whole, `maxBytes ${size}`);
    // E2 82 is one unit: offset 2 is inside it.
    const error = await rejectsWith(store.read(outputId, 2), 'MID_CHARACTER_OFFSET');
    assert.deepEqual(error.details, { before: 1, after: 3 });
    // Stray continuation bytes are units of their own.
    assert.equal((await store.read(outputId, 5, 1)).text, '\uFFFD');
    assert.equal((await store.read(outputId, 14, 1)).text, '\uFFFD');
  });

  it("reports the copy's completeness on every page, not the page's", async () => {
    const small = await openStore({ dir: dirs.make(), copyBytes: 4096 });
    try {
      const { outputId, complete } = await small.retain('z'.repeat(50_000));
      assert.equal(complete, false);
      const paged = await readThrough(small, outputId, () => 1000);
      assert.ok(paged.pages.length > 1);
      for (const { page } of paged.pages) assert.equal(page.complete, false);
      const last = paged.pages[paged.pages.length - 1].page;
      assert.equal(last.hasMore, false);
      const whole = await store.retain('z'.repeat(50));
      assert.equal((await store.read(whole.outputId, 0, 10)).complete, true);
    } finally {
      await small.delete();
    }
  });

  it('reads across the 64 KiB chunk boundaries of a large copy', async () => {
    const text = Array.from({ length: 30_000 }, (_, i) => `${i}:日本😀\n`).join('');
    const { outputId, totalBytes } = await store.retain(text);
    assert.equal(totalBytes, Buffer.byteLength(text));
    const paged = await readThrough(store, outputId);
    assert.equal(paged.text, text);
    // A page that starts 1 byte before a chunk edge and spans it.
    const bytes = Buffer.from(text);
    let at = 65_536 - 1;
    while (!isBoundaryOracle(bytes.subarray(at - 8, at + 8), 8)) at--;
    const page = await store.read(outputId, at, 100);
    assert.equal(page.text, decode(bytes.subarray(at, page.nextOffset)));
    assert.ok(page.nextOffset > 65_536);
  });
});

describe('pager: property test on random mixed text with invalid bytes', function () {
  this.timeout(60_000);
  const dirs = useTempDirs('pager-prop');
  const seed = seedFromEnv(20240611);
  let store: SessionStore;
  before(async () => {
    store = await openStore({ dir: dirs.make() });
  });
  after(() => store.delete());

  const randomMaxBytes =
    (rng: Rng, tiny = 0.35) =>
    (): number => {
      const roll = rng.next();
      if (roll < tiny) return rng.int(1, 8);
      if (roll < 0.7) return rng.int(9, 600);
      if (roll < 0.9) return rng.int(601, 4096);
      return rng.int(4097, 20_000);
    };

  /**
   * Pages through, checking every page against the whole copy and the oracle. Returns the page
   * offsets: each one proven a boundary (0 is; each nextOffset is checked by decoding from the
   * page's own start, a boundary by induction).
   */
  async function checkPaging(bytes: Uint8Array, outputId: string, rng: Rng, context: string, tiny = 0.35): Promise<number[]> {
    const whole = decode(bytes);
    const size = randomMaxBytes(rng, tiny);
    const paged = await readThrough(store, outputId, size);
    assert.equal(paged.text, whole, `concatenated pages differ from TextDecoder's decoding; ${context}`);
    let expectedStart = 0;
    for (const { offset, maxBytes, page } of paged.pages) {
      assert.equal(offset, expectedStart, `pages leave a gap or overlap at ${offset}; ${context}`);
      // As long as maxBytes allows (clamped to 4096), and never less than one whole character.
      const limit = Math.min(bytes.length, offset + Math.min(maxBytes, 4096));
      if (page.nextOffset > limit) {
        for (let j = offset + 1; j < page.nextOffset; j++)
          assert.ok(
            !isBoundaryFrom(bytes, offset, j),
            `page [${offset}, ${page.nextOffset}) exceeds maxBytes ${maxBytes} by more than one character; ${context}`,
          );
      } else {
        for (let j = page.nextOffset + 1; j <= limit; j++)
          assert.ok(
            !isBoundaryFrom(bytes, offset, j),
            `page [${offset}, ${page.nextOffset}) stops before the boundary ${j} that maxBytes ${maxBytes} allows; ${context}`,
          );
      }
      assert.equal(page.totalBytes, bytes.length, context);
      assert.equal(page.complete, true, context);
      assert.equal(page.text, decode(bytes.subarray(offset, page.nextOffset)), `page [${offset}, ${page.nextOffset}) text; ${context}`);
      assert.equal(page.hasMore, page.nextOffset < bytes.length, context);
      assert.ok(isBoundaryFrom(bytes, offset, page.nextOffset), `nextOffset ${page.nextOffset} is inside a character; ${context}`);
      expectedStart = page.nextOffset;
    }
    assert.equal(expectedStart, bytes.length, `pages do not cover [0, ${bytes.length}); ${context}`);
    // Every nextOffset can itself be read (never MID_CHARACTER_OFFSET).
    for (const { page } of paged.pages) await store.read(outputId, page.nextOffset, 1);
    return paged.pages.map((p) => p.offset);
  }

  /** Reads at `k` and checks the answer against the oracle, decoding from `known`, a boundary ≤ k. */
  async function checkOffset(
    bytes: Uint8Array,
    known: number,
    outputId: string,
    k: number,
    maxBytes: number,
    context: string,
  ): Promise<void> {
    if (isBoundaryFrom(bytes, known, k)) {
      const page = await store.read(outputId, k, maxBytes);
      assert.equal(page.text, decode(bytes.subarray(k, page.nextOffset)), `offset ${k}; ${context}`);
      assert.ok(page.nextOffset > k || k === bytes.length, `offset ${k} returned no character; ${context}`);
      return;
    }
    const error = await rejectsWith(store.read(outputId, k, maxBytes), 'MID_CHARACTER_OFFSET', `offset ${k}; ${context}`);
    assert.deepEqual(error.details, enclosingBoundariesFrom(bytes, known, k), `offset ${k} boundaries; ${context}`);
  }

  it('small inputs: every offset is accepted exactly when the oracle says it is a boundary', async () => {
    const rng = makeRng(seed);
    for (let round = 0; round < 120; round++) {
      const bytes = mixedBytes(rng, rng.int(0, 120), rng.pick([0.05, 0.2, 0.6]));
      const context = `seed ${seed}, round ${round}, bytes ${Buffer.from(bytes).toString('hex')}`;
      const { outputId, totalBytes } = await store.retain(bytes);
      assert.equal(totalBytes, bytes.length, context);
      await checkPaging(bytes, outputId, rng, context);
      const whole = decode(bytes);
      const oracle = boundarySet(bytes);
      for (let k = 0; k <= bytes.length; k++) {
        await checkOffset(bytes, 0, outputId, k, rng.int(1, 6), context);
        // The windowed oracle agrees with the whole-buffer one.
        assert.equal(isBoundaryFrom(bytes, 0, k), oracle[k], context);
        if (!oracle[k]) assert.deepEqual(enclosingBoundariesFrom(bytes, 0, k), enclosingBoundaries(bytes, k, whole), context);
      }
      await rejectsWith(store.read(outputId, bytes.length + 1), 'OFFSET_OUT_OF_RANGE', context);
    }
  });

  it('larger inputs (across chunks): pages concatenate, cover the copy, and sampled offsets match the oracle', async () => {
    const rng = makeRng(seed + 1);
    for (let round = 0; round < 8; round++) {
      const bytes = mixedBytes(rng, rng.int(5_000, 150_000), rng.pick([0.02, 0.1, 0.4]));
      const context = `seed ${seed + 1}, round ${round}, ${bytes.length} bytes`;
      const { outputId } = await store.retain(bytes);
      const known = await checkPaging(bytes, outputId, rng, context, 0.05);
      for (let sample = 0; sample < 200; sample++) {
        // Bias toward chunk edges, where windows are joined.
        const k = rng.chance(0.3) ? Math.min(bytes.length, 65_536 * rng.int(1, 2) + rng.int(-4, 4)) : rng.int(0, bytes.length);
        const from = known.filter((offset) => offset <= k).pop()!;
        await checkOffset(bytes, from, outputId, k, randomMaxBytes(rng)(), context);
        // Now and then, the whole-buffer oracle confirms the windowed one.
        if (sample % 50 === 0) assert.equal(isBoundaryFrom(bytes, from, k), isBoundaryOracle(bytes, k), context);
      }
      await store.remove(outputId);
    }
  });

  it('a string retained is paged as its UTF-8 encoding', async () => {
    const text = '日本語 😀 e\u0301 '.repeat(500);
    const { outputId, totalBytes } = await store.retain(text);
    assert.equal(totalBytes, Buffer.byteLength(text));
    const rng = makeRng(seed + 2);
    assert.equal((await readThrough(store, outputId, randomMaxBytes(rng))).text, text);
    assert.ok(utf8(text).length === totalBytes);
  });
});

describe('pager: the page-size clamp', () => {
  it('gives the limit when no size is requested, and never more than 4096', () => {
    assert.equal(clampPageBytes(undefined), 4096);
    assert.equal(clampPageBytes(undefined, 1000), 1000);
    assert.equal(clampPageBytes(undefined, 100_000), 4096, 'a page setting cannot raise the largest page');
  });

  it('holds a requested size to the limit', () => {
    assert.equal(clampPageBytes(1), 1);
    assert.equal(clampPageBytes(100, 1000), 100);
    assert.equal(clampPageBytes(5000, 1000), 1000);
    assert.equal(clampPageBytes(1_000_000), 4096);
    assert.equal(clampPageBytes(1_000_000, 100_000), 4096);
  });
});

describe('pager: readFittingPage (a page whose rendering fits one result part)', () => {
  const dirs = useTempDirs('pager-fit');
  const PART_BYTES = MAX_PART_BYTES;
  // 7 bytes that JSON.stringify writes as 19: two control characters (6 each), a quote and a
  // backslash (2 each), and a CJK character (3 bytes, not escaped). 2048 is not a multiple of 7, so
  // the halved page's cut falls inside 中 and the pager must back off to a character boundary.
  const unit = '\u0001"中\\\u001f';
  const render = (page: ReadResult): string => `${JSON.stringify(page)}\nMore follows.`;
  let store: SessionStore;
  before(async () => {
    store = await openStore({ dir: dirs.make() });
  });
  after(() => store.delete());

  it('halves the page until its rendering fits, and the page still holds whole characters', async () => {
    assert.equal(Buffer.byteLength(unit), 7);
    assert.equal(Buffer.byteLength(JSON.stringify(unit)) - 2, 19);
    const { outputId } = await store.retain(unit.repeat(2000));
    const sizes: number[] = [];
    const read = (maxBytes: number) => {
      sizes.push(maxBytes);
      return store.read(outputId, 0, maxBytes);
    };
    const full = render(await store.read(outputId, 0, 4096));
    assert.ok(Buffer.byteLength(full) > PART_BYTES, 'the whole page would not fit one part');

    const { page, text } = await readFittingPage(read, render, 4096, PART_BYTES);
    assert.deepEqual(sizes, [4096, 2048]);
    assert.equal(text, render(page));
    assert.ok(Buffer.byteLength(text) <= PART_BYTES);
    // 2048 = 292·7 + 4: byte 2048 is inside the 292nd unit's 中, so the page ends before it.
    assert.equal(page.nextOffset, 292 * 7 + 2);
    assert.ok(!page.text.includes('\uFFFD'), 'no character was split');
    assert.equal(Buffer.byteLength(page.text), page.nextOffset);
    assert.equal(page.text, unit.repeat(293).slice(0, 292 * 5 + 2));
    // The next page starts exactly where this one stopped.
    const next = await store.read(outputId, page.nextOffset, 7);
    assert.equal(next.text, '中\\\u001f\u0001"');
  });

  it('stops halving at MIN_FIT_PAGE_BYTES and returns that page even when it does not fit', async () => {
    const { outputId } = await store.retain(unit.repeat(1000));
    const sizes: number[] = [];
    const { page, text } = await readFittingPage(
      (maxBytes) => {
        sizes.push(maxBytes);
        return store.read(outputId, 0, maxBytes);
      },
      render,
      4096,
      10,
    );
    assert.deepEqual(sizes, [4096, 2048, 1024, 512, 256, 128, 64, 32, 16]);
    assert.equal(sizes.at(-1), MIN_FIT_PAGE_BYTES);
    assert.equal(page.nextOffset, 16, 'byte 16 = 2·7 + 2 is where the third 中 starts');
    assert.ok(Buffer.byteLength(text) > 10);
  });

  it('reads once when the first rendering fits', async () => {
    const { outputId } = await store.retain('plain ASCII '.repeat(500));
    let reads = 0;
    const { page } = await readFittingPage(
      (maxBytes) => {
        reads++;
        return store.read(outputId, 0, maxBytes);
      },
      render,
      4096,
      PART_BYTES,
    );
    assert.equal(reads, 1);
    assert.equal(page.nextOffset, 4096);
  });
});
