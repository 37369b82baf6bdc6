import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { appendFileSync, copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { SessionStore } from '../../src/core/store/sessionStore';
import { openStore } from '../../src/core/workers/stores';
import { crc32, crc32Portable, encodeRecord, parseJournal } from '../../src/core/store/journal';
import { sessionFiles } from '../../src/core/store/sessionFiles';
import { callerExtra, rejectsWith, outputCounts } from './helpers/assertions';
import { storedChunks } from './helpers/storedChunks';
import { useTempDirs } from './helpers/tempDirs';

const KiB = 1024;

const logText = (seed: number, bytes: number): Buffer => {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `[${seed}] ${String(i).padStart(7, '0')} worker ${(i * 7919 + seed) % 97} processed item ${(i * 31 + seed) % 1000}\n`;
    lines.push(line);
    size += line.length;
  }
  return Buffer.from(lines.join('')).subarray(0, bytes);
};

/** A "crash": the session's files as they are now, copied to another folder before any checkpoint. */
function crashCopy(store: SessionStore, to: string): void {
  for (const name of readdirSync(path.dirname(store.file))) {
    if (name.startsWith(path.basename(store.file))) copyFileSync(path.join(path.dirname(store.file), name), path.join(to, name));
  }
}

const journalNames = (dir: string): string[] =>
  readdirSync(dir)
    .filter((name) => name.includes('.journal'))
    .sort();

async function chunkCodecs(file: string): Promise<Record<string, number[]>> {
  const byOutput: Record<string, number[]> = {};
  for (const chunk of await storedChunks(file)) (byOutput[chunk.output_id] ??= []).push(chunk.codec);
  return byOutput;
}

