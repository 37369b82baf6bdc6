// RecallStore.annotate: fields merged into an output's extra after it was retained (the text the
// model was given for it), journalled before they are applied, so they survive a crash like the copy.
// A real run_command's copy and the store worker: test/system/annotate.test.ts.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { newOutputId } from '../../src/core/ids';
import { encodeRecord, parseJournal, type JournalHeader } from '../../src/core/store/journal';
import { openReadOnlySession } from '../../src/core/store/readOnlySession';
import type { SessionStore } from '../../src/core/store/sessionStore';
import { openStore, STORE_ENGINES } from '../../src/core/workers/stores';
import type { RecallStore } from '../../src/core/types';
import { checkRefusals, extraOf, journalHeaders, UNKNOWN_ID } from './helpers/annotate';
import { callerExtra, outputCounts, rejectsWith } from './helpers/assertions';
import { useTempDirs } from './helpers/tempDirs';

/** A "crash": the session's files as they are now, copied to another folder before any checkpoint. */
function crashCopy(store: SessionStore, to: string): void {
  for (const name of readdirSync(path.dirname(store.file))) {
    if (name.startsWith(path.basename(store.file))) copyFileSync(path.join(path.dirname(store.file), name), path.join(to, name));
  }
}

describe('annotate: fields merged into an output’s extra, durably', function () {
  this.timeout(60_000);
  const dirs = useTempDirs('annotate');

  describe('session store', () => {
    it('merges shallowly: a key replaces the one it names, the others stay; info() and list() show the merged extra', async () => {
      const store = await openStore({ dir: dirs.make() });
      try {
        const a = await store.retain('first output\n', { tool: 'run_command', title: 'make', extra: { exitCode: 2, stream: 'both' } });
        const b = await store.retain('second output\n');
        const counts = outputCounts(await store.stats());

        await store.annotate(a.outputId, { preview: 'first preview', exitCode: 3, nested: { a: 1, b: 2 } });
        await store.annotate(a.outputId, { preview: 'second preview', nested: { c: 3 }, gone: undefined });
        await store.annotate(b.outputId, { preview: 'b preview' }); // a copy retained without extra

        const merged = { exitCode: 3, stream: 'both', preview: 'second preview', nested: { c: 3 } };
        assert.deepEqual(
          await extraOf(store, a.outputId),
          merged,
          'nested objects are replaced whole; undefined (dropped by JSON) changes nothing',
        );
        assert.deepEqual(await extraOf(store, b.outputId), { preview: 'b preview' });
        const listed = await store.list();
        assert.deepEqual(
          listed.map((info) => [info.outputId, callerExtra(info.extra)]),
          [
            [b.outputId, { preview: 'b preview' }],
            [a.outputId, merged],
          ],
        );
        // The rest of the output is as retained, and an annotation is no retained byte.
        const info = await store.info(a.outputId);
        assert.deepEqual(
          { tool: info.tool, title: info.title, totalBytes: info.totalBytes, complete: info.complete },
          { tool: 'run_command', title: 'make', totalBytes: 13, complete: true },
        );
        assert.equal((await store.read(a.outputId)).text, 'first output\n');
        assert.deepEqual(outputCounts(await store.stats()), counts);

        // The caller's object is not kept: changing it later changes nothing.
        const fields = { preview: 'mine' };
        await store.annotate(b.outputId, fields);
        fields.preview = 'changed after the call';
        assert.deepEqual(await extraOf(store, b.outputId), { preview: 'mine' });
      } finally {
        await store.delete();
      }
    });

    it('survives close and reopen (resume)', async () => {
      const dir = dirs.make();
      const store = await openStore({ dir });
      const { outputId } = await store.retain('kept\n', { extra: { exitCode: 0 } });
      await store.annotate(outputId, { preview: 'what the model saw' });
      await store.close();
      assert.deepEqual(
        readdirSync(dir).filter((name) => name.includes('.journal')),
        [],
        'close checkpoints the annotation into the session file',
      );
      const resumed = await openStore({ dir, sessionId: store.sessionId });
      try {
        assert.equal(resumed.resumed, true);
        assert.deepEqual(await extraOf(resumed, outputId), { exitCode: 0, preview: 'what the model saw' });
        await resumed.annotate(outputId, { preview: 'again' });
        assert.deepEqual(await extraOf(resumed, outputId), { exitCode: 0, preview: 'again' });
      } finally {
        await resumed.delete();
      }
    });

    it('survives a crash before any checkpoint (journal replay), and replaying it again ends the same', async () => {
      const dir = dirs.make();
      const store = await openStore({ dir, checkpoints: 'manual' });
      const a = await store.retain('A\n', { extra: { exitCode: 1 } });
      const b = await store.retain('B\n');
      await store.flush(); // the file holds both copies, without annotations; the journal is empty
      await store.annotate(a.outputId, { preview: 'first', n: 1 });
      await store.annotate(a.outputId, { n: 2 });
      await store.annotate(b.outputId, { preview: 'b' });
      assert.deepEqual(journalHeaders(store.file), [
        { op: 'annotate', outputId: a.outputId, extra: { preview: 'first', n: 1 } },
        { op: 'annotate', outputId: a.outputId, extra: { n: 2 } },
        { op: 'annotate', outputId: b.outputId, extra: { preview: 'b' } },
      ]);
      const journal = readFileSync(`${store.file}.journal`);
      const crashed = dirs.make();
      crashCopy(store, crashed);
      await store.close();

      const expected = { [a.outputId]: { exitCode: 1, preview: 'first', n: 2 }, [b.outputId]: { preview: 'b' } };
      let resumed = await openStore({ dir: crashed, sessionId: store.sessionId, checkpoints: 'manual' });
      assert.deepEqual(resumed.openReport, {});
      for (const [id, extra] of Object.entries(expected)) assert.deepEqual(await extraOf(resumed, id), extra);
      await resumed.close();

      // A crash after a checkpoint wrote the file but before it dropped the journal: replayed over a
      // file that holds the annotations already.
      writeFileSync(path.join(crashed, `${path.basename(store.file)}.journal`), journal);
      resumed = await openStore({ dir: crashed, sessionId: store.sessionId, checkpoints: 'manual' });
      assert.deepEqual(resumed.openReport, {});
      for (const [id, extra] of Object.entries(expected)) assert.deepEqual(await extraOf(resumed, id), extra);
      await resumed.close();
    });

    it('replay skips an annotation of an output removed since, or never in this session', async () => {
      const dir = dirs.make();
      const store = await openStore({ dir, checkpoints: 'manual' });
      const a = await store.retain('A\n');
      const b = await store.retain('B\n');
      await store.annotate(b.outputId, { preview: 'b' });
      const crashed = dirs.make();
      crashCopy(store, crashed);
      await store.close();
      const journal = path.join(crashed, `${path.basename(store.file)}.journal`);
      writeFileSync(
        journal,
        Buffer.concat([
          readFileSync(journal),
          ...encodeRecord({ op: 'remove', outputId: b.outputId }),
          ...encodeRecord({ op: 'annotate', outputId: b.outputId, extra: { late: true } }),
          ...encodeRecord({ op: 'annotate', outputId: UNKNOWN_ID, extra: { stray: true } }),
          ...encodeRecord({ op: 'annotate', outputId: a.outputId, extra: { preview: 'a' } }),
        ]),
      );
      const resumed = await openStore({ dir: crashed, sessionId: store.sessionId });
      try {
        assert.deepEqual(resumed.openReport, {});
        assert.deepEqual(
          (await resumed.list()).map((info) => [info.outputId, callerExtra(info.extra)]),
          [[a.outputId, { preview: 'a' }]],
        );
        await rejectsWith(resumed.info(b.outputId), 'NOT_FOUND');
      } finally {
        await resumed.delete();
      }
    });

    it('NOT_FOUND for an unknown id and for an id of another session, EVICTED for an evicted copy, INVALID_ARGUMENT for an extra over 256 KiB or not a plain object', async () => {
      const dir = dirs.make();
      const store = await openStore({ dir, copyBytes: 4096, quotaBytes: 8192 });
      const other = await openStore({ dir });
      try {
        const theirs = await other.retain('in the other session\n');
        const notFound = await rejectsWith(store.annotate(theirs.outputId, { preview: 'x' }), 'NOT_FOUND');
        assert.match(notFound.message, /IDs resolve only in the session that made them/);
        assert.equal(await extraOf(other, theirs.outputId), undefined);

        const first = await store.retain('1'.repeat(4000));
        await store.retain('2'.repeat(4000));
        const live = await store.retain('3'.repeat(4000)); // evicts the first
        await checkRefusals(store, { evicted: first.outputId, live: live.outputId });
      } finally {
        await other.delete();
        await store.delete();
      }
    });

    it('a failed journal write rejects with STORE_UNAVAILABLE naming the annotation, and nothing changes', async () => {
      const dir = dirs.make();
      const store = await openStore({ dir, checkpoints: 'manual' });
      const { outputId } = await store.retain('saved before the failure\n', { extra: { exitCode: 0 } });
      rmSync(dir, { recursive: true });
      writeFileSync(dir, 'x'); // the folder is now a file: every write fails with ENOTDIR
      const error = await rejectsWith(store.annotate(outputId, { preview: 'p' }), 'STORE_UNAVAILABLE');
      assert.match(error.message, new RegExp(`^The annotation of "${outputId}" could not be saved to the session journal .*ENOTDIR`));
      assert.match(error.message, /so the output was not annotated\.$/);
      assert.deepEqual(await extraOf(store, outputId), { exitCode: 0 });
      rmSync(dir);
      mkdirSync(dir);
      await store.annotate(outputId, { preview: 'after repair' });
      assert.deepEqual(await extraOf(store, outputId), { exitCode: 0, preview: 'after repair' });
      await store.delete();
    });

    it('refuses once the store is closing or closed (STORE_CLOSED)', async () => {
      const store = await openStore({ dir: dirs.make() });
      const { outputId } = await store.retain('x\n');
      const closing = store.close();
      await rejectsWith(store.annotate(outputId, { preview: 'p' }), 'STORE_CLOSED');
      await closing;
      await rejectsWith(store.annotate(outputId, { preview: 'p' }), 'STORE_CLOSED');
    });
  });

  describe('journal format', () => {
    it('an annotate record is version 1 with no content; a reader that does not know an op skips it as a damaged record, and replays the records after it', () => {
      const annotate = encodeRecord({ op: 'annotate', outputId: UNKNOWN_ID, extra: { preview: 'p' } });
      assert.equal(annotate[0].readUInt8(4), 1, 'the record format version is unchanged');
      assert.equal(annotate[2].readUInt32LE(0), 0, 'no content');
      const remove = encodeRecord({ op: 'remove', outputId: UNKNOWN_ID });
      // What a reader that predates `annotate` does with one (here: an op this reader does not know).
      const future = encodeRecord({ op: 'future', outputId: UNKNOWN_ID } as unknown as JournalHeader);
      const parsed = parseJournal(Buffer.concat([...annotate, ...future, ...remove]));
      assert.deepEqual(
        parsed.entries.map((entry) => entry.header.op),
        ['annotate', 'remove'],
      );
      assert.deepEqual(parsed.skipped, [{ offset: Buffer.concat(annotate).length, bytes: Buffer.concat(future).length }]);
      // A damaged annotate (extra not an object) is not applied either.
      const bad = encodeRecord({ op: 'annotate', outputId: UNKNOWN_ID, extra: ['x'] } as unknown as JournalHeader);
      assert.equal(parseJournal(Buffer.concat(bad)).entries.length, 0);
    });

    it('reads a session written before: a retain, then an annotate with the preview, replayed from the journal', async () => {
      const dir = dirs.make();
      const store = await openStore({ dir, checkpoints: 'manual' });
      await store.flush();
      const { outputId } = await store.retain('old\n', { tool: 'run_command', extra: { exitCode: 0 } });
      await store.annotate(outputId, { preview: 'the text the model got' });
      assert.deepEqual(
        journalHeaders(store.file).map((header) => header.op),
        ['retain', 'annotate'],
      );
      const crashed = dirs.make();
      crashCopy(store, crashed);
      await store.close();
      const resumed = await openStore({ dir: crashed, sessionId: store.sessionId, checkpoints: 'manual' });
      assert.deepEqual(await extraOf(resumed, outputId), { exitCode: 0, preview: 'the text the model got' });
      await resumed.close();
    });

    it('keeps a copy under an outputId the caller made, and refuses one that is taken or not an outputId', async () => {
      const store = await openStore({ dir: dirs.make(), checkpoints: 'manual' });
      const outputId = newOutputId();
      assert.equal((await store.retain('mine\n', { outputId })).outputId, outputId);
      const taken = await rejectsWith(store.retain('again\n', { outputId }), 'INVALID_ARGUMENT');
      assert.match(taken.message, /is not a new outputId; make one with newOutputId\(\) or omit it/);
      const odd = await rejectsWith(store.retain('odd\n', { outputId: 'out_1' }), 'INVALID_ARGUMENT');
      assert.match(odd.message, /"out_1" is not a new outputId/);
      assert.equal((await store.list()).length, 1);
      await store.close();
    });
  });

  describe('read-only view of another process’s session', () => {
    it('shows an annotation while it is only in the writer’s journal, and after the checkpoint; refuses annotate with REFUSED', async () => {
      const dir = dirs.make();
      const store = await openStore({ dir, checkpoints: 'manual' });
      const saved = await store.retain('checkpointed\n', { title: 'saved', extra: { exitCode: 0 } });
      await store.flush();
      await store.annotate(saved.outputId, { preview: 'saved preview' }); // in the journal only
      const fresh = await store.retain('journal only\n', { title: 'fresh' });
      await store.annotate(fresh.outputId, { preview: 'fresh preview' });
      const view = await openReadOnlySession(store.file, STORE_ENGINES);
      try {
        assert.deepEqual(await extraOf(view, saved.outputId), { exitCode: 0, preview: 'saved preview' });
        assert.deepEqual(
          (await view.list()).map((info) => [info.title, callerExtra(info.extra)]),
          [
            ['fresh', { preview: 'fresh preview' }],
            ['saved', { exitCode: 0, preview: 'saved preview' }],
          ],
        );
        assert.equal(view.lastRead.journalRecords, 3, 'two annotations and a retain applied over the file');
        const refused = await rejectsWith((view as RecallStore).annotate(saved.outputId, { preview: 'x' }), 'REFUSED');
        assert.match(refused.message, /belongs to another process .* shown read-only: VS Code does not annotate outputs in it/);

        // The writer annotates again, then checkpoints: the view follows, now from the file.
        await store.annotate(saved.outputId, { preview: 'newer' });
        assert.equal(await view.refresh(), true);
        assert.equal((await extraOf(view, saved.outputId))?.preview, 'newer');
        await store.flush();
        assert.equal(await view.refresh(), true);
        assert.equal(view.lastRead.journalRecords, 0);
        assert.deepEqual(await extraOf(view, saved.outputId), { exitCode: 0, preview: 'newer' });
        assert.deepEqual(await extraOf(view, fresh.outputId), { preview: 'fresh preview' });
      } finally {
        await view.close();
        await store.close();
      }
    });
  });
});
