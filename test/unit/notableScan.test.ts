import assert from 'node:assert/strict';
import { hashKey, prefilterKey } from '../../src/core/notable/digest';
import { SCANS, classifyHitAt, classifyWordAt, type NotableKind } from '../../src/core/notable/patterns';
import { countLineBreaks, makePrefilter, type Prefilter } from '../../src/core/notable/prefilter';
import { countNewlines } from '../../src/core/utf8';
import { NotableScanner, scanNotable, scanTuning } from '../../src/core/notable/scanner';
import type { NotableDigest } from '../../src/core/types';
import { makeRng, seedFromEnv, type Rng } from './helpers/prng';

const KINDS: NotableKind[] = ['command', 'json', 'search'];

/** Each start of every kind, the words around them, and what tools print between. */
const STARTS = [...new Set(KINDS.flatMap((kind) => SCANS[kind].flatMap((scan) => scan.starts)))];
const FILL = [
  ' ',
  '  ',
  '\t',
  '\n',
  '\r\n',
  ':',
  '=',
  '"',
  '": 0',
  '{',
  '}',
  ',',
  '0',
  '42',
  'abc',
  'x',
  '_',
  'é',
  '日本語',
  '\u00a0',
  '\x00',
  '✓',
];

/** Text dense with keywords in any case, glued to letters, digits and other keywords. */
function keywordText(rng: Rng, parts: number): string {
  const out: string[] = [];
  for (let i = 0; i < parts; i++) {
    if (rng.chance(0.4)) {
      const start = Buffer.from(rng.pick(STARTS), 'latin1').toString('utf8');
      out.push(rng.chance(0.3) ? start.toUpperCase() : rng.chance(0.2) ? start.replace(/^./, (c) => c.toUpperCase()) : start);
    } else out.push(rng.pick(FILL));
    if (rng.chance(0.01)) out.push(' '.repeat(rng.int(100, 400)));
    if (rng.chance(0.01)) out.push('y'.repeat(rng.int(100, 400)));
  }
  return out.join('');
}

/** Runs `body` with the scan tuned so, then as it was. */
function tuned<T>(tuning: Partial<typeof scanTuning>, body: () => T): T {
  const saved = { ...scanTuning };
  Object.assign(scanTuning, tuning);
  try {
    return body();
  } finally {
    Object.assign(scanTuning, saved);
  }
}

