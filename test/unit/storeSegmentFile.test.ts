import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import { RecallError } from '../../src/core/errors';
import { KiB } from '../../src/core/limits';
import { SegmentCache, SegmentWriter } from '../../src/core/store/segments';
import { buildSegment } from '../../src/core/store/segmentBuild';
import { segmentFile } from '../../src/core/store/sessionFiles';
import { loadSqlJs } from '../../src/core/store/sqljs';
import { useTempDirs } from './helpers/tempDirs';

/** Every chunk row of a segment, as sql.js reads it. */
function sqlRows(SQL: SqlJsStatic, bytes: Buffer): { output_id: string; idx: number; codec: number; data: Uint8Array }[] {
  const db = new SQL.Database(bytes);
  try {
    const [result] = db.exec('SELECT output_id, idx, codec, data FROM chunks ORDER BY output_id, idx');
    return result.values.map(([output_id, idx, codec, data]) => ({
      output_id: output_id as string,
      idx: idx as number,
      codec: codec as number,
      data: data as Uint8Array,
    }));
  } finally {
    db.close();
  }
}

/** What SegmentCache reads of every row sql.js sees in segment `n`, beside what sql.js reads. */
function bothReads(SQL: SqlJsStatic, file: string, n: number): { ours: unknown[]; theirs: unknown[] } {
  const theirs = sqlRows(SQL, readFileSync(segmentFile(file, n)));
  const cache = new SegmentCache(file);
  const ours = theirs.map((row) => {
    const [got] = cache.chunks(n, row.output_id, row.idx, row.idx);
    return { output_id: row.output_id, idx: got.idx, codec: got.codec, data: Buffer.from(got.data) };
  });
  return { ours, theirs: theirs.map((row) => ({ ...row, data: Buffer.from(row.data) })) };
}

const SMALL = randomBytes(200);

/** The table of a segment as the previous release wrote it (sql.js, before buildSegment). */
const PREVIOUS_SEGMENT_SCHEMA =
  'CREATE TABLE IF NOT EXISTS chunks (output_id TEXT NOT NULL, idx INTEGER NOT NULL, codec INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (output_id, idx));';

