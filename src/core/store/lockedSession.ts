/**
 * Opening a session the way every front end does (the VS Code window's SessionManager and the MCP
 * server): take its lock, open it, report what the open found (moved aside, torn journals), and
 * prune old sessions in the background. A session file is never written by two processes at once.
 */
import { promises as fs } from 'node:fs';
import { RecallError, describeError } from '../errors';
import { newSessionId } from '../ids';
import type { RecallSettings } from '../settings';
import { sessionStoreOptions } from './storeOptions';
import type { OpenReport, RecallStore } from '../types';
import { journalDamageText } from './journal';
import { sessionFile } from './sessionFiles';
import { tryLockSession, type SessionLock } from './sessionLock';
import { pruneSessions } from './sessionPruning';
import type { OpenStoreOptions } from './storeOptions';

/** Where the opening is told (a front end's log; a tool's `ToolLog` is one). */
export interface SessionLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** A store as a front end holds it: the engine's interface plus where it lives and what its open found. */
export type OpenedStore = RecallStore & { readonly file: string; readonly openReport: OpenReport; readonly resumed: boolean };

export interface LockedSessionOptions<S extends OpenedStore> {
  dir: string;
  sessionId: string;
  settings: RecallSettings;
  /** The session this one was forked from (named in the log and the store). */
  forkedFrom?: string;
  open: (options: OpenStoreOptions) => Promise<S>;
  log: SessionLog;
  /**
   * When another process holds the session: undefined starts a new session of this process's own
   * (a second VS Code window); otherwise the error to throw (a server told to resume that session).
   */
  refuseLocked?: (sessionId: string) => RecallError;
  /** Told when the session file would not open and was moved aside (VS Code shows a warning). */
  onMovedAside?: (aside: NonNullable<OpenReport['movedAside']>) => void;
}

export interface LockedSession<S extends OpenedStore> {
  store: S;
  lock: SessionLock;
  /** The background pruning of old sessions; never rejects (a failure is logged). */
  pruning: Promise<void>;
}

/**
 * How long a session named on purpose waits for its holder to end before it is refused: a stopped MCP
 * server's process ends within a few ms of its front at load ~12 and about 130 ms at load 15-17 (its
 * exit bench); the margin is for a busier machine.
 */
const HELD_LOCK_WAIT_MS = 3000;

/** Takes the lock once its holder has let it go, or undefined after `waitMs`. */
async function lockOnceFree(file: string, waitMs: number): Promise<SessionLock | undefined> {
  const until = Date.now() + waitMs;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const lock = await tryLockSession(file);
    if (lock || Date.now() > until) return lock;
  }
}

export async function openLockedSession<S extends OpenedStore>(options: LockedSessionOptions<S>): Promise<LockedSession<S>> {
  const { dir, settings, forkedFrom, log } = options;
  await fs.mkdir(dir, { recursive: true });
  let id = options.sessionId;
  let lock = await tryLockSession(sessionFile(dir, id));
  if (!lock) {
    // A session named on purpose (an MCP server's --session) may be held by the server a client just
    // stopped: it ends, and releases the lock, moments after the process the client waited for.
    if (options.refuseLocked) lock = await lockOnceFree(sessionFile(dir, id), HELD_LOCK_WAIT_MS);
    if (!lock && options.refuseLocked) throw options.refuseLocked(id);
  }
  if (!lock) {
    log.info(`session ${id} is open in another window; starting a session of this window's own`);
    id = newSessionId();
    lock = await tryLockSession(sessionFile(dir, id));
    if (!lock) throw new RecallError('STORE_UNAVAILABLE', `Could not lock a new session file in ${dir}.`);
  }
  let store: S;
  try {
    store = await options.open(sessionStoreOptions(dir, id, settings, forkedFrom));
  } catch (error) {
    await lock.release();
    throw error;
  }
  log.info(
    `${store.resumed ? 'resumed' : 'started'} session ${store.sessionId}${forkedFrom ? ` (fork of ${forkedFrom})` : ''} at ${store.file}`,
  );
  const aside = store.openReport.movedAside;
  if (aside) {
    log.error(`the session file would not open (${aside.reason}); kept it as ${aside.path} and started empty`);
    options.onMovedAside?.(aside);
  }
  for (const torn of store.openReport.journalTruncated ?? []) log.warn(journalDamageText(torn));
  for (const lost of store.openReport.segmentsLost ?? []) {
    log.error(`the content segment ${lost.path} is ${lost.reason}: parts of ${lost.outputs.join(', ')} cannot be read`);
  }
  for (const found of store.openReport.segmentsSetAside ?? []) {
    log.warn(`the content segment ${found.path}: ${found.reason}${found.aside ? `; kept as found at ${found.aside}` : ''}`);
  }
  const pruning = pruneSessions(dir, settings, store.sessionId).then(
    (removed) => {
      if (removed.length > 0) log.info(`pruned ${removed.length} old session(s): ${removed.join(', ')}`);
    },
    (error) => log.warn(`pruning sessions failed: ${describeError(error)}`),
  );
  return { store, lock, pruning };
}
