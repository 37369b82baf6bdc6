// The read-only view of another process's session: not a byte written; a torn journal tail ignored in
// place; refusals and errors with their codes. Never a torn state while a real writer process retains,
// removes and checkpoints in a loop: test/system/readOnlySessionWriter.test.ts.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { appendFileSync, promises as fsPromises, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { isRecallError } from '../../src/core/errors';
import { openReadOnlySession } from '../../src/core/store/readOnlySession';
import { openStore, STORE_ENGINES } from '../../src/core/workers/stores';
import { stepContent } from './helpers/retainingWriter';
import { useTempDirs } from './helpers/tempDirs';

const sha = (data: Uint8Array | string): string => createHash('sha256').update(data).digest('hex');

/** Every file in `dir` with its size, times and content hash: what "not a byte written" compares. */
function folderImage(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .map((name) => {
      const file = path.join(dir, name);
      const st = statSync(file, { bigint: true });
      return `${name} ${st.ino} ${st.size} ${st.mtimeNs} ${sha(readFileSync(file))}`;
    });
}

async function rejectsWith(promise: Promise<unknown>, code: string, message: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(isRecallError(error), `expected a RecallError, got ${String(error)}`);
    assert.equal(error.code, code);
    assert.match(error.message, message);
    return true;
  });
}

