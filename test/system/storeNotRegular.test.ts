// A session's files that are not regular files (a FIFO, a link, a folder put in their place) never
// wedge the store: opening a FIFO with no writer blocks forever, and a blocked open held every call
// that waited on the session (an MCP server never answered, its stop never finished). Each is
// refused at once, moved aside or read as absent, with the kind of file named.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, type Stats } from 'node:fs';
import * as path from 'node:path';
import { MiB } from '../../src/core/limits';
import { resolveSettings } from '../../src/core/settings';
import { openLockedSession } from '../../src/core/store/lockedSession';
import { readSessionAgent } from '../../src/core/store/sessionAgent';
import { agentFile, journalFile, segmentFile, sessionFile } from '../../src/core/store/sessionFiles';
import { lockFileFor } from '../../src/core/store/sessionLock';
import { openStore } from '../../src/core/workers/stores';
import { rejectsWith } from '../unit/helpers/assertions';
import { useTempDirs } from '../unit/helpers/tempDirs';

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

  /** A closed session of two segments: `a`, 1 MiB of incompressible bytes, fills segment 1; `b` is in segment 2. */
  async function twoSegments(dir: string): Promise<{ file: string; sessionId: string; a: string; aBytes: Buffer; b: string }> {
    const store = await openStore({ dir, sessionId: 'seg', checkpoints: 'manual' });
    const aBytes = randomBytes(1 * MiB);
    const a = await store.retain(aBytes);
    const b = await store.retain('in the next segment');
    await store.flush();
    await store.close();
    assert.ok(lstatSync(segmentFile(store.file, 2)).isFile(), 'two segments');
    return { file: store.file, sessionId: store.sessionId, a: a.outputId, aBytes, b: b.outputId };
  }

  // Each kind, put under a segment's name; a link points at a regular file (for segment 1, a copy of
  // it): it is refused, never followed.
  for (const [kind, make, reason, is] of [
    ['a folder', (entry: string) => mkdirSync(entry), /^a folder, not a regular file/, (st: Stats) => st.isDirectory()],
    ['a FIFO', mkfifo, /^a FIFO \(named pipe\), not a regular file/, (st: Stats) => st.isFIFO()],
    [
      'a symbolic link',
      (entry: string, target: string) => symlinkSync(target, entry),
      /^a symbolic link, not a regular file/,
      (st: Stats) => st.isSymbolicLink(),
    ],
  ] as const) {
    it(`${kind} named as a segment no index names: moved aside and reported, and the session's outputs all open intact`, async () => {
      const dir = dirs.make();
      const session = await twoSegments(dir);
      const target = path.join(dirs.make(), 'elsewhere');
      writeFileSync(target, 'not a segment');
      const entry = segmentFile(session.file, 7);
      make(entry, target);
      const warnings: string[] = [];
      const { store, lock } = await openLockedSession({
        dir,
        sessionId: session.sessionId,
        settings: resolveSettings(() => undefined),
        open: openStore,
        log: { ...silent, warn: (message: string) => void warnings.push(message) },
      });
      try {
        assert.equal(store.resumed, true);
        assert.equal(store.openReport.movedAside, undefined, 'the index is not set aside');
        assert.equal(store.openReport.segmentsLost, undefined);
        const setAside = store.openReport.segmentsSetAside;
        assert.equal(setAside?.length, 1);
        assert.equal(setAside[0].path, entry);
        assert.match(setAside[0].reason, reason);
        assert.match(setAside[0].aside ?? '', /\.segment\.7\.corrupt-\d+-[0-9a-f]{6}$/);
        assert.ok(is(lstatSync(setAside[0].aside ?? '')), 'kept aside as it was');
        assert.equal(existsSync(entry), false);
        assert.ok(
          warnings.some((line) => line.includes(entry) && line.includes(setAside[0].aside ?? '')),
          `logged: ${warnings.join(' | ')}`,
        );
        assert.deepEqual(await store.readAll(session.a), session.aBytes);
        assert.equal((await store.read(session.b)).text, 'in the next segment');
        assert.equal(readFileSync(target, 'utf8'), 'not a segment', 'a link target is untouched');
      } finally {
        await store.close();
        await lock.release();
      }
      const again = await openStore({ dir, sessionId: session.sessionId });
      assert.deepEqual(again.openReport, {}, 'reported once');
      await again.close();
    });

    it(`${kind} in the place of a segment the index names: moved aside, its outputs reported lost, the others intact`, async () => {
      const dir = dirs.make();
      const session = await twoSegments(dir);
      const segment = segmentFile(session.file, 1);
      const written = readFileSync(segment);
      const copy = path.join(dirs.make(), 'segment-copy');
      copyFileSync(segment, copy);
      rmSync(segment);
      make(segment, copy);
      const store = await openStore({ dir, sessionId: session.sessionId });
      try {
        assert.equal(store.resumed, true);
        assert.equal(store.openReport.movedAside, undefined, 'the index is not set aside');
        const lost = store.openReport.segmentsLost;
        assert.equal(lost?.length, 1);
        assert.match(lost[0].reason, reason);
        assert.match(lost[0].path, /\.segment\.1\.corrupt-\d+-[0-9a-f]{6}$/);
        assert.ok(is(lstatSync(lost[0].path)), 'kept aside as it was');
        assert.deepEqual(lost[0].outputs, [session.a]);
        await rejectsWith(store.read(session.a), 'STORE_UNAVAILABLE');
        assert.equal((await store.read(session.b)).text, 'in the next segment');
        assert.deepEqual(readFileSync(copy), written, 'a link target is untouched');
      } finally {
        await store.close();
      }
    });

    it(`${kind} named as a segment beside no session file: moved aside and reported, and the new session starts`, async () => {
      const dir = dirs.make();
      const target = path.join(dirs.make(), 'elsewhere');
      writeFileSync(target, 'not a segment');
      const entry = segmentFile(sessionFile(dir, 'new'), 1);
      make(entry, target);
      const store = await openStore({ dir, sessionId: 'new' });
      try {
        assert.equal(store.resumed, false);
        const setAside = store.openReport.segmentsSetAside;
        assert.equal(setAside?.length, 1);
        assert.match(setAside[0].reason, reason);
        assert.ok(is(lstatSync(setAside[0].aside ?? '')));
        const { outputId } = await store.retain('a new segment 1');
        await store.flush();
        assert.ok(lstatSync(entry).isFile(), 'its name is free for a real segment');
        assert.equal((await store.read(outputId)).text, 'a new segment 1');
      } finally {
        await store.close();
      }
    });
  }
});
