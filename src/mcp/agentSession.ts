/**
 * The one session a server process writes: started (or resumed with --session) in the workspace's
 * session folder, under the same lock the extension takes, so a VS Code window and any number of
 * servers never write one session file at once; old sessions are pruned by the same policy.
 */
import { promises as fs } from 'node:fs';
import { RecallError, describeError } from '../core/errors';
import { newSessionId } from '../core/ids';
import { sessionStoreOptions, type RecallSettings } from '../core/settings';
import { journalDamageText } from '../core/store/journal';
import { listSessions, sessionFile } from '../core/store/sessionFiles';
import { tryLockSession } from '../core/store/sessionLock';
import { pruneSessions } from '../core/store/sessionPruning';
import { openWorkerStore, type WorkerStore } from '../core/store/workerClient';
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
  await fs.mkdir(dir, { recursive: true });
  const lock = await tryLockSession(file);
  if (!lock) {
    throw new RecallError(
      'STORE_UNAVAILABLE',
      `Session ${sessionId} is open in another process (a VS Code window or another server); omit --session to start a session of this server's own.`,
    );
  }
  let store: WorkerStore;
  try {
    store = await openWorkerStore(sessionStoreOptions(dir, sessionId, settings));
  } catch (error) {
    await lock.release();
    throw error;
  }
  log.info(`${store.resumed ? 'resumed' : 'started'} session ${store.sessionId} at ${store.file}`);
  const aside = store.openReport.movedAside;
  if (aside) log.error(`the session file would not open (${aside.reason}); kept it as ${aside.path} and started empty`);
  for (const torn of store.openReport.journalTruncated ?? []) log.warn(journalDamageText(torn));
  for (const lost of store.openReport.segmentsLost ?? []) {
    log.error(`the content segment ${lost.path} is ${lost.reason}: parts of ${lost.outputs.join(', ')} cannot be read`);
  }
  // In the background (startup does not wait), but finished before the process ends.
  const pruning = pruneSessions(dir, settings, sessionId).then(
    (removed) => removed.length > 0 && log.info(`pruned ${removed.length} old session(s): ${removed.join(', ')}`),
    (error) => log.warn(`pruning sessions failed: ${describeError(error)}`),
  );
  return {
    store,
    async close() {
      await pruning;
      await store.close().catch((error) => log.warn(`closing session ${sessionId}: ${describeError(error)}`));
      await lock.release();
    },
  };
}