describe('notable lines: how the scan runs does not change what it finds', () => {
  it('the prefilter lists every position where a pattern of the kind matches, in any case', () => {
    const seed = seedFromEnv(1316);
    const rng = makeRng(seed);
    for (const kind of KINDS) {
      // Node runs WebAssembly with SIMD: without it the scanner would work, only slower.
      const made = makePrefilter(SCANS[kind].flatMap((scan) => scan.starts));
      assert.ok(made, 'the prefilter is made');
      const prefilter: Prefilter = made;
      const anchored = SCANS[kind].map((scan) => new RegExp(scan.regex.source, `${scan.regex.flags.replace('g', '')}y`));
      for (let round = 0; round < 20; round++) {
        const bytes = Buffer.from(keywordText(rng, rng.int(10, 3000)));
        const text = bytes.toString('latin1');
        const start = rng.int(0, Math.min(bytes.length, 100));
        const end = Math.min(bytes.length, start + rng.int(0, 64 * 1024));
        const found = prefilter.candidates(bytes, start, end);
        const listed = new Set(Array.from({ length: found.count }, (_, k) => found.at(k)));
        for (let at = start; at < end; at++) {
          for (const regex of anchored) {
            regex.lastIndex = at;
            if (regex.test(text))
              assert.ok(listed.has(at), `seed ${seed}, ${kind}, round ${round}: ${JSON.stringify(text.slice(at, at + 20))} at ${at}`);
          }
        }
        const positions = [...listed];
        assert.deepEqual(
          positions,
          [...positions].sort((a, b) => a - b),
          'ascending',
        );
        assert.ok(
          positions.every((at) => at >= start && at < end),
          'inside the range',
        );
      }
    }
  });

  it('property: with or without the prefilter, in windows of any size, the same lines, counts and offsets', () => {
    const seed = seedFromEnv(1317);
    const rng = makeRng(seed);
    const view = (digest: NotableDigest) => JSON.parse(JSON.stringify(digest)) as NotableDigest;
    for (let round = 0; round < 40; round++) {
      const bytes = Buffer.from(keywordText(rng, rng.int(10, 6000)));
      const kind = rng.pick(KINDS);
      const from = rng.chance(0.5) ? 0 : rng.int(0, bytes.length);
      const to = rng.chance(0.5) ? bytes.length : rng.int(from, bytes.length);
      const chunks: number[] = [];
      for (let left = bytes.length; left > 0; left -= chunks[chunks.length - 1]) chunks.push(Math.min(left, rng.int(1, 4000)));
      const run = () => {
        const scanner = new NotableScanner(kind);
        let at = 0;
        for (const size of chunks) scanner.write(bytes.subarray(at, (at += size)));
        return { whole: view(scanNotable(bytes, kind, { from, to })), chunked: view(scanner.finish()) };
      };
      const expected = tuned({ prefilter: false }, run);
      const small = rng.int(1, 5000);
      const context = `seed ${seed}, round ${round}, ${kind}, [${from}, ${to}), windows of ${small}`;
      assert.deepEqual(tuned({ prefilter: true }, run), expected, `${context}: prefilter`);
      assert.deepEqual(tuned({ prefilter: false, window: small }, run), expected, `${context}: small windows`);
      assert.deepEqual(tuned({ prefilter: true, window: small }, run), expected, `${context}: prefilter, small windows`);
    }
  });

  it('property: a word scan matched on the bytes matches what its regex, anchored there, matches, and classifies alike', () => {
    const seed = seedFromEnv(1319);
    const rng = makeRng(seed);
    const scans = [...new Set(KINDS.flatMap((kind) => SCANS[kind]))].filter((scan) => scan.match);
    assert.ok(scans.length >= 3, 'the word scans, the search words and the CJK words');
    // What the end assertions read: blanks then a colon (at most 3), a word character or not, case.
    const edges = [
      'result:',
      'result :',
      'Result   =',
      'result    :',
      'RESULTS\t\u00a0 =',
      'resultx:',
      'results',
      'ERR!',
      'err\x01',
      'fail_',
      'failed2',
      'warn',
      '失败',
    ];
    for (let round = 0; round < 40; round++) {
      const bytes = Buffer.from(round < 10 ? edges.join(round % 2 ? '\n' : ' ') : keywordText(rng, rng.int(10, 2000)));
      const text = bytes.toString('latin1');
      for (const scan of scans) {
        const anchored = new RegExp(scan.regex.source, `${scan.regex.flags.replace('g', '')}y`);
        for (let at = 0; at < bytes.length; at++) {
          anchored.lastIndex = at;
          const expected = anchored.exec(text)?.[0];
          const found = scan.match!(bytes, at);
          const where = `seed ${seed}, round ${round}, ${JSON.stringify(text.slice(at, at + 24))} at ${at}`;
          assert.equal(found?.length, expected?.length, where);
          if (expected === undefined || !found) continue;
          for (const kind of KINDS)
            assert.equal(
              classifyWordAt(bytes, at, found.length, found.value, kind),
              classifyHitAt(bytes, at, expected, kind),
              `${where}, ${kind}`,
            );
        }
      }
    }
  });

  it('property: line breaks counted 16 bytes a step are the breaks there are', () => {
    const seed = seedFromEnv(1320);
    const rng = makeRng(seed);
    const cases = [Buffer.alloc(300_000, 0x0a), Buffer.alloc(70_000, 0x0b)];
    for (let round = 0; round < 60; round++) {
      const bytes = Buffer.alloc(rng.int(0, 200_000));
      const density = rng.pick([0, 0.01, 0.3, 1]);
      for (let i = 0; i < bytes.length; i++) bytes[i] = rng.chance(density) ? 0x0a : rng.int(0, 255);
      cases.push(bytes);
    }
    for (const [index, bytes] of cases.entries()) {
      const from = index < 2 ? 0 : rng.int(0, bytes.length);
      const to = index < 2 ? bytes.length : rng.int(from, bytes.length);
      assert.equal(countLineBreaks(bytes, from, to), countNewlines(bytes, from, to), `seed ${seed}, case ${index}: [${from}, ${to})`);
    }
  });

  it('CJK words: none starts another, so their trie matches what their list would', () => {
    const cjk = SCANS.command.find((scan) => !scan.regex.ignoreCase)!.starts;
    assert.ok(cjk.length > 10);
    for (const a of cjk) for (const b of cjk) if (a !== b) assert.ok(!b.startsWith(a), `${a} starts ${b}`);
    const text = cjk.join(' ');
    assert.deepEqual(
      [...text.matchAll(new RegExp(SCANS.command.find((scan) => !scan.regex.ignoreCase)!.regex))].map((m) => m[0]),
      cjk,
    );
  });
});

