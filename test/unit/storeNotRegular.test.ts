// A session's files that are not regular files (a FIFO, a link, a folder put in their place) never
// wedge the store: opening a FIFO with no writer blocks forever, and a blocked open held every call
// that waited on the session (an MCP server never answered, its stop never finished). Each is
// refused at once, moved aside or read as absent, with the kind of file named.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { resolveSettings } from '../../src/core/settings';
import { openLockedSession } from '../../src/core/store/lockedSession';
import { readSessionAgent } from '../../src/core/store/sessionAgent';
import { agentFile, journalFile, sessionFile } from '../../src/core/store/sessionFiles';
import { lockFileFor } from '../../src/core/store/sessionLock';
import { openStore } from '../../src/core/store/sessionStore';
import { rejectsWith } from './helpers/assertions';
import { useTempDirs } from './helpers/tempDirs';

const mkfifo = (file: string): void => void execFileSync('mkfifo', [file]);
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

describe('store: session files that are not regular files are refused, never waited on', function () {
  this.timeout(30_000);
  const dirs = useTempDirs('store-not-regular');

  for (const [kind, make, reason] of [
    ['a FIFO', mkfifo, /is a FIFO \(named pipe\), not a regular file/],
    ['a folder', (file: string) => mkdirSync(file), /is a folder, not a regular file/],
  ] as const) {
    it(`the session file is ${kind}: moved aside with its kind named, and the session starts empty`, async () => {
      const dir = dirs.make();
      const file = sessionFile(dir, 'odd');
      make(file);
      const store = await openStore({ dir, sessionId: 'odd' });
      const moved = store.openReport.movedAside;
      assert.ok(moved, 'openReport.movedAside is set');
      assert.match(moved.reason, reason);
      assert.ok(lstatSync(moved.path), 'kept aside for the user');
      assert.equal(store.resumed, false);
      const { outputId } = await store.retain('after the odd file');
      assert.equal((await store.read(outputId)).text, 'after the odd file');
      await store.close();
    });
  }

  it('the session file is a link to a real session: refused (a link is never followed), moved aside, the target untouched', async () => {
    const elsewhere = dirs.make();
    const real = await openStore({ dir: elsewhere, sessionId: 'real' });
    await real.retain('the real session');
    await real.close();
    const dir = dirs.make();
    symlinkSync(sessionFile(elsewhere, 'real'), sessionFile(dir, 'linked'));
    const store = await openStore({ dir, sessionId: 'linked' });
    assert.match(store.openReport.movedAside?.reason ?? '', /is a symbolic link, not a regular file/);
    assert.deepEqual(await store.list(), []);
    await store.close();
    const again = await openStore({ dir: elsewhere, sessionId: 'real' });
    assert.equal((await again.list()).length, 1, 'the linked session is as it was');
    await again.close();
  });

  it('the journal is a FIFO: the open fails at once with STORE_UNAVAILABLE naming the file', async () => {
    const dir = dirs.make();
    const first = await openStore({ dir, sessionId: 'j' });
    await first.close();
    mkfifo(journalFile(sessionFile(dir, 'j')));
    const error = await rejectsWith(openStore({ dir, sessionId: 'j' }), 'STORE_UNAVAILABLE');
    assert.match(error.message, /journal.* is a FIFO \(named pipe\), not a regular file/);
  });

  it('the lock is a FIFO: read as a stale lock, replaced, and the session opens', async () => {
    const dir = dirs.make();
    mkfifo(lockFileFor(sessionFile(dir, 'l')));
    const { store, lock } = await openLockedSession({
      dir,
      sessionId: 'l',
      settings: resolveSettings(() => undefined),
      open: openStore,
      log: silent,
    });
    assert.equal(store.sessionId, 'l');
    assert.ok(lstatSync(lock.file).isFile(), 'a real lock file now');
    await store.close();
    await lock.release();
    assert.equal(existsSync(lock.file), false);
  });

  it('the agent record is a FIFO: read as no record', async () => {
    const dir = dirs.make();
    const file = sessionFile(dir, 'a');
    writeFileSync(file, '');
    mkfifo(agentFile(file));
    assert.equal(await readSessionAgent(file), undefined);
  });
});
