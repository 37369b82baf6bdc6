import assert from 'node:assert/strict';
import type { SessionStore } from '../../src/core/store/sessionStore';
import { openStore } from '../../src/core/workers/stores';
import type { SearchResult } from '../../src/core/types';
import { rejectsWith } from './helpers/assertions';
import { decode, mixedBytes } from './helpers/mixedText';
import { makeRng, seedFromEnv } from './helpers/prng';
import { useTempDirs } from './helpers/tempDirs';

describe('search(outputId, pattern, options)', () => {
  const dirs = useTempDirs('search');
  let store: SessionStore;
  before(async () => {
    store = await openStore({ dir: dirs.make() });
  });
  after(() => store.delete());

  /** Every match's offset is a valid read offset whose page starts with the matched text. */
  async function assertOffsetsRead(outputId: string, result: SearchResult, matched: (text: string) => boolean): Promise<void> {
    for (const match of result.matches) {
      const page = await store.read(outputId, match.offset, 64);
      assert.ok(matched(page.text), `page at ${match.offset} starts ${JSON.stringify(page.text.slice(0, 20))}`);
      const linePage = await store.read(outputId, match.lineOffset, 4096);
      assert.ok(match.lineOffset <= match.offset);
      assert.ok(linePage.text.length > 0 || match.lineOffset === result.totalBytes);
    }
  }

  it('finds literal text case-insensitively by default, with byte offsets, line offsets and 1-based lines', async () => {
    const text = 'alpha\nBeta gamma\n日本語 beta\n😀 BETA end\n';
    const { outputId } = await store.retain(text);
    const result = await store.search(outputId, 'beta');
    assert.equal(result.truncated, false);
    assert.equal(result.totalBytes, Buffer.byteLength(text));
    assert.equal(result.complete, true);
    const bytes = Buffer.from(text);
    assert.deepEqual(
      result.matches.map((m) => m.line),
      [2, 3, 4],
    );
    assert.deepEqual(
      result.matches.map((m) => m.offset),
      [6, bytes.indexOf('beta'), bytes.indexOf('BETA')],
    );
    assert.deepEqual(
      result.matches.map((m) => m.lineOffset),
      [6, 17, bytes.indexOf('😀')],
    );
    assert.deepEqual(
      result.matches.map((m) => m.text),
      ['Beta gamma', '日本語 beta', '😀 BETA end'],
    );
    await assertOffsetsRead(outputId, result, (page) => page.toLowerCase().startsWith('beta'));
  });

  it('is case-sensitive on request', async () => {
    const { outputId } = await store.retain('Error\nerror\nERROR\n');
    assert.deepEqual(
      (await store.search(outputId, 'error', { caseSensitive: true })).matches.map((m) => m.line),
      [2],
    );
    assert.deepEqual(
      (await store.search(outputId, 'error')).matches.map((m) => m.line),
      [1, 2, 3],
    );
  });

  it('a match at offset 0 is on line 1 starting at byte 0', async () => {
    const { outputId } = await store.retain('needle first\nsecond line\nthird line\n');
    const [first] = (await store.search(outputId, 'needle')).matches;
    assert.deepEqual(first, { offset: 0, lineOffset: 0, line: 1, text: 'needle first' });
  });

  it('treats the pattern literally unless regex is set; regex matches report their offsets', async () => {
    const text = 'a.b\naxb\nTOTAL_SUMMARY=12345\n(x)\n';
    const { outputId } = await store.retain(text);
    assert.deepEqual(
      (await store.search(outputId, 'a.b')).matches.map((m) => m.line),
      [1],
    );
    assert.deepEqual(
      (await store.search(outputId, 'a.b', { regex: true })).matches.map((m) => m.line),
      [1, 2],
    );
    assert.deepEqual(
      (await store.search(outputId, '(x)')).matches.map((m) => m.line),
      [4],
    );
    const summary = await store.search(outputId, 'TOTAL_SUMMARY=(\\d+)', { regex: true });
    assert.equal(summary.matches.length, 1);
    const page = await store.read(outputId, summary.matches[0].offset);
    assert.ok(page.text.startsWith('TOTAL_SUMMARY=12345'));
  });

  it('rejects an invalid regex, an empty pattern and a bad maxMatches with INVALID_ARGUMENT', async () => {
    const { outputId } = await store.retain('text');
    const error = await rejectsWith(store.search(outputId, '(unclosed', { regex: true }), 'INVALID_ARGUMENT');
    assert.match(error.message, /regular expression/);
    await rejectsWith(store.search(outputId, ''), 'INVALID_ARGUMENT');
    for (const bad of [0, -1, 1.5, 1001])
      await rejectsWith(store.search(outputId, 't', { maxMatches: bad }), 'INVALID_ARGUMENT', `maxMatches ${bad}`);
    // The same text literally is fine.
    assert.equal((await store.search(outputId, '(unclosed')).matches.length, 0);
  });

  it('limits matches with maxMatches and says so with truncated', async () => {
    const text = Array.from({ length: 200 }, (_, i) => `row ${i} hit`).join('\n');
    const { outputId } = await store.retain(text);
    const limited = await store.search(outputId, 'hit', { maxMatches: 7 });
    assert.equal(limited.matches.length, 7);
    assert.equal(limited.truncated, true);
    assert.deepEqual(
      limited.matches.map((m) => m.line),
      [1, 2, 3, 4, 5, 6, 7],
    );
    const exact = await store.search(outputId, 'row 199', { maxMatches: 1 });
    assert.equal(exact.truncated, false);
    assert.equal(exact.matches[0].line, 200);
    const byDefault = await store.search(outputId, 'hit');
    assert.equal(byDefault.matches.length, 50);
    assert.equal(byDefault.truncated, true);
    const all = await store.search(outputId, 'hit', { maxMatches: 1000 });
    assert.equal(all.matches.length, 200);
    assert.equal(all.truncated, false);
  });

  it('clips long lines around the match', async () => {
    const line = `${'a'.repeat(5000)}NEEDLE${'b'.repeat(5000)}`;
    const { outputId } = await store.retain(`first\n${line}\nlast`);
    const [match] = (await store.search(outputId, 'needle')).matches;
    assert.equal(match.line, 2);
    assert.equal(match.lineOffset, 6);
    assert.equal(match.offset, 6 + 5000);
    assert.ok(match.text.length < 400, `excerpt is ${match.text.length} chars`);
    assert.match(match.text, /^….*NEEDLE.*…$/);
  });

  it('works on binary copies: U+FFFD in text, offsets still right', async () => {
    const bytes = Buffer.concat([
      Buffer.from([0xff, 0xfe, 0x00, 0xe2, 0x82]),
      Buffer.from('MARK one\n'),
      Buffer.from([0xc0, 0x80, 0xed, 0xa0, 0x80]),
      Buffer.from('😀 mark two\n'),
      Buffer.from([0xf0, 0x9f, 0x98]),
      Buffer.from('mark three'),
    ]);
    const { outputId } = await store.retain(bytes);
    const result = await store.search(outputId, 'mark');
    assert.deepEqual(
      result.matches.map((m) => m.offset),
      [5, bytes.indexOf('mark two'), bytes.indexOf('mark three')],
    );
    assert.deepEqual(
      result.matches.map((m) => m.line),
      [1, 2, 3],
    );
    assert.deepEqual(
      result.matches.map((m) => m.lineOffset),
      [0, 14, bytes.indexOf('mark two') + 9],
    );
    assert.equal(result.matches[0].text, '\uFFFD\uFFFD\u0000\uFFFDMARK one');
    await assertOffsetsRead(outputId, result, (page) => page.toLowerCase().startsWith('mark'));
  });

  it('regex matches that begin between the halves of an emoji do not shift later offsets', async () => {
    const text = '😀a😀b\nzz';
    const { outputId } = await store.retain(text);
    const result = await store.search(outputId, '.', { regex: true, maxMatches: 100 });
    const bytes = Buffer.from(text);
    for (const match of result.matches) {
      assert.ok(match.offset <= bytes.length, `offset ${match.offset} is past the end (${bytes.length})`);
      const page = await store.read(outputId, match.offset, 1); // must not be MID_CHARACTER_OFFSET
      assert.ok(page.text.length > 0);
    }
    assert.deepEqual(
      result.matches.map((m) => m.offset),
      [0, 4, 5, 9, 11, 12],
    );
    const letters = await store.search(outputId, '[abz]', { regex: true });
    assert.deepEqual(
      letters.matches.map((m) => m.offset),
      [4, 9, 11, 12],
    );
  });

  it('property: on random mixed bytes every match offset reads back starting with the match', async () => {
    const seed = seedFromEnv(4242);
    const rng = makeRng(seed);
    for (let round = 0; round < 25; round++) {
      const bytes = mixedBytes(rng, rng.int(100, 20_000), rng.pick([0, 0.1, 0.4]));
      const { outputId } = await store.retain(bytes);
      const whole = decode(bytes);
      // lineAt[k]: 1 + the number of \n bytes before offset k (\n is never part of a multi-byte unit).
      const lineAt = new Uint32Array(bytes.length + 1);
      lineAt[0] = 1;
      for (let k = 0; k < bytes.length; k++) lineAt[k + 1] = lineAt[k] + (bytes[k] === 0x0a ? 1 : 0);
      for (const [pattern, options] of [
        ['error', {}],
        ['日本', {}],
        ['😀', {}],
        ['\uFFFD', {}],
        ['[0-9]+', { regex: true }],
        ['total', { caseSensitive: true }],
      ] as const) {
        const result = await store.search(outputId, pattern, { ...options, maxMatches: 1000 });
        const expected = new RegExp(
          options && 'regex' in options ? pattern : pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
          `g${'caseSensitive' in options ? '' : 'i'}`,
        );
        const expectedCount = [...whole.matchAll(expected)].length;
        assert.equal(result.matches.length, Math.min(expectedCount, 1000), `seed ${seed} round ${round} pattern ${pattern}`);
        let previousLine = 1;
        for (const match of result.matches) {
          const page = await store.read(outputId, match.offset, 64);
          const sticky = new RegExp(expected.source, expected.flags.replace('g', '') + 'y');
          assert.ok(
            sticky.test(page.text),
            `seed ${seed} round ${round}: page at ${match.offset} does not start with /${pattern}/: ${JSON.stringify(page.text.slice(0, 10))}`,
          );
          assert.equal(match.line, lineAt[match.offset], `seed ${seed} round ${round}: line of ${match.offset}`);
          assert.equal(
            match.lineOffset,
            match.offset === 0 ? 0 : Buffer.from(bytes).lastIndexOf(0x0a, match.offset - 1) + 1,
            `seed ${seed} round ${round}: lineOffset of ${match.offset}`,
          );
          assert.ok(match.line >= previousLine);
          previousLine = match.line;
        }
      }
      await store.remove(outputId);
    }
  });

  it('rejects unknown IDs with NOT_FOUND', async () => {
    await rejectsWith(store.search('out_000000000000000000000000', 'x'), 'NOT_FOUND');
  });
});