describe('notable lines: the repeat key', () => {
  /** The rule, spelt out: what `hashKey` computes in one pass. */
  function reference(bytes: Buffer, from: number, to: number): [number, number] {
    const isDigit = (byte: number) => byte >= 0x30 && byte <= 0x39;
    const isHex = (byte: number) => isDigit(byte) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x66);
    const isBlank = (byte: number) => byte === 0x20 || byte === 0x09 || byte === 0x0d || byte === 0x2c;
    let start = from;
    let end = to;
    while (start < end && isBlank(bytes[start])) start++;
    while (end > start && isBlank(bytes[end - 1])) end--;
    let a = 0x811c9dc5;
    let b = 0x5bd1e995;
    for (let i = start; i < end;) {
      let byte = bytes[i];
      let next = i + 1;
      if (isHex(byte)) {
        let j = i;
        let digit = false;
        for (; j < end && isHex(bytes[j]); j++) if (isDigit(bytes[j])) digit = true;
        if (digit && j - i >= 6) {
          byte = 0x23;
          next = j;
        } else if (isDigit(byte)) {
          byte = 0x23;
          while (next < j && isDigit(bytes[next])) next++;
        }
      }
      a = Math.imul(a ^ byte, 0x01000193);
      b = Math.imul(b ^ byte, 0x0100019b);
      i = next;
    }
    return [(a >>> 2) & 0x3fffffff, b >>> 0];
  }

  it('property: hex runs, digit runs and blanks hash as the rule says', () => {
    const seed = seedFromEnv(1318);
    const rng = makeRng(seed);
    const alphabet = Buffer.from('0123456789abcdefABCDEFxyz ,\t\r-#:');
    for (let round = 0; round < 20_000; round++) {
      const bytes = Buffer.alloc(rng.int(0, 40), 0);
      for (let i = 0; i < bytes.length; i++) bytes[i] = rng.chance(0.05) ? rng.int(0, 255) : rng.pick([...alphabet]);
      const from = rng.int(0, bytes.length);
      const to = rng.int(from, bytes.length);
      assert.deepEqual(hashKey(bytes, from, to), reference(bytes, from, to), `seed ${seed}, ${bytes.toString('hex')} [${from}, ${to})`);
    }
  });

  it('property: two ranges with one hash key have one prefilter key (the digest compares hashes only then)', () => {
    const seed = seedFromEnv(1319);
    const rng = makeRng(seed);
    const alphabet = [...Buffer.from('0123456789012345678901234abcdefAFxyz ,\t\r#:')];
    const random = (): Buffer => {
      const bytes = Buffer.alloc(rng.int(0, 9), 0);
      for (let i = 0; i < bytes.length; i++) bytes[i] = rng.chance(0.03) ? rng.int(0, 255) : rng.pick(alphabet);
      return bytes;
    };
    let same = 0;
    for (let round = 0; round < 40_000; round++) {
      const a = random();
      const b = random();
      if (hashKey(a, 0, a.length).join() !== hashKey(b, 0, b.length).join()) continue;
      same++;
      assert.equal(prefilterKey(a, 0, a.length), prefilterKey(b, 0, b.length), `seed ${seed}, ${a.toString('hex')} ${b.toString('hex')}`);
    }
    assert.ok(same > 1000, `${same} pairs with one key`);
  });
});