describe('store journal: a retained copy is durable before the session file is rewritten', () => {
  const dirs = useTempDirs('store-journal');

  it('CRC32 is the IEEE one (table and native agree)', () => {
    assert.equal(crc32Portable(Buffer.from('123456789')), 0xcbf43926);
    assert.equal(crc32(Buffer.from('123456789')), 0xcbf43926);
    const data = randomBytes(100_003);
    assert.equal(crc32Portable(data), crc32(data));
    assert.equal(crc32Portable(data.subarray(50), crc32Portable(data.subarray(0, 50))), crc32(data));
  });

  it('retain then crash before any checkpoint: the copies replay from the journal byte for byte, and the checkpoint after replay deflates them', async () => {
    const dir = dirs.make();
    const crashed = dirs.make();
    const store = await openStore({ dir, checkpoints: 'manual' });
    const text = logText(1, 700 * KiB);
    const binary = randomBytes(200 * KiB);
    const a = await store.retain(text, { tool: 'run_command', title: 'make', extra: { exitCode: 2 } });
    const b = await store.retain(binary, { complete: false, droppedBytes: 5 });
    // The session file still holds neither copy: only the journal does.
    assert.deepEqual(await chunkCodecs(store.file), {});
    assert.deepEqual(journalNames(dir), [`${path.basename(store.file)}.journal`]);
    crashCopy(store, crashed);
    await store.close();

    const resumed = await openStore({ dir: crashed, sessionId: store.sessionId });
    assert.deepEqual(resumed.openReport, {});
    assert.equal(resumed.resumed, true);
    assert.deepEqual(await resumed.readAll(a.outputId), text);
    assert.deepEqual(await resumed.readAll(b.outputId), binary);
    const infoA = await resumed.info(a.outputId);
    assert.deepEqual([infoA.tool, infoA.title, callerExtra(infoA.extra), infoA.complete], ['run_command', 'make', { exitCode: 2 }, true]);
    const infoB = await resumed.info(b.outputId);
    assert.deepEqual([infoB.complete, infoB.droppedBytes], [false, 5]);
    assert.deepEqual(
      (await resumed.list()).map((o) => o.outputId),
      [b.outputId, a.outputId],
      'the original order is kept',
    );
    // Replay was followed by a checkpoint: the journal is gone and the session file holds the copies.
    assert.deepEqual(journalNames(crashed), []);
    const codecs = await chunkCodecs(resumed.file);
    assert.ok(
      codecs[a.outputId].every((codec) => codec === 1),
      'text chunks deflated by the checkpoint',
    );
    assert.ok(
      codecs[b.outputId].every((codec) => codec === 0),
      'random chunks stay raw',
    );
    // New copies get new seqs after the replayed ones.
    const c = await resumed.retain('after the crash');
    assert.deepEqual(
      (await resumed.list()).map((o) => o.outputId),
      [c.outputId, b.outputId, a.outputId],
    );
    await resumed.close();
    const again = await openStore({ dir: crashed, sessionId: store.sessionId });
    assert.deepEqual(
      (await again.list()).map((o) => o.outputId),
      [c.outputId, b.outputId, a.outputId],
    );
    await again.delete();
  });

  it('copies taken right after retain resolves (background checkpoints on) always reopen with the copy', async () => {
    const dir = dirs.make();
    const store = await openStore({ dir });
    for (let round = 0; round < 4; round++) {
      const crashed = dirs.make();
      const content = logText(round, 300 * KiB);
      const { outputId } = await store.retain(content);
      crashCopy(store, crashed);
      const resumed = await openStore({ dir: crashed, sessionId: store.sessionId });
      assert.deepEqual(await resumed.readAll(outputId), content);
      await resumed.close();
    }
    await store.close();
  });

  it('a torn tail (truncated mid-record) ends the replay there; earlier records replay, the bad file is kept aside and reported (other damage: storeDamage.test.ts)', async () => {
    const dir = dirs.make();
    const store = await openStore({ dir, checkpoints: 'manual' });
    const contents = [logText(1, 100 * KiB), logText(2, 100 * KiB), logText(3, 100 * KiB)];
    const ids: string[] = [];
    for (const content of contents) ids.push((await store.retain(content)).outputId);
    const journal = readFileSync(`${store.file}.journal`);
    const records = parseJournal(journal).entries;
    assert.equal(records.length, 3);
    const recordEnd = (index: number): number => journal.indexOf(records[index].content) + records[index].content.length + 4;

    // The file ends 1000 bytes into the third record.
    const torn = dirs.make();
    crashCopy(store, torn);
    const tornJournal = path.join(torn, `${path.basename(store.file)}.journal`);
    writeFileSync(tornJournal, journal.subarray(0, recordEnd(1) + 1000));
    let resumed = await openStore({ dir: torn, sessionId: store.sessionId });
    assert.deepEqual(await resumed.readAll(ids[0]), contents[0]);
    assert.deepEqual(await resumed.readAll(ids[1]), contents[1]);
    await rejectsWith(resumed.read(ids[2]), 'NOT_FOUND');
    const report = resumed.openReport.journalTruncated;
    assert.ok(report && report.length === 1, 'the truncation is reported');
    assert.equal(report[0].bytesIgnored, 1000);
    assert.match(report[0].path, /\.journal\.torn-\d+-[0-9a-f]{6}$/);
    assert.deepEqual(readFileSync(report[0].path), journal.subarray(0, recordEnd(1) + 1000), 'the damaged journal is kept as it was');
    assert.equal(existsSync(tornJournal), false);
    // The session goes on: a new copy after the torn one is journalled in a fresh file and survives.
    const later = await resumed.retain('later');
    await resumed.close();
    resumed = await openStore({ dir: torn, sessionId: store.sessionId });
    assert.deepEqual(resumed.openReport, {}, 'the kept-aside file is not replayed again');
    assert.equal((await resumed.read(later.outputId)).text, 'later');
    await resumed.close();

    await store.close();
  });

  it('a removed copy does not come back: not from a stale journal record, nor when its removal is still only in the journal', async () => {
    const dir = dirs.make();
    const store = await openStore({ dir, checkpoints: 'manual' });
    const a = await store.retain('A'.repeat(10_000));
    const b = await store.retain('B'.repeat(10_000));
    const journalPath = `${store.file}.journal`;
    const journalBefore = readFileSync(journalPath);
    const fileBefore = readFileSync(store.file);
    await store.remove(b.outputId); // the newest copy: its seq must not be reused or replayed
    await rejectsWith(store.read(b.outputId), 'NOT_FOUND');
    assert.deepEqual(journalNames(dir), [], 'remove() checkpoints: the content is gone from the journal');

    // A crash after the removal's checkpoint wrote the file but before it dropped the journal.
    const stale = dirs.make();
    crashCopy(store, stale);
    writeFileSync(path.join(stale, path.basename(journalPath)), journalBefore);
    let resumed = await openStore({ dir: stale, sessionId: store.sessionId });
    await rejectsWith(resumed.read(b.outputId), 'NOT_FOUND');
    assert.equal((await resumed.readAll(a.outputId)).toString(), 'A'.repeat(10_000));
    const c = await resumed.retain('C');
    assert.deepEqual(
      (await resumed.list()).map((o) => o.outputId),
      [c.outputId, a.outputId],
    );
    await resumed.close();

    // A crash after the removal was journalled but before any checkpoint.
    const early = dirs.make();
    writeFileSync(path.join(early, path.basename(store.file)), fileBefore);
    writeFileSync(
      path.join(early, path.basename(journalPath)),
      Buffer.concat([journalBefore, ...encodeRecord({ op: 'remove', outputId: b.outputId })]),
    );
    resumed = await openStore({ dir: early, sessionId: store.sessionId });
    assert.deepEqual(resumed.openReport, {});
    await rejectsWith(resumed.read(b.outputId), 'NOT_FOUND');
    assert.equal((await resumed.readAll(a.outputId)).toString(), 'A'.repeat(10_000));
    await resumed.close();
    await store.close();
  });

  it('replay applies the quota: a journalled copy evicts the oldest as it did originally', async () => {
    const dir = dirs.make();
    const crashed = dirs.make();
    const store = await openStore({ dir, checkpoints: 'manual', copyBytes: 64 * KiB, quotaBytes: 128 * KiB });
    const a = await store.retain(logText(1, 60 * KiB));
    const b = await store.retain(logText(2, 60 * KiB));
    await store.flush(); // the file holds a and b; the journal is empty
    const c = await store.retain(logText(3, 60 * KiB)); // evicts a
    assert.equal((await store.info(a.outputId)).evicted, true);
    crashCopy(store, crashed);
    await store.close();
    const resumed = await openStore({ dir: crashed, sessionId: store.sessionId, copyBytes: 64 * KiB, quotaBytes: 128 * KiB });
    await rejectsWith(resumed.read(a.outputId), 'EVICTED');
    assert.deepEqual(await resumed.readAll(b.outputId), logText(2, 60 * KiB));
    assert.deepEqual(await resumed.readAll(c.outputId), logText(3, 60 * KiB));
    assert.deepEqual(outputCounts(await resumed.stats()), { outputs: 2, retainedBytes: 120 * KiB, evicted: 1 });
    await resumed.delete();
  });

  it('close(): retains already queued finish and are durable; a retain after close began is refused and never appears', async () => {
    const dir = dirs.make();
    const store = await openStore({ dir });
    const queued = store.retain('queued before close');
    const closing = store.close();
    await rejectsWith(store.retain('too late'), 'STORE_CLOSED');
    const { outputId } = await queued;
    await closing;
    assert.deepEqual(journalNames(dir), [], 'close() checkpointed');
    const resumed = await openStore({ dir, sessionId: store.sessionId });
    assert.deepEqual(
      (await resumed.list()).map((o) => o.outputId),
      [outputId],
    );
    await resumed.delete();
  });

  it('delete() removes the session file and every journal file; sessionFiles lists them', async () => {
    const dir = dirs.make();
    const store = await openStore({ dir, checkpoints: 'manual' });
    await store.retain('x');
    const files = await sessionFiles(store.file);
    assert.deepEqual(
      files.map((f) => path.basename(f)),
      [path.basename(store.file), `${path.basename(store.file)}.journal`],
    );
    // A rotated journal left by an interrupted checkpoint is part of the session too.
    writeFileSync(`${store.file}.journal.7`, '');
    assert.equal((await sessionFiles(store.file)).length, 3);
    await store.delete();
    assert.deepEqual(readdirSync(dir), []);
  });

  it('rotated journals left by failed checkpoints replay in order, then are dropped', async () => {
    const dir = dirs.make();
    const store = await openStore({ dir, checkpoints: 'manual' });
    const a = await store.retain('first');
    const journal = `${store.file}.journal`;
    const first = readFileSync(journal);
    writeFileSync(journal, '');
    const b = await store.retain('second');
    const second = readFileSync(journal);
    const crashed = dirs.make();
    writeFileSync(path.join(crashed, path.basename(store.file)), readFileSync(store.file));
    writeFileSync(path.join(crashed, `${path.basename(journal)}.2`), first);
    appendFileSync(path.join(crashed, `${path.basename(journal)}.10`), second);
    await store.close();
    const resumed = await openStore({ dir: crashed, sessionId: store.sessionId });
    assert.deepEqual(
      (await resumed.list()).map((o) => o.outputId),
      [b.outputId, a.outputId],
    );
    assert.deepEqual(journalNames(crashed), []);
    await resumed.delete();
  });
});
