// Issue 38 §3: a search across outputs reads only the chunks whose trigram masks say a required
// literal can start there (src/core/store/chunkGrams.ts, src/core/workers/sessionScan.ts). Every
// match must be the whole copy's search's: same offsets, lines, line offsets and text.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { compileSearch } from '../../src/core/search';
import { caseVariants } from '../../src/core/search/scanners';
import { GRAM_BYTES, candidateChunks, chunkGrams, literalGrams } from '../../src/core/store/chunkGrams';
import { CHUNK_BYTES, encodeChunks } from '../../src/core/store/chunks';
import { buildSegment } from '../../src/core/store/segmentBuild';
import { chunksOf, mapSegment, readMasks } from '../../src/core/store/segmentFile';
import { SegmentCache } from '../../src/core/store/segments';
import { loadSqlJs } from '../../src/core/store/sqljs';
import { openStore } from '../../src/core/workers/stores';
import { scanCounts, scanSessions } from '../../src/core/workers/sessionScan';
import type { SearchOptions } from '../../src/core/types';
import { PROPERTY_SCALE, propertySize } from './helpers/propertyScale';
import { everyPage } from './helpers/scanPages';
import { useTempDirs } from './helpers/tempDirs';

const KiB = 1024;
const control = { cancelled: () => false, deadline: Infinity, timeoutMs: 0 };

/** A small deterministic generator (xorshift32). */
function prng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 0x100000000;
  };
}

const WORDS = ['error', 'ERROR', 'Error', 'warn', 'pool', 'stats', 'id=7f3a', 'timeout', 'refused', 'user=alice', 'user=bob', 'ok'];
const ODD = ['Kelvin', '\u212Aelvin', 'ſtraße', 'STRASSE', 'Straße', 'ΣΑΣ', 'σας', 'İstanbul', 'ﬀ', 'É', 'é', '通过', '失败', '\uFFFD'];

function logText(bytes: number, seed: number): Buffer {
  const rand = prng(seed);
  const pick = <T>(list: T[]): T => list[Math.floor(rand() * list.length)];
  const lines: string[] = [];
  let size = 0;
  for (let n = 0; size < bytes; n++) {
    const parts = [`2026-12-06T18:${String(n % 60).padStart(2, '0')} ${pick(['INFO', 'WARN', 'ERROR', 'debug'])}`];
    for (let i = Math.floor(rand() * 12); i > 0; i--)
      parts.push(rand() < 0.1 ? pick(ODD) : rand() < 0.5 ? pick(WORDS) : `x${Math.floor(rand() * 1e6).toString(16)}`);
    const line = parts.join(' ');
    lines.push(line);
    size += Buffer.byteLength(line) + 1;
  }
  return Buffer.from(lines.join('\n')).subarray(0, bytes);
}

/** Lines of CJK text with a few ASCII words. */
function cjkText(bytes: number, seed: number): Buffer {
  const rand = prng(seed);
  const han = '的一是不了人我在有他这为之大来以个中上们到说国和地也子时道出而要于就下得可你年生自会那后能过通失败';
  const lines: string[] = [];
  // Counted as it grows: measuring the whole text each line made this quadratic.
  for (let size = 0; size < bytes;) {
    const line = Array.from({ length: 20 + Math.floor(rand() * 60) }, () =>
      rand() < 0.05 ? ` ${WORDS[Math.floor(rand() * WORDS.length)]} ` : han[Math.floor(rand() * han.length)],
    ).join('');
    lines.push(line);
    size += Buffer.byteLength(line) + 1;
  }
  return Buffer.from(`${lines.join('\n')}\n`).subarray(0, bytes);
}

