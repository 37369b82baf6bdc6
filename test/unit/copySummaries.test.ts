// Issue 38 §3: each copy's trigram summary, recorded in the index by the checkpoint that writes the copy
// (src/core/store/copySummaries.ts), so a search across outputs in a fresh process rules copies out
// without reading their chunks' masks from the segments; eviction and removal take a summary out.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { copyFileSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { compileSearch } from '../../src/core/search';
import { GRAM_BYTES, candidateChunks, chunkGrams, compactSummary, orOfMasks, type LiteralGrams } from '../../src/core/store/chunkGrams';
import { CHUNK_BYTES } from '../../src/core/store/chunks';
import { SummaryOfCopy, summariesOf } from '../../src/core/store/copySummaries';
import { loadSqlJs } from '../../src/core/store/sqljs';
import { openStore } from '../../src/core/workers/stores';
import { scanSessions } from '../../src/core/workers/sessionScan';
import { viewCounts } from '../../src/core/workers/scanView';
import { makeRng, type Rng } from './helpers/prng';
import { useTempDirs } from './helpers/tempDirs';

const KiB = 1024;
const control = { cancelled: () => false, deadline: Infinity, timeoutMs: 0 };

/** Log-like lines from a small vocabulary, with hex ids and numbers. */
function logText(rng: Rng, bytes: number): Buffer {
  const words = ['ERROR', 'warn', 'pool', 'timeout', 'user=alice', 'refused', 'GET /api/v1', '通过', 'Kelvin'];
  const lines: string[] = [];
  let size = 0;
  while (size < bytes) {
    const line = `${Math.floor(rng.next() * 1e9)} ${words[Math.floor(rng.next() * words.length)]} id=${Math.floor(rng.next() * 0xffffff).toString(16)}\n`;
    lines.push(line);
    size += Buffer.byteLength(line);
  }
  return Buffer.from(lines.join('')).subarray(0, bytes);
}

/** The chunk masks of a copy as a checkpoint makes them (each chunk's last trigrams run into the next chunk). */
const masksOf = (text: Buffer): Uint8Array[] =>
  Array.from({ length: Math.ceil(text.length / CHUNK_BYTES) }, (_, k) => {
    const end = (k + 1) * CHUNK_BYTES;
    return chunkGrams(text.subarray(k * CHUNK_BYTES, end), text.subarray(end, end + 2));
  });

const summaryOf = (text: Buffer): Buffer => {
  const summary = new SummaryOfCopy();
  for (const mask of masksOf(text)) summary.add(mask);
  return Buffer.from(summary.done()!);
};

const ones = (mask: Uint8Array): number => mask.reduce((sum, byte) => sum + byte.toString(2).replace(/0/g, '').length, 0);
const fold = (byte: number): number => (byte >= 0x41 && byte <= 0x5a ? byte + 0x20 : byte);

/** The summaries an index holds, as bytes to compare. */
const summariesIn = (db: import('sql.js').Database): Map<string, Buffer> =>
  new Map([...summariesOf(db)].map(([id, mask]) => [id, Buffer.from(mask)]));

/** The index of the session at `file`, read from disk. */
async function indexOnDisk(file: string): Promise<import('sql.js').Database> {
  const SQL = await loadSqlJs();
  return new SQL.Database(readFileSync(file));
}

