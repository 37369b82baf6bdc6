// openLockedSession (src/core/store/lockedSession.ts), the one way both front ends open a session:
// lock, open, report, prune; with real session files, real locks and the in-process store.
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { RecallError } from '../../src/core/errors';
import { resolveSettings } from '../../src/core/settings';
import { openLockedSession } from '../../src/core/store/lockedSession';
import { lockFileFor } from '../../src/core/store/sessionLock';
import { openStore } from '../../src/core/workers/stores';
import { sessionFile } from '../../src/core/store/sessionFiles';
import type { ToolLog } from '../../src/core/tools/toolSpec';
import { useTempDirs } from './helpers/tempDirs';

function recordingLog(): ToolLog & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (m) => lines.push(`info ${m}`), warn: (m) => lines.push(`warn ${m}`), error: (m) => lines.push(`error ${m}`) };
}

describe('openLockedSession: lock, open, report, prune', function () {
  this.timeout(30_000);
  const dirs = useTempDirs('locked-session');
  const settings = resolveSettings(() => undefined);

  it('locks the session it opens and logs it; a second opener gets a session of its own, or the error it asked for', async () => {
    const dir = dirs.make();
    const log = recordingLog();
    const first = await openLockedSession({ dir, sessionId: 's1', settings, open: openStore, log });
    assert.equal(first.store.sessionId, 's1');
    assert.ok(existsSync(lockFileFor(sessionFile(dir, 's1'))));
    assert.match(log.lines[0], /^info started session s1 at /);

    const second = await openLockedSession({ dir, sessionId: 's1', settings, open: openStore, log });
    assert.notEqual(second.store.sessionId, 's1');
    assert.ok(log.lines.includes("info session s1 is open in another window; starting a session of this window's own"));

    const refusal = new RecallError('STORE_UNAVAILABLE', 'held elsewhere');
    await assert.rejects(
      openLockedSession({ dir, sessionId: 's1', settings, open: openStore, log, refuseLocked: () => refusal }),
      (error) => error === refusal,
    );
    for (const opened of [first, second]) {
      await opened.pruning;
      await opened.store.close();
      await opened.lock.release();
    }
  });

  it('releases the lock when the open fails', async () => {
    const dir = dirs.make();
    const failure = new Error('no store today');
    await assert.rejects(
      openLockedSession({ dir, sessionId: 's2', settings, open: () => Promise.reject(failure), log: recordingLog() }),
      (error) => error === failure,
    );
    assert.equal(existsSync(lockFileFor(sessionFile(dir, 's2'))), false);
  });

  it('reports a session file moved aside (log and callback) and prunes past the count limit, never the open session', async () => {
    const dir = dirs.make();
    for (const id of ['old1', 'old2', 'old3']) {
      const opened = await openLockedSession({ dir, sessionId: id, settings, open: openStore, log: recordingLog() });
      await opened.pruning;
      await opened.store.close();
      await opened.lock.release();
    }
    writeFileSync(sessionFile(dir, 'bad'), 'not a database');
    const log = recordingLog();
    const asides: string[] = [];
    const opened = await openLockedSession({
      dir,
      sessionId: 'bad',
      settings: { ...settings, sessionsMaxCount: 1 },
      open: openStore,
      log,
      onMovedAside: (aside) => asides.push(aside.path),
    });
    await opened.pruning;
    assert.equal(asides.length, 1);
    assert.ok(log.lines.some((line) => line.startsWith('error the session file would not open')));
    // Pruned in any order; the session just opened is kept.
    const pruned = log.lines.find((line) => line.startsWith('info pruned '));
    assert.deepEqual(
      pruned
        ?.replace(/^info pruned 3 old session\(s\): /, '')
        .split(', ')
        .sort(),
      ['old1', 'old2', 'old3'],
      log.lines.join('\n'),
    );
    assert.ok(existsSync(sessionFile(dir, 'bad')));
    await opened.store.close();
    await opened.lock.release();
  });
});
