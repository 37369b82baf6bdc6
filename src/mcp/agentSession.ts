/**
 * The one session a server process writes: started (or resumed with --session) in the workspace's
 * session folder, under the same lock the extension takes, so a VS Code window and any number of
 * servers never write one session file at once; old sessions are pruned by the same policy.
 */
import { promises as fs } from 'node:fs';
import { RecallError, describeError } from '../core/errors';
import { newSessionId } from '../core/ids';
import type { RecallSettings } from '../core/settings';
import { openLockedSession } from '../core/store/lockedSession';
import { listSessions, sessionFile } from '../core/store/sessionFiles';
import { openWorkerStore, type WorkerStore } from '../core/workers/workerClient';
import type { Log } from './log';

export interface AgentSession {
  readonly store: WorkerStore;
  /** Closes the store (a last checkpoint) and releases the lock. */
  close(): Promise<void>;
}

export async function openAgentSession(dir: string, settings: RecallSettings, log: Log, resume?: string): Promise<AgentSession> {
  const sessionId = resume ?? newSessionId();
  const file = sessionFile(dir, sessionId);
  if (resume && !(await fs.stat(file).catch(() => undefined))) {
    const known = (await listSessions(dir)).slice(0, 10).map((session) => session.sessionId);
    throw new RecallError(
      'NOT_FOUND',
      `There is no session ${resume} in ${dir}. ${known.length ? `Sessions there, newest first: ${known.join(', ')}.` : 'That folder holds no sessions.'}`,
    );
  }
  const { store, lock, pruning } = await openLockedSession({
    dir,
    sessionId,
    settings,
    open: openWorkerStore,
    log,
    refuseLocked: (id) =>
      new RecallError(
        'STORE_UNAVAILABLE',
        `Session ${id} is open in another process (a VS Code window or another server); omit --session to start a session of this server's own.`,
      ),
  });
  return {
    store,
    async close() {
      await pruning;
      await store.close().catch((error) => log.warn(`closing session ${sessionId}: ${describeError(error)}`));
      await lock.release();
    },
  };
}