/** Few, very long lines (over a chunk each), words planted anywhere. */
function longLines(bytes: number, seed: number): Buffer {
  const rand = prng(seed);
  const out = Buffer.alloc(bytes, 'a');
  for (let at = 0; at < bytes; at += 50 * KiB + Math.floor(rand() * 150 * KiB)) out[at] = 0x0a;
  for (let i = 0; i < 200; i++) {
    const word = Buffer.from(WORDS[Math.floor(rand() * WORDS.length)]);
    out.set(word.subarray(0, Math.max(0, bytes - word.length)), Math.floor(rand() * (bytes - word.length)));
  }
  // Runs of 'A' among the 'a's: a case-insensitive "aaa" finds non-overlapping matches, phase set by each run's start.
  for (let i = 0; i < 50; i++) out.fill(0x41, Math.floor(rand() * bytes), Math.floor(rand() * bytes));
  return out;
}

/** Words planted across every chunk boundary, at each offset from 6 before to 1 after. */
function boundaryText(chunks: number, seed: number): Buffer {
  const rand = prng(seed);
  const out = Buffer.from(logText(chunks * CHUNK_BYTES, seed));
  for (let k = 1; k < chunks; k++) {
    const word = Buffer.from(pickOf(rand, [...WORDS, ...ODD]));
    const at = k * CHUNK_BYTES - Math.floor(rand() * (word.length + 1));
    out.set(word.subarray(0, out.length - at), at);
  }
  return out;
}
const pickOf = <T>(rand: () => number, list: T[]): T => list[Math.floor(rand() * list.length)];

/** Random bytes (invalid UTF-8 among them) with line breaks and words planted. */
function binaryText(bytes: number, seed: number): Buffer {
  const rand = prng(seed);
  const out = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i++) out[i] = rand() < 0.02 ? 0x0a : Math.floor(rand() * 256);
  for (let i = 0; i < 300; i++) {
    const word = Buffer.from(pickOf(rand, [...WORDS, ...ODD]));
    out.set(word, Math.floor(rand() * (bytes - word.length)));
  }
  return out;
}

const SEARCHES: [string, SearchOptions][] = [
  ['ERROR', {}],
  ['ERROR', { caseSensitive: true }],
  ['timeout', {}],
  ['pool stats', { caseSensitive: true }],
  ['id=7f3a', {}],
  ['zzqqxx', {}],
  ['aaa', {}],
  ['aaa', { caseSensitive: true }],
  ['AAAA', {}],
  ['kelvin', {}],
  ['Kelvin', { caseSensitive: true }],
  ['strasse', {}],
  ['straße', {}],
  ['σας', {}],
  ['ΣΑΣ', { caseSensitive: true }],
  ['istanbul', {}],
  ['通过', {}],
  ['通过 ', { caseSensitive: true }],
  ['失败', {}],
  ['é', {}],
  ['ok', {}],
  ['ERROR.*pool.*id=7f3a', { regex: true, caseSensitive: true }],
  ['error.*pool', { regex: true }],
  ['(timeout|refused) x[0-9a-f]+', { regex: true }],
  ['user=(alice|bob)', { regex: true }],
  ['\\bfailed\\b|\\bERROR\\b', { regex: true, caseSensitive: true }],
  ['K\\w+n', { regex: true }],
  ['ſtra\\w+', { regex: true }],
  ['a{3}b|warn', { regex: true }],
  ['^warn', { regex: true }],
  ['ok$', { regex: true }],
  ['warn\\nerror', { regex: true }],
];

/** Every chunk's mask in the segments of a folder, by `${outputId}:${idx}` (a chunk without one fails, unless `required` is false). */
function masksOnDisk(dir: string, required = true): Map<string, { n: number; grams: Buffer }> {
  const masks = new Map<string, { n: number; grams: Buffer }>();
  for (const name of readdirSync(dir).filter((entry) => /\.segment\.\d+$/.test(entry))) {
    const n = Number(name.split('.').pop());
    const fd = openSync(path.join(dir, name), 'r');
    try {
      const map = mapSegment(fd, fstatSync(fd).size);
      for (const key of chunksOf(fd, map).keys()) {
        const [outputId, idx] = [key.slice(0, key.lastIndexOf(':')), Number(key.slice(key.lastIndexOf(':') + 1))];
        const [grams] = readMasks(fd, map, outputId, idx, idx);
        if (!required && !grams) continue;
        assert.ok(grams, `${key} in ${name} has a mask`);
        masks.set(key, { n, grams: Buffer.from(grams) });
      }
    } finally {
      closeSync(fd);
    }
  }
  return masks;
}