describe('store: a segment file, written and read by its pages (segmentFile.ts)', function () {
  this.timeout(30_000);
  const dirs = useTempDirs('segment-file');
  let SQL: SqlJsStatic;
  before(async () => {
    SQL = await loadSqlJs();
  });

  it('reads every chunk a SegmentWriter wrote, byte for byte as sql.js reads it: on the page, spilling, and over many pages', async () => {
    const file = path.join(dirs.make(), 'session.sqlite');
    const writer = new SegmentWriter(file, () => 1);
    // Sizes around SQLite's limits for a 4 KiB page: all on the leaf page (≤ 4061), just past it, and 64 KiB.
    const sizes = [0, 1, 100, 489, 490, 4061, 4062, 4093, 6000, 20 * KiB, 64 * KiB, 64 * KiB - 1, 3];
    for (const [idx, size] of sizes.entries()) await writer.add('out_a', idx, { codec: idx % 2, data: randomBytes(size) });
    await writer.add('out_b', 0, { codec: 0, data: randomBytes(64 * KiB) });
    await writer.seal();
    await writer.sync();
    const { ours, theirs } = bothReads(SQL, file, 1);
    assert.equal(theirs.length, sizes.length + 1);
    assert.deepEqual(ours, theirs);
    const cache = new SegmentCache(file);
    assert.deepEqual(
      cache.chunks(1, 'out_a', 2, 5).map((row) => row.idx),
      [2, 3, 4, 5],
      'a range comes back in order',
    );
    assert.deepEqual(cache.chunks(1, 'out_c', 0, 3), [], 'a copy the segment does not hold: no rows');
  });

  it('SQLite reads what buildSegment writes as a sound database (integrity check), one leaf or several levels of b-tree', () => {
    for (const [what, rows] of [
      ['no rows', []],
      ['one small row', [{ outputId: 'out_a', idx: 0, codec: 1, data: Buffer.from('x') }]],
      [
        '128 chunks of 64 KiB, idx past a byte',
        Array.from({ length: 130 }, (_, idx) => ({ outputId: 'out_a', idx: idx * 300, codec: 0, data: randomBytes(64 * KiB) })),
      ],
      // Small rows, tens of thousands: about a thousand leaves, under interior pages under the root.
      [
        '30,000 small rows',
        Array.from({ length: 30_000 }, (_, idx) => ({
          outputId: `out_${idx % 7}`,
          idx,
          codec: idx % 2,
          data: SMALL.subarray(idx % 50, 60 + (idx % 50)),
        })),
      ],
    ] as const) {
      const bytes = buildSegment([...rows]);
      // Page 2 is the root; page 3 the first page of the level below it (interior too: two levels).
      if (rows.length > 10_000) assert.deepEqual([bytes[4096], bytes[2 * 4096]], [0x05, 0x05], 'two interior levels');
      const db = new SQL.Database(bytes);
      try {
        assert.deepEqual(db.exec('PRAGMA integrity_check')[0].values, [['ok']], what);
        const [result] = db.exec('SELECT output_id, idx, codec, data FROM chunks ORDER BY rowid');
        const read = result
          ? result.values.map(([outputId, idx, codec, data]) => ({ outputId, idx, codec, data: Buffer.from(data as Uint8Array) }))
          : [];
        assert.deepEqual(
          read,
          rows.map((row) => ({ ...row, data: Buffer.from(row.data) })),
          what,
        );
      } finally {
        db.close();
      }
    }
  });

  it('reads a segment written by the previous release (sql.js, with a primary key and its index), whose chains are not all consecutive', () => {
    const file = path.join(dirs.make(), 'session.sqlite');
    const db = new SQL.Database();
    db.exec(`PRAGMA journal_mode=OFF; ${PREVIOUS_SEGMENT_SCHEMA}`);
    for (let idx = 0; idx < 12; idx++) db.run('INSERT INTO chunks VALUES (?, ?, 0, ?)', ['out_a', idx, randomBytes(30 * KiB)]);
    // Every other row deleted, then rows larger than each hole: their chains run through several freed runs.
    db.run("DELETE FROM chunks WHERE idx % 2 = 1 AND output_id = 'out_a'");
    for (let idx = 0; idx < 4; idx++) db.run('INSERT INTO chunks VALUES (?, ?, 1, ?)', ['out_b', idx, randomBytes(50 * KiB)]);
    const bytes = Buffer.from(db.export());
    db.close();
    writeFileSync(segmentFile(file, 7), bytes);
    const { ours, theirs } = bothReads(SQL, file, 7);
    assert.equal(theirs.length, 10);
    assert.deepEqual(ours, theirs);
  });

  it('a damaged segment is STORE_UNAVAILABLE naming the file, whatever the damage; never a hang or a wrong row', async () => {
    const file = path.join(dirs.make(), 'session.sqlite');
    const writer = new SegmentWriter(file, () => 1);
    for (let idx = 0; idx < 8; idx++) await writer.add('out_a', idx, { codec: 0, data: randomBytes(64 * KiB) });
    await writer.seal();
    await writer.sync();
    const good = readFileSync(segmentFile(file, 1));
    const pageSize = good.readUInt16BE(16);
    const damages: [string, (bytes: Buffer) => Buffer][] = [
      ['not a SQLite file', (bytes) => Buffer.concat([Buffer.from('garbage!'), bytes.subarray(8)])],
      ['cut inside its pages', (bytes) => bytes.subarray(0, 3 * pageSize + 100)],
      ['only a header', (bytes) => bytes.subarray(0, 60)],
      ['a page type byte flipped', (bytes) => flip(bytes, 100)],
      ['the chunks table root pointing past the end', (bytes) => pointRootTo(bytes, 0xffffff)],
      ['the chunks table root pointing at page 1 (a cycle)', (bytes) => pointRootTo(bytes, 1)],
      ['an overflow chain looping on itself', (bytes) => loopFirstOverflow(bytes, pageSize)],
    ];
    for (const [what, damage] of damages) {
      writeFileSync(segmentFile(file, 2), damage(Buffer.from(good)));
      const cache = new SegmentCache(file);
      assert.throws(
        () => cache.chunks(2, 'out_a', 0, 7),
        (error: unknown) =>
          error instanceof RecallError &&
          error.code === 'STORE_UNAVAILABLE' &&
          error.message.includes(segmentFile(file, 2)) &&
          /cannot be read/.test(error.message),
        what,
      );
    }
  });

  it('bytes appended to a segment are not its pages: its chunks read as written, and a page number pointing into them is damage', async () => {
    const file = path.join(dirs.make(), 'session.sqlite');
    const writer = new SegmentWriter(file, () => 1);
    const chunks = [randomBytes(1000), randomBytes(1000), randomBytes(20 * KiB)];
    for (const [idx, data] of chunks.entries()) await writer.add('out_a', idx, { codec: 0, data });
    await writer.seal();
    await writer.sync();
    const good = readFileSync(segmentFile(file, 1));
    const pageSize = good.readUInt16BE(16);
    const pages = good.length / pageSize;
    const read = (bytes: Buffer): Buffer[] => {
      writeFileSync(segmentFile(file, 2), bytes);
      return new SegmentCache(file).chunks(2, 'out_a', 0, 2).map((row) => Buffer.from(row.data));
    };
    assert.deepEqual(read(Buffer.concat([good, randomBytes(3 * pageSize + 17)])), chunks, 'garbage appended');
    assert.deepEqual(read(Buffer.concat([good, good])), chunks, 'a whole segment appended');
    // The table's root (page 2, a leaf) copied after the last page, and the schema pointed at the copy:
    // a page past the header's count, read from bytes the segment was not written with.
    const pointed = pointRootTo(Buffer.concat([good, good.subarray(pageSize, 2 * pageSize)]), pages + 1);
    assert.throws(
      () => read(pointed),
      (error: unknown) => error instanceof RecallError && error.code === 'STORE_UNAVAILABLE' && /out of range/.test(error.message),
    );
  });

  it('a segment gone since the index named it is STORE_UNAVAILABLE with reason segmentGone', () => {
    const file = path.join(dirs.make(), 'session.sqlite');
    assert.throws(
      () => new SegmentCache(file).chunks(3, 'out_a', 0, 0),
      (error: unknown) => error instanceof RecallError && error.code === 'STORE_UNAVAILABLE' && error.details.reason === 'segmentGone',
    );
  });
});