describe('read-only session view', function () {
  this.timeout(180_000);
  const dirs = useTempDirs('read-only');

  it('writes nothing: the folder is byte for byte the same after reading, and no lock is taken', async () => {
    const dir = dirs.make();
    const store = await openStore({ dir, checkpoints: 'manual' });
    await store.retain(stepContent(1), { title: 'step 1' });
    await store.flush();
    await store.retain(stepContent(2), { title: 'step 2' }); // in the journal only
    const before = folderImage(dir);
    const view = await openReadOnlySession(store.file, STORE_ENGINES);
    try {
      assert.deepEqual(
        (await view.list()).map((i) => i.title),
        ['step 2', 'step 1'],
      );
      for (const info of await view.list()) await view.readAll(info.outputId);
      await view.search((await view.list())[0].outputId, 'line 7');
      await view.refresh();
      await view.stats();
    } finally {
      await view.close();
    }
    assert.deepEqual(folderImage(dir), before);
    assert.ok(!readdirSync(dir).some((name) => name.endsWith('.lock')));
    await store.close();
  });

  it('reads the records before a torn journal tail and leaves the journal where it is', async () => {
    const dir = dirs.make();
    const store = await openStore({ dir, checkpoints: 'manual' });
    const kept = await store.retain('kept before the tear\n', { title: 'kept' });
    // Half of a record (the next append, cut short): magic, version, a header length, part of a header.
    appendFileSync(
      `${store.file}.journal`,
      Buffer.concat([Buffer.from('TORJ\x01', 'latin1'), Buffer.from([40, 0, 0, 0]), Buffer.from('{"op":"ret')]),
    );
    const journal = readFileSync(`${store.file}.journal`);
    const view = await openReadOnlySession(store.file, STORE_ENGINES);
    try {
      assert.deepEqual(
        (await view.list()).map((i) => i.outputId),
        [kept.outputId],
      );
      assert.equal((await view.read(kept.outputId)).text, 'kept before the tear\n');
      assert.equal((await view.stats()).journalBytes, journal.length);
    } finally {
      await view.close();
    }
    assert.deepEqual(readFileSync(`${store.file}.journal`), journal, 'the journal is not moved aside or cut');
    assert.ok(!readdirSync(dir).some((name) => name.includes('.torn-')));
    await store.close();
  });

  it('refreshes only when the files change, and then shows the new outputs', async () => {
    const dir = dirs.make();
    const store = await openStore({ dir });
    const view = await openReadOnlySession(store.file, STORE_ENGINES);
    try {
      assert.equal(await view.stale(), false);
      assert.equal(await view.refresh(), false);
      const { outputId } = await store.retain('new while the view is open\n', { title: 'new' });
      assert.equal(await view.stale(), true);
      assert.equal(await view.refresh(), true);
      assert.equal((await view.info(outputId)).title, 'new');
      assert.equal(view.sessionId, store.sessionId);
      assert.ok(view.createdAt && view.createdAt <= Date.now());
    } finally {
      await view.close();
      await store.close();
    }
  });

  it('sees each change its owner makes (a journal made, appended, rotated and dropped by a checkpoint, a removal), from a listing of the folder it is given', async () => {
    const dir = dirs.make();
    const store = await openStore({ dir, checkpoints: 'manual' });
    const first = await store.retain('checkpointed before the view\n', { title: 'first' });
    await store.flush();
    const view = await openReadOnlySession(store.file, STORE_ENGINES);
    // A search across outputs lists each folder once a page and gives the listing to each session's look (stale).
    const listings = { count: 0 };
    const readdir = fsPromises.readdir;
    const counted = ((...args: Parameters<typeof readdir>) => {
      listings.count++;
      return readdir(...args);
    }) as typeof readdir;
    const staleNow = async (): Promise<boolean> => {
      const names = readdirSync(dir);
      fsPromises.readdir = counted;
      try {
        const given = await view.stale(names);
        assert.equal(listings.count, 0, 'a look given a listing lists nothing');
        fsPromises.readdir = readdir;
        assert.equal(await view.stale(), given, 'a look with its own listing agrees');
        return given;
      } finally {
        fsPromises.readdir = readdir;
      }
    };
    const titles = async (): Promise<string[]> => (await view.list()).map((info) => info.title ?? '').sort();
    try {
      assert.equal(await staleNow(), false);
      const changes: [string, () => Promise<unknown>, string[]][] = [
        ['a journal made', () => store.retain('one\n', { title: 'one' }), ['first', 'one']],
        ['the journal appended', () => store.retain('two\n', { title: 'two' }), ['first', 'one', 'two']],
        [
          'a checkpoint: the journal rotated, the index replaced, the rotated journal dropped',
          () => store.flush(),
          ['first', 'one', 'two'],
        ],
        ['a removal after the checkpoint', () => store.remove(first.outputId), ['one', 'two']],
        ['and its checkpoint', () => store.flush(), ['one', 'two']],
      ];
      for (const [what, change, expected] of changes) {
        await change();
        assert.equal(await staleNow(), true, `${what}: seen`);
        assert.equal(await view.refresh(readdirSync(dir)), true);
        assert.deepEqual(await titles(), expected, what);
        assert.equal(await staleNow(), false, `${what}: once`);
      }
    } finally {
      fsPromises.readdir = readdir;
      await view.close();
      await store.close();
    }
  });

  it('refuses every change with REFUSED, and answers the reading errors the store answers', async () => {
    const dir = dirs.make();
    const store = await openStore({ dir });
    const { outputId } = await store.retain('x\n');
    const view = await openReadOnlySession(store.file, STORE_ENGINES);
    try {
      await rejectsWith(view.retain(), 'REFUSED', /belongs to another process .* shown read-only: VS Code does not retain outputs in it/);
      await rejectsWith(view.remove(), 'REFUSED', /does not remove outputs from it/);
      await rejectsWith(view.delete(), 'REFUSED', /does not delete it/);
      await rejectsWith(view.read('out_0123456789abcdef01234567'), 'NOT_FOUND', /No retained output/);
      await rejectsWith(view.read(outputId, 99), 'OFFSET_OUT_OF_RANGE', /./);
      assert.ok(view.has(outputId));
      assert.ok(!view.has('out_0123456789abcdef01234567'));
    } finally {
      await view.close();
    }
    await rejectsWith(view.list(), 'STORE_CLOSED', /is closed/);
    await store.close();
  });

  it('says why a session cannot be read: gone (NOT_FOUND), not a session file (STORE_UNAVAILABLE)', async () => {
    const dir = dirs.make();
    await rejectsWith(
      openReadOnlySession(path.join(dir, 'gone.sqlite'), STORE_ENGINES),
      'NOT_FOUND',
      /is gone \(the session was deleted or pruned\)/,
    );
    const bogus = path.join(dir, 'bogus.sqlite');
    writeFileSync(bogus, 'not a database at all');
    await rejectsWith(openReadOnlySession(bogus, STORE_ENGINES), 'STORE_UNAVAILABLE', /cannot be read/);
    assert.equal(readFileSync(bogus, 'utf8'), 'not a database at all');
  });
});
