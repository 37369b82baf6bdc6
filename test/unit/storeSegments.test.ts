import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { appendFileSync, readFileSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { openStore, STORE_ENGINES } from '../../src/core/workers/stores';
import { openReadOnlySession } from '../../src/core/store/readOnlySession';
import { SegmentCache } from '../../src/core/store/segments';
import type { RecallError } from '../../src/core/errors';
import { listSessions, segmentFile, sessionFiles } from '../../src/core/store/sessionFiles';
import { KiB, MiB } from '../../src/core/limits';
import { rejectsWith } from './helpers/assertions';
import { storedChunks } from './helpers/storedChunks';
import { useTempDirs } from './helpers/tempDirs';

const segmentNames = (dir: string): string[] =>
  readdirSync(dir)
    .filter((name) => /\.segment\.\d+$/.test(name))
    .sort((a, b) => Number(a.split('.').pop()) - Number(b.split('.').pop()));

/** Each segment file's inode and mtime: a segment written once is never changed. */
const identities = (dir: string): Map<string, string> =>
  new Map(
    segmentNames(dir).map((name) => {
      const st = statSync(path.join(dir, name), { bigint: true });
      return [name, `${st.ino}:${st.mtimeNs}:${st.size}`];
    }),
  );

describe('store: content segments', function () {
  this.timeout(60_000);
  const dirs = useTempDirs('store-segments');

  it('a checkpoint writes the new chunks into new segments and leaves the existing ones as they were', async () => {
    const dir = dirs.make();
    const store = await openStore({ dir, checkpoints: 'manual' });
    const first = randomBytes(3 * MiB);
    const a = await store.retain(first);
    await store.flush();
    const before = identities(dir);
    assert.equal(before.size, 3, '3 MiB of incompressible chunks: three 1 MiB segments');
    const b = await store.retain(randomBytes(200 * KiB));
    await store.flush();
    const after = identities(dir);
    for (const [name, identity] of before) assert.equal(after.get(name), identity, `${name} untouched`);
    assert.equal(after.size, 4);
    assert.deepEqual(await store.readAll(a.outputId), first);
    assert.equal((await store.readAll(b.outputId)).length, 200 * KiB);
    assert.deepEqual((await sessionFiles(store.file)).filter((f) => f.includes('.segment.')).length, 4, 'sessionFiles lists the segments');
    const [listed] = await listSessions(dir);
    assert.ok(listed.bytes > 3 * MiB + 200 * KiB, `listSessions counts the segments: ${listed.bytes}`);
    await store.delete();
    assert.deepEqual(readdirSync(dir), [], 'delete() removes every segment');
  });

  it('eviction and removal delete a segment once no live copy is in it; one less than half live is rewritten', async () => {
    const dir = dirs.make();
    const store = await openStore({ dir, checkpoints: 'manual', quotaBytes: 4 * MiB, copyBytes: 2 * MiB });
    // One checkpoint: a's 10 chunks and b's first 6 fill segment 1; b's last 4 go into segment 2.
    const a = await store.retain(randomBytes(10 * 64 * KiB));
    const bBytes = randomBytes(10 * 64 * KiB);
    const b = await store.retain(bBytes);
    await store.flush();
    assert.deepEqual(segmentNames(dir).length, 2);
    await store.remove(a.outputId);
    await store.close();
    // Segment 1 was 6/16 live: b's chunks moved into a new segment, and segment 1 deleted.
    const names = segmentNames(dir);
    assert.ok(!names.some((name) => name.endsWith('.segment.1')), `segment 1 deleted: ${names.join(', ')}`);
    const reopened = await openStore({ dir, sessionId: store.sessionId, quotaBytes: 4 * MiB, copyBytes: 2 * MiB, checkpoints: 'manual' });
    assert.deepEqual(await reopened.readAll(b.outputId), bBytes);
    assert.deepEqual(
      (await storedChunks(reopened.file)).map((c) => c.output_id),
      Array.from({ length: 10 }, () => b.outputId),
      'no chunk stored twice, none of the removed copy',
    );
    // Quota: each new 2 MiB copy evicts the oldest; the disk holds about the quota, not the history.
    for (let i = 0; i < 6; i++) {
      await reopened.retain(randomBytes(2 * MiB));
      await reopened.flush();
    }
    await reopened.close();
    const bytes = segmentNames(dir).reduce((sum, name) => sum + statSync(path.join(dir, name)).size, 0);
    assert.ok(bytes <= 4.5 * MiB, `segments on disk ${bytes} bytes for a 4 MiB quota`);
  });

  it('a segment missing or torn is moved aside and reported at open; the copies in it read as damaged, the others intact', async () => {
    const dir = dirs.make();
    const store = await openStore({ dir, checkpoints: 'manual' });
    const a = await store.retain(randomBytes(1 * MiB));
    const b = await store.retain('in the next segment');
    await store.flush();
    await store.close();
    const torn = segmentFile(store.file, 1);
    truncateSync(torn, 1000);
    const reopened = await openStore({ dir, sessionId: store.sessionId });
    const lost = reopened.openReport.segmentsLost;
    assert.equal(lost?.length, 1);
    assert.match(lost[0].path, /\.segment\.1\.torn-\d+-[0-9a-f]{6}$/);
    assert.match(lost[0].reason, /1000 bytes, \d+ were written/);
    assert.deepEqual(lost[0].outputs, [a.outputId]);
    const error = await rejectsWith(reopened.read(a.outputId), 'STORE_UNAVAILABLE');
    assert.match(error.message, /missing from the session file/);
    assert.equal((await reopened.read(b.outputId)).text, 'in the next segment');
    await reopened.close();
  });

  /** A closed session of two segments: `a`, 1 MiB of incompressible bytes, fills segment 1; `b` is in segment 2. */
  async function twoSegments(dir: string): Promise<{ sessionId: string; file: string; a: string; aBytes: Buffer; b: string }> {
    const store = await openStore({ dir, checkpoints: 'manual' });
    const aBytes = randomBytes(1 * MiB);
    const a = await store.retain(aBytes);
    const b = await store.retain('in the next segment');
    await store.flush();
    await store.close();
    assert.deepEqual(segmentNames(dir), [`${store.sessionId}.sqlite.segment.1`, `${store.sessionId}.sqlite.segment.2`]);
    return { sessionId: store.sessionId, file: store.file, a: a.outputId, aBytes, b: b.outputId };
  }

  for (const [what, appended] of [
    ['5000 random bytes', () => randomBytes(5000)],
    ['a whole SQLite page of zeros', () => Buffer.alloc(4096)],
    ['a copy of another segment (pages that look valid)', (file: string) => readFileSync(segmentFile(file, 2))],
  ] as const) {
    it(`bytes appended to a segment (${what}) lose nothing: its outputs read back exactly, the file as found is kept aside and reported, the segment cut back`, async () => {
      const dir = dirs.make();
      const session = await twoSegments(dir);
      const segment = segmentFile(session.file, 1);
      const written = readFileSync(segment);
      const extra = appended(session.file);
      appendFileSync(segment, extra);
      const found = readFileSync(segment);

      // Another process's read-only view reads it as written, and changes nothing.
      const view = await openReadOnlySession(session.file, STORE_ENGINES);
      try {
        assert.deepEqual(await view.readAll(session.a), session.aBytes);
        assert.equal((await view.read(session.b)).text, 'in the next segment');
      } finally {
        await view.close();
      }
      assert.deepEqual(readFileSync(segment), found, 'the view changed nothing');

      const store = await openStore({ dir, sessionId: session.sessionId });
      assert.equal(store.resumed, true);
      assert.equal(store.openReport.movedAside, undefined, 'the index is not set aside');
      assert.equal(store.openReport.segmentsLost, undefined, 'no output lost');
      const setAside = store.openReport.segmentsSetAside;
      assert.equal(setAside?.length, 1);
      assert.equal(setAside[0].path, segment);
      assert.equal(
        setAside[0].reason,
        `${extra.length} bytes past the ${written.length} the index records for it; its outputs read as written`,
      );
      assert.match(setAside[0].aside ?? '', /\.segment\.1\.torn-\d+-[0-9a-f]{6}$/);
      assert.deepEqual(readFileSync(setAside[0].aside ?? ''), found, 'kept aside as found');
      assert.deepEqual(readFileSync(segment), written, 'the segment is as it was written');
      assert.deepEqual(await store.readAll(session.a), session.aBytes);
      assert.equal((await store.read(session.b)).text, 'in the next segment');
      await store.close();

      const again = await openStore({ dir, sessionId: session.sessionId });
      assert.deepEqual(again.openReport, {}, 'reported once');
      assert.deepEqual(await again.readAll(session.a), session.aBytes);
      await again.close();
    });
  }

  it('a segment longer than written whose first bytes do not hold what the index places there is moved aside and reported lost, as a torn one', async () => {
    const dir = dirs.make();
    const session = await twoSegments(dir);
    const segment = segmentFile(session.file, 1);
    const written = statSync(segment).size;
    // Another segment's valid pages, padded past the length the index records for this one.
    const other = readFileSync(segmentFile(session.file, 2));
    writeFileSync(segment, Buffer.concat([other, randomBytes(written + 100 - other.length)]));
    const store = await openStore({ dir, sessionId: session.sessionId });
    assert.equal(store.openReport.segmentsSetAside, undefined);
    const lost = store.openReport.segmentsLost;
    assert.equal(lost?.length, 1);
    assert.match(lost[0].path, /\.segment\.1\.torn-\d+-[0-9a-f]{6}$/);
    assert.match(
      lost[0].reason,
      new RegExp(`^${written + 100} bytes, ${written} were written, and its first ${written} do not hold what the index places in it`),
    );
    assert.deepEqual(lost[0].outputs, [session.a]);
    await rejectsWith(store.read(session.a), 'STORE_UNAVAILABLE');
    assert.equal((await store.read(session.b)).text, 'in the next segment');
    await store.close();
  });

  it("a cache held for a search's page keeps the segments it reads open, reads them as written (deleted or not), and closes them at release", async () => {
    const dir = dirs.make();
    const store = await openStore({ dir, checkpoints: 'manual' });
    const content = randomBytes(3 * MiB); // incompressible: 48 raw chunks, three segments
    const { outputId } = await store.retain(content);
    await store.flush();
    const file = store.file;
    await store.close();
    const numbers = segmentNames(dir).map((name) => Number(name.split('.').pop()));
    assert.equal(numbers.length, 3);
    const openFiles = (): number => readdirSync('/proc/self/fd').length;
    const cache = new SegmentCache(file);
    const whole = (): Buffer =>
      Buffer.concat(
        numbers
          .flatMap((n) => cache.chunks(n, outputId, 0, 47))
          .sort((a, b) => a.idx - b.idx)
          .map((row) => Buffer.from(row.data)),
      );
    const before = openFiles();
    cache.hold();
    assert.deepEqual(whole(), content);
    assert.equal(openFiles(), before + 3, 'each segment read is kept open');
    assert.deepEqual(whole(), content, 'read again through the files held');
    assert.equal(openFiles(), before + 3, 'and not opened again');
    for (const n of numbers) rmSync(segmentFile(file, n));
    assert.deepEqual(whole(), content, 'a segment deleted while held reads as it was written');
    cache.release();
    assert.equal(openFiles(), before, 'release closes them all');
    assert.throws(
      () => whole(),
      (error: RecallError) => error.code === 'STORE_UNAVAILABLE' && /is gone/.test(error.message),
    );
  });

  it('a reader holding an older index reads a copy whose segment was rewritten and deleted since', async () => {
    const dir = dirs.make();
    const store = await openStore({ dir, checkpoints: 'manual' });
    const a = await store.retain(randomBytes(10 * 64 * KiB));
    const bBytes = randomBytes(10 * 64 * KiB);
    const b = await store.retain(bBytes);
    await store.flush();
    const view = await openReadOnlySession(store.file, STORE_ENGINES);
    try {
      // The rewrite moves b out of segment 1; close() deletes segment 1 without the grace period.
      await store.remove(a.outputId);
      await store.close();
      assert.ok(!segmentNames(dir).some((name) => name.endsWith('.segment.1')));
      assert.deepEqual(await view.readAll(b.outputId), bBytes, 'read again through the new index');
      assert.equal(view.lastRead.attempts, 1);
      await rejectsWith(view.read(a.outputId), 'NOT_FOUND');
    } finally {
      await view.close();
    }
  });
});