function flip(bytes: Buffer, at: number): Buffer {
  bytes[at] ^= 0xff;
  return bytes;
}

/** Rewrites the rootpage of the `chunks` row in sqlite_master (a one-byte integer right before the row's SQL). */
function pointRootTo(bytes: Buffer, page: number): Buffer {
  const at = bytes.indexOf('tablechunkschunks', 0, 'latin1') + 'tablechunkschunks'.length;
  assert.ok(at > 'tablechunkschunks'.length, 'found the chunks row of sqlite_master');
  // The record header gave rootpage serial type 1 (one byte); keep the type, change the value, or
  // for a value past a byte, point it at a page that does not exist (the last page number plus many).
  bytes[at] = page > 0xff ? 0xff : page;
  return bytes;
}

/** Makes the first overflow page of the table link to itself. */
function loopFirstOverflow(bytes: Buffer, pageSize: number): Buffer {
  // After sqlite_master (page 1) and the table's root, the first page whose link is the page after
  // it is an overflow page: make it link to itself.
  for (let n = 3; n * pageSize <= bytes.length; n++) {
    const at = (n - 1) * pageSize;
    if (bytes.readUInt32BE(at) === n + 1) {
      bytes.writeUInt32BE(n, at);
      return bytes;
    }
  }
  throw new Error('no overflow page found');
}