describe('search across outputs by trigram masks (issue 38 §3)', function () {
  this.timeout(600_000);
  const dirs = useTempDirs('grams');

  it("a chunk mask holds every trigram starting in it, folded; a literal's trigrams skip what case folding reaches", () => {
    const text = Buffer.from('Hello World, KELVIN straße');
    const mask = chunkGrams(text.subarray(0, 10), text.subarray(10, 12));
    assert.equal(mask.length, GRAM_BYTES);
    // "d, " starts at 10: not in the first 10 bytes' mask; "rld" (8) and "ld," (9, running into the next bytes) are.
    const test = (literal: string, masks: (Uint8Array | undefined)[]) =>
      candidateChunks(masks, [literalGrams(literal, true, caseVariants)!]);
    assert.deepEqual(test('hello', [mask]), [0]);
    assert.deepEqual(test('HELLO', [mask]), [0]);
    assert.deepEqual(test('ld,', [mask]), [0]);
    assert.deepEqual(test('ld, ', [mask]), []);
    // A literal starting in chunk 0 and running into chunk 1.
    const second = chunkGrams(text.subarray(10));
    assert.deepEqual(test('world, kelvin', [mask, second]), [0]);
    assert.deepEqual(test('kelvin', [mask, second]), [1]);
    assert.deepEqual(test('kelvin', [undefined, second]), [0, 1]);
    // Case-insensitive: k and s fold with non-ASCII letters; their trigrams are not required.
    assert.equal(literalGrams('ks', false, caseVariants), undefined);
    assert.deepEqual(literalGrams('kelvin', false, caseVariants)?.grams.length, 3); // elv, lvi, vin
    assert.equal(literalGrams('kelvin', false, caseVariants)?.anchored, false);
    assert.equal(literalGrams('straße', false, caseVariants)?.grams.length, 1); // "tra": ß folds with U+1E9E
    assert.equal(literalGrams('ab', true, caseVariants), undefined);
    assert.equal(literalGrams('通', true, caseVariants)?.grams.length, 1);
  });

  it('a checkpoint writes masks beside the chunks; a rewritten segment carries them; SQLite checks the segment as sound', async () => {
    const dir = dirs.make();
    const store = await openStore({ dir, quotaBytes: 8 * 1024 * KiB, copyBytes: 2 * 1024 * KiB });
    const text = logText(1536 * KiB + 7, 3);
    const { outputId } = await store.retain(text);
    const file = store.file;
    await store.close();
    const cache = new SegmentCache(file);
    const onDisk = masksOnDisk(dir);
    assert.equal(onDisk.size, Math.ceil(text.length / CHUNK_BYTES));
    for (const [key, { n, grams }] of onDisk) {
      const idx = Number(key.split(':').pop());
      const end = (idx + 1) * CHUNK_BYTES;
      assert.deepEqual(grams, Buffer.from(chunkGrams(text.subarray(idx * CHUNK_BYTES, end), text.subarray(end, end + 2))), `chunk ${idx}`);
      assert.deepEqual(cache.grams(n, outputId, idx, idx)[0], grams);
      const [row] = cache.chunks(n, outputId, idx, idx, true);
      assert.deepEqual(Buffer.from(row.grams!), grams);
    }
    // A segment less than half live is rewritten at the next checkpoint: its chunks keep their masks.
    const rewriting = await openStore({ dir: dirs.make(), checkpoints: 'manual', quotaBytes: 4 * 1024 * KiB, copyBytes: 2 * 1024 * KiB });
    const a = await rewriting.retain(randomBytes(10 * CHUNK_BYTES));
    const bBytes = randomBytes(10 * CHUNK_BYTES);
    const b = await rewriting.retain(bBytes);
    await rewriting.flush();
    const firstSegments = [...masksOnDisk(path.dirname(rewriting.file)).values()].map(({ n }) => n);
    await rewriting.remove(a.outputId);
    await rewriting.close();
    const rewritten = masksOnDisk(path.dirname(rewriting.file));
    assert.ok(
      [...rewritten.values()].some(({ n }) => !firstSegments.includes(n)),
      'a chunk moved to a new segment',
    );
    for (let idx = 0; idx < 10; idx++) {
      const end = (idx + 1) * CHUNK_BYTES;
      const expected = Buffer.from(chunkGrams(bBytes.subarray(idx * CHUNK_BYTES, end), bBytes.subarray(end, end + 2)));
      assert.deepEqual(rewritten.get(`${b.outputId}:${idx}`)?.grams, expected, `chunk ${idx} of the rewritten copy`);
    }
    // Encoded as a checkpoint does, a window at a time: the same masks as the whole copy's.
    const encoded = await encodeChunks(text.subarray(0, 16 * CHUNK_BYTES), { sample: true }, text.subarray(16 * CHUNK_BYTES));
    assert.deepEqual(
      Buffer.from(encoded[15].grams!),
      Buffer.from(chunkGrams(text.subarray(15 * CHUNK_BYTES, 16 * CHUNK_BYTES), text.subarray(16 * CHUNK_BYTES))),
    );
    // SQLite's integrity check passes on a segment with masks; a reader that knows nothing of masks
    // (a release before them) reads the chunks table, which holds the chunks alone.
    const SQL = await loadSqlJs();
    for (const name of readdirSync(dir).filter((entry) => /\.segment\.\d+$/.test(entry))) {
      const db = new SQL.Database(readFileSync(path.join(dir, name)));
      try {
        assert.deepEqual(db.exec('PRAGMA integrity_check')[0].values, [['ok']]);
        const [[chunks]] = db.exec('SELECT count(*) FROM chunks')[0].values as number[][];
        const [[masks]] = db.exec(`SELECT sum((length(masks) - 4) / ${GRAM_BYTES}) FROM grams`)[0].values as number[][];
        assert.equal(masks, chunks, `${name}: a mask for each chunk`);
      } finally {
        db.close();
      }
    }
  });

  it('a store written before masks (segments without a grams table) searches across as before, every time', async () => {
    const dir = dirs.make();
    const store = await openStore({ dir, quotaBytes: 16 * 1024 * KiB, copyBytes: 4 * 1024 * KiB });
    for (const [bytes, seed] of [
      [700 * KiB, 21],
      [3 * KiB, 22],
    ])
      await store.retain(logText(bytes, seed));
    const session = { sessionId: store.sessionId, file: store.file };
    await store.close();
    // Each segment written again as a release before masks wrote it: its chunks alone.
    const cache = new SegmentCache(session.file);
    for (const name of readdirSync(dir).filter((entry) => /\.segment\.\d+$/.test(entry))) {
      const n = Number(name.split('.').pop());
      const fd = openSync(path.join(dir, name), 'r');
      const map = mapSegment(fd, fstatSync(fd).size);
      const keys = [...chunksOf(fd, map).keys()];
      closeSync(fd);
      const rows = keys.flatMap((key) => {
        const [outputId, idx] = [key.slice(0, key.lastIndexOf(':')), Number(key.slice(key.lastIndexOf(':') + 1))];
        return cache.chunks(n, outputId, idx, idx).map((row) => ({ outputId, idx, codec: row.codec, data: row.data }));
      });
      writeFileSync(path.join(dir, name), buildSegment(rows));
      assert.deepEqual(masksOnDisk(dir, false).get(keys[0]), undefined, `${name} has no masks`);
    }
    // And its index, without the copies' summaries (copySummaries.ts) that came after masks.
    const SQL = await loadSqlJs();
    const index = new SQL.Database(readFileSync(session.file));
    index.exec('DROP TABLE copy_grams');
    writeFileSync(session.file, index.export());
    index.close();
    const source = { kind: 'sessions' as const, sessions: [session], perOutput: 1000, pageMs: 1e9 };
    for (const [pattern, options] of SEARCHES.slice(0, 6)) {
      const search = compileSearch('o', pattern, { ...options, maxMatches: 1000 });
      const whole = await scanSessions(source, search, control, false);
      // Twice: the first search read no mask, so the view keeps no summary to skip by.
      for (let round = 0; round < 2; round++) assert.deepEqual(await scanSessions(source, search, control), whole, pattern);
    }
  });

  it('a match that starts in the chunk before its literal, on a line across the chunk end, is found once, by pages of every size', async () => {
    const dir = dirs.make();
    const store = await openStore({ dir, quotaBytes: 16 * 1024 * KiB, copyBytes: 4 * 1024 * KiB });
    // Filler lines, then a line whose first word starts 20 bytes before the first chunk's end and whose
    // literal (` id=7f3a`) starts after it; three chunks more of filler, the same line across the next end.
    const filler = (bytes: number) => Buffer.from(`${'filler line of words\n'.repeat(Math.ceil(bytes / 21))}`).subarray(0, bytes);
    const crossing = Buffer.from('abcdefghijklmnopqrstuvwxyz id=7f3a ERROR pool\n');
    const text = Buffer.concat([
      filler(CHUNK_BYTES - 21),
      Buffer.from('\n'),
      crossing,
      filler(3 * CHUNK_BYTES - crossing.length - 20 - 1),
      Buffer.from('\n'),
      crossing,
      filler(CHUNK_BYTES),
    ]);
    await store.retain(text);
    const session = { sessionId: store.sessionId, file: store.file };
    await store.close();
    for (const [pattern, regex] of [
      ['[a-z]+ id=7f3a', true], // the match starts before the chunk its only literal starts in
      ['z id=7f3a ERROR', false],
      ['ERROR pool', false],
    ] as const) {
      const expected = [
        ...text.toString('latin1').matchAll(new RegExp(regex ? pattern : pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g')),
      ].map((m) => m.index);
      assert.equal(expected.length, 2, pattern);
      for (const perOutput of [1, 2, 5, 1000]) {
        const search = compileSearch('o', pattern, { regex, caseSensitive: true, maxMatches: Math.max(perOutput, 50) });
        const page = await scanSessions({ kind: 'sessions', sessions: [session], perOutput, pageMs: 1e9 }, search, control);
        const whole = await scanSessions({ kind: 'sessions', sessions: [session], perOutput, pageMs: 1e9 }, search, control, false);
        assert.deepEqual(page, whole, `${pattern}, ${perOutput} an output: by masks as whole`);
        assert.deepEqual(
          page.across!.groups.flatMap((group) => group.matches.map((match) => match.offset)),
          expected.slice(0, perOutput),
          `${pattern}, ${perOutput} an output`,
        );
      }
    }
  });

  it("finds exactly what the whole copies' search finds: log text, CJK, long lines, matches across chunk ends, folding, regular expressions", async () => {
    let indexed = 0;
    let windowed = 0;
    for (const round of propertySize([1], [1, 2])) {
      const seed = 100 * round;
      const dir = dirs.make();
      const store = await openStore({ dir, quotaBytes: 64 * 1024 * KiB, copyBytes: 4 * 1024 * KiB });
      // The quick size an eighth of the full one: still several 64 KiB chunks a copy, every kind of text once.
      const sized = (bytes: number) => propertySize(Math.ceil(bytes / 8), bytes);
      const texts = [
        logText(sized(3 * 1024 * KiB + 123), seed + 1),
        cjkText(sized(1024 * KiB + 5), seed + 2),
        longLines(sized(1024 * KiB), seed + 3),
        boundaryText(24, seed + 4),
        binaryText(sized(512 * KiB + 1), seed + 5),
        Buffer.from(
          logText(sized(700 * KiB), seed + 6)
            .toString('latin1')
            .replace(/\n/g, '\r\n'),
          'latin1',
        ),
        logText(CHUNK_BYTES, seed + 7),
        logText(CHUNK_BYTES + 1, seed + 8),
        logText(1000, seed + 9),
        Buffer.from('warn\nerror\nwarn'),
      ];
      for (const text of texts) await store.retain(text);
      const session = { sessionId: store.sessionId, file: store.file };
      await store.close();
      // A session still open by its owner, one copy checkpointed and one only in its journal: the latter searched whole.
      const open = await openStore({ dir, checkpoints: 'manual', quotaBytes: 64 * 1024 * KiB, copyBytes: 4 * 1024 * KiB });
      await open.retain(boundaryText(6, seed + 10));
      await open.flush();
      await open.retain(logText(sized(300 * KiB), seed + 11));
      const source = {
        kind: 'sessions' as const,
        sessions: [session, { sessionId: open.sessionId, file: open.file }],
        perOutput: 1000,
        pageMs: 1e9,
      };
      /** Every page, through the cursor. */
      const pagesOf = (search: ReturnType<typeof compileSearch>, perOutput: number, useMasks: boolean) =>
        everyPage({ ...source, perOutput }, search, useMasks);
      /** Every match of the pages, in order, by output. */
      const flat = (pages: Awaited<ReturnType<typeof pagesOf>>) =>
        pages.flatMap((page) =>
          page.across!.groups.flatMap((group) => group.matches.map((match) => ({ id: group.output.outputId, ...match }))),
        );
      for (const [index, [pattern, options]] of SEARCHES.entries()) {
        // Unbounded per output (maxPerOutput ≥ maxMatches): a page that fills up ends inside an output and the
        // next continues there. Every match of every output comes once, in order, whatever the page's size.
        // Every other search here (each page scans from its key again: the unit suite's minutes).
        const all =
          index % 2 === round % 2 ? [] : flat(await pagesOf(compileSearch('o', pattern, { ...options, maxMatches: 1000 }), 1000, false));
        for (let i = 1; i < all.length; i++)
          assert.ok(all[i].id !== all[i - 1].id || all[i].offset > all[i - 1].offset, `${pattern}: a match repeated or out of order`);
        // Small pages only where they stay few.
        for (const maxMatches of all.length === 0 ? [] : all.length <= 400 ? [1000, 50] : [1000]) {
          const search = compileSearch('o', pattern, { ...options, maxMatches });
          assert.deepEqual(
            flat(await pagesOf(search, maxMatches, true)),
            all,
            `${pattern} ${JSON.stringify(options)}, pages of ${maxMatches}, by masks`,
          );
          if (maxMatches !== 1000)
            assert.deepEqual(
              flat(await pagesOf(search, 1000, false)),
              all,
              `${pattern} ${JSON.stringify(options)}, pages of ${maxMatches}, whole`,
            );
        }
        for (const maxMatches of [1000, 7]) {
          const search = compileSearch('o', pattern, { ...options, maxMatches });
          // Bounded per output: a page ends before an output whose matches might not fit it.
          const pages = (useMasks: boolean) => pagesOf(search, Math.max(1, maxMatches - 1), useMasks);
          const whole = await pages(false);
          const before = { ...scanCounts };
          const masked = await pages(true);
          if (scanCounts.windows > before.windows || scanCounts.skippedCopies > before.skippedCopies) indexed++;
          if (scanCounts.windows > before.windows) windowed++;
          assert.deepEqual(
            masked,
            whole,
            `${pattern} ${JSON.stringify(options)} maxMatches ${maxMatches}, round ${round} (${PROPERTY_SCALE})`,
          );
        }
      }
      await open.close();
    }
    // Most searches of 1000 matches went by the masks (the others: a whole plan, or too short a literal); of 7,
    // most end in the newest copies, the open session's.
    assert.ok(indexed >= 15 && windowed >= 15, `${indexed} searches by masks, ${windowed} with windows`);
  });
});