describe('trigram summaries of copies, in the index (issue 38 §3)', function () {
  this.timeout(300_000);
  const dirs = useTempDirs('summaries');

  it('a summary holds the bit of every trigram of its copy, halved only while a third of its bits or fewer are set', () => {
    const rng = makeRng(38);
    const texts = [
      logText(rng, 300),
      logText(rng, 5 * KiB),
      logText(rng, 3 * CHUNK_BYTES + 17),
      randomBytes(2 * CHUNK_BYTES),
      Buffer.from('ab'),
      Buffer.from('abc'),
    ];
    for (const text of texts) {
      const summary = summaryOf(text);
      const label = `${text.length} bytes`;
      assert.ok(summary.length >= 64 && summary.length <= GRAM_BYTES && (summary.length & (summary.length - 1)) === 0, label);
      assert.deepEqual(Buffer.from(compactSummary(orOfMasks(masksOf(text)))), summary, label);
      const share = ones(summary) / (summary.length * 8);
      // Halved: a third or fewer of its bits set; then halved no further if the half would have more, or at 64 bytes.
      if (summary.length < GRAM_BYTES) assert.ok(share <= 1 / 3, `${label}: ${share}`);
      if (summary.length > 64) assert.equal(compactSummary(summary).length, summary.length, label);
      // No trigram of the copy is ruled out (a literal of exactly that trigram is possible).
      for (let at = 0; at + 2 < text.length; at++) {
        const gram = (fold(text[at]) << 16) | (fold(text[at + 1]) << 8) | fold(text[at + 2]);
        const literal: LiteralGrams = { grams: [gram], anchored: false };
        if (candidateChunks([summary], [literal]).length === 0) assert.fail(`${label}: the trigram at ${at} is ruled out`);
      }
    }
    // Sparse: the summary of a few trigrams is halved to the least, that of 300 bytes of text to a few hundred
    // bytes; that of random chunks is not halved.
    assert.equal(summaryOf(texts[5]).length, 64);
    assert.ok(summaryOf(texts[0]).length <= 256);
    assert.equal(summaryOf(texts[3]).length, GRAM_BYTES);
    // A chunk without a mask (written before masks) leaves the copy without a summary.
    const spoiled = new SummaryOfCopy();
    spoiled.add(chunkGrams(texts[1]));
    spoiled.add(undefined);
    assert.equal(spoiled.done(), undefined);
    assert.equal(new SummaryOfCopy().done(), undefined);
  });

  it("a checkpoint records its copies' summaries as one row; eviction and removal take a copy's out, the row with its last", async () => {
    const rng = makeRng(7);
    const dir = dirs.make();
    const store = await openStore({ dir, checkpoints: 'manual', quotaBytes: 1536 * KiB, copyBytes: 1024 * KiB });
    const texts = [logText(rng, 700 * KiB), logText(rng, 4 * KiB), logText(rng, 200 * KiB)];
    const ids: string[] = [];
    for (const text of texts) ids.push((await store.retain(text)).outputId);
    await store.flush();
    const later = logText(rng, 100 * KiB);
    const laterId = (await store.retain(later)).outputId;
    await store.flush();
    let db = await indexOnDisk(store.file);
    assert.deepEqual(db.exec('SELECT count(*) FROM copy_grams')[0].values, [[2]], 'a row a checkpoint');
    assert.deepEqual(summariesIn(db), new Map([...ids.map((id, at) => [id, summaryOf(texts[at])] as const), [laterId, summaryOf(later)]]));
    db.close();

    // Removed: out of its row at once (the checkpoint writes the index as it is).
    await store.remove(ids[1]);
    await store.flush();
    db = await indexOnDisk(store.file);
    assert.deepEqual([...summariesIn(db).keys()].sort(), [ids[0], ids[2], laterId].sort());
    assert.deepEqual(summariesIn(db).get(ids[2]), summaryOf(texts[2]), 'the others keep theirs, whole');
    db.close();

    // Evicted by a copy that needs the quota: the oldest go, and their summaries with them.
    const big = logText(rng, 1024 * KiB);
    const bigId = (await store.retain(big)).outputId;
    await store.flush();
    db = await indexOnDisk(store.file);
    const left = summariesIn(db);
    assert.ok(!left.has(ids[0]), 'the evicted copy has no summary');
    assert.deepEqual(left.get(bigId), summaryOf(big));
    db.close();

    for (const id of [...left.keys()]) await store.remove(id);
    await store.flush();
    db = await indexOnDisk(store.file);
    assert.deepEqual(db.exec('SELECT count(*) FROM copy_grams')[0].values, [[0]], 'no row is left without a copy');
    db.close();
    await store.close();
  });

  it('the summaries a release before them left behind (copies it evicted or removed) are dropped at open', async () => {
    const rng = makeRng(5);
    const dir = dirs.make();
    let store = await openStore({ dir, checkpoints: 'manual' });
    const texts = [logText(rng, 90 * KiB), logText(rng, 9 * KiB), logText(rng, 140 * KiB)];
    const ids: string[] = [];
    for (const text of texts) ids.push((await store.retain(text)).outputId);
    await store.flush();
    const { file, sessionId } = store;
    await store.close();
    // As that release removes one copy and evicts another: their rows and placements, not their summaries.
    const db = await indexOnDisk(file);
    db.run('DELETE FROM placements WHERE output_id IN (?, ?)', [ids[0], ids[1]]);
    db.run('DELETE FROM outputs WHERE id = ?', [ids[0]]);
    db.run('UPDATE outputs SET evicted = 1 WHERE id = ?', [ids[1]]);
    writeFileSync(file, db.export());
    db.close();
    const stale = await indexOnDisk(file);
    assert.equal(summariesIn(stale).size, 3);
    stale.close();

    store = await openStore({ dir, sessionId, checkpoints: 'manual' });
    const later = logText(rng, 20 * KiB);
    const laterId = (await store.retain(later)).outputId;
    await store.flush();
    await store.close();
    const pruned = await indexOnDisk(file);
    assert.deepEqual(
      summariesIn(pruned),
      new Map([
        [ids[2], summaryOf(texts[2])],
        [laterId, summaryOf(later)],
      ]),
    );
    pruned.close();
  });

  it('a search across outputs rules copies out by them without reading a mask, and finds what it finds without them', async () => {
    const rng = makeRng(11);
    const dir = dirs.make();
    const store = await openStore({ dir, quotaBytes: 16 * 1024 * KiB, copyBytes: 4 * 1024 * KiB });
    const texts = [logText(rng, 600 * KiB), logText(rng, 3 * KiB), logText(rng, 130 * KiB)];
    texts.push(Buffer.concat([logText(rng, 90 * KiB), Buffer.from('\nfatal: pool exhausted at id=7f3a\n'), logText(rng, 40 * KiB)]));
    for (const text of texts) await store.retain(text);
    const file = store.file;
    await store.close();
    // The same session as a release before summaries wrote it: an index without the table.
    const olderDir = dirs.make();
    for (const name of readdirSync(dir)) copyFileSync(path.join(dir, name), path.join(olderDir, name));
    const older = path.join(olderDir, path.basename(file));
    const db = await indexOnDisk(older);
    db.exec('DROP TABLE copy_grams');
    writeFileSync(older, db.export());
    db.close();

    const sessionId = path.basename(file, '.sqlite');
    const source = (at: string) => ({ kind: 'sessions' as const, sessions: [{ sessionId, file: at }], perOutput: 1000, pageMs: 1e9 });
    for (const [pattern, caseSensitive, absent] of [
      ['qzx-never-printed', true, true],
      ['pool exhausted', false, false],
      ['timeout', true, false],
      ['ID=7F3A', false, false],
    ] as const) {
      const search = compileSearch('o', pattern, { caseSensitive, maxMatches: 1000 });
      const whole = await scanSessions(source(file), search, control, false);
      const before = viewCounts.masksRead;
      const bySummaries = await scanSessions(source(file), search, control);
      const read = viewCounts.masksRead - before;
      // The older index's view reads masks where there is no summary, and keeps its own summaries after.
      const byMasks = await scanSessions(source(older), search, control);
      assert.deepEqual(bySummaries, whole, pattern);
      assert.deepEqual(byMasks.across?.groups, whole.across?.groups, pattern);
      if (absent) {
        assert.equal(whole.across?.groups.length, 0);
        assert.equal(read, 0, `${pattern}: no copy's masks were read`);
      }
    }
    assert.ok(viewCounts.masksRead > 0, 'the older index had its masks read');
  });
});
