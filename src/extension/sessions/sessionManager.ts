import { promises as fs } from 'node:fs';
import * as vscode from 'vscode';
import { RecallError, describeError } from '../../core/errors';
import { journalFiles, listSessions, sessionFile, type SessionFileInfo } from '../../core/store/sessionFiles';
import { pruneSessions } from '../../core/store/sessionPruning';
import { isSessionLocked, type SessionLock } from '../../core/store/sessionLock';
import { openLockedSession, type OpenedStore } from '../../core/store/lockedSession';
import { isSessionIdShape, newSessionId } from '../../core/ids';
import type { RetainMeta, RetainResult } from '../../core/types';
import type { OpenStoreOptions } from '../../core/store/storeOptions';
import type { RecallSettings } from '../config';
import { SessionViews } from './sessionViews';

/** A store as the manager needs it: the engine's interface plus where it lives. */
export type ManagedStore = OpenedStore;
export type StoreOpener = (options: OpenStoreOptions) => Promise<ManagedStore>;

const LAST_SESSION_KEY = 'toolOutputRecall.lastSession';
/** Which session each fork of this workspace was forked from (child ID -> parent ID): its name says so. */
const FORKS_KEY = 'toolOutputRecall.forks';

/**
 * Owns "the current session" of this window: opens it lazily (activation stays light), resumes
 * the workspace's last session after a reload, never shares a session file with another window
 * (a lock; the second window gets a session of its own), and switches, forks, deletes and prunes.
 */
export class SessionManager implements vscode.Disposable {
  private current: { store: ManagedStore; lock: SessionLock } | undefined;
  private opening: Promise<ManagedStore> | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when outputs are added or removed, the session changes, or its checkpoints start or stop failing. */
  readonly onDidChange = this.changed.event;

  constructor(
    readonly dir: string,
    private readonly state: vscode.Memento,
    private readonly open: StoreOpener,
    private readonly settings: () => RecallSettings,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  get sessionId(): string | undefined {
    return this.current?.store.sessionId;
  }

  private earlier: SessionViews | undefined;

  /** This window's sessions for reading and naming, the current one and earlier ones (read-only). */
  get views(): SessionViews {
    this.earlier ??= new SessionViews(this, () => this.settings().sessionQuotaBytes, this.log);
    return this.earlier;
  }

  /** The current session's store, opening (or resuming) it on first use. */
  store(): Promise<ManagedStore> {
    if (this.current) return Promise.resolve(this.current.store);
    this.opening ??= this.serialized(() => this.openInitial()).finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  /**
   * The current session's store for looking something up: the open one, or the workspace's last
   * session resumed (as `store()` would), but never a new session: an empty one cannot hold what is
   * looked up. Undefined when there is nothing to look in.
   */
  async existingStore(): Promise<ManagedStore | undefined> {
    if (this.current) return this.current.store;
    if (this.opening) return this.opening;
    const last = this.state.get<string>(LAST_SESSION_KEY);
    if (!last || !isSessionIdShape(last)) return undefined;
    const file = sessionFile(this.dir, last);
    if ((await journalFiles(file)).length === 0 && !(await isFile(file))) return undefined;
    // Held by another window, it would make store() start a new session.
    if (await isSessionLocked(file)) return undefined;
    return this.store();
  }

  /** Retains through the current store and tells listeners (tree, status bar). */
  async retain(content: string | Uint8Array, meta?: RetainMeta): Promise<RetainResult> {
    const result = await (await this.store()).retain(content, meta);
    this.changed.fire();
    return result;
  }

  notifyChanged(): void {
    this.changed.fire();
  }

  newSession(): Promise<ManagedStore> {
    return this.serialized(async () => {
      await this.closeCurrent();
      return this.activate(newSessionId());
    });
  }

  /**
   * A new session that shares no copies with the current one but records it as its parent: its name
   * says "fork of <parent>" (forkedFrom), where New Session's says nothing of the session before.
   */
  forkSession(): Promise<ManagedStore> {
    return this.serialized(async () => {
      const parent = this.current?.store.sessionId;
      await this.closeCurrent();
      const id = newSessionId();
      if (parent) await this.state.update(FORKS_KEY, { ...this.forks(), [id]: parent });
      return this.activate(id, parent);
    });
  }

  /** The session `sessionId` was forked from in this workspace, if it is a fork. */
  forkedFrom(sessionId: string): string | undefined {
    const parent = this.forks()[sessionId];
    return typeof parent === 'string' && isSessionIdShape(parent) ? parent : undefined;
  }

  private forks(): Record<string, string> {
    const known = this.state.get<Record<string, string>>(FORKS_KEY);
    return known && typeof known === 'object' ? known : {};
  }

  /** Deletes the current session's file (its IDs stop resolving) and starts a new session. */
  deleteSession(): Promise<ManagedStore> {
    return this.serialized(async () => {
      if (this.current) {
        // Named while it can still be read: an open tab of its outputs then says which session went.
        await this.earlier?.name(this.current.store.sessionId).catch(() => undefined);
        const { store, lock } = this.current;
        this.current = undefined;
        await store.delete();
        await lock.release();
        this.log.info(`deleted session ${store.sessionId}`);
      }
      return this.activate(newSessionId());
    });
  }

  switchSession(sessionId: string): Promise<ManagedStore> {
    return this.serialized(async () => {
      if (this.current?.store.sessionId === sessionId) return this.current.store;
      if (await isSessionLocked(sessionFile(this.dir, sessionId))) {
        throw new RecallError('STORE_UNAVAILABLE', `Session ${sessionId} is open in another window; switch to it there.`, {
          openElsewhere: sessionId,
        });
      }
      await this.closeCurrent();
      return this.activate(sessionId);
    });
  }

  async sessions(): Promise<(SessionFileInfo & { current: boolean; locked: boolean })[]> {
    const found = await listSessions(this.dir);
    return Promise.all(
      found.map(async (info) => ({
        ...info,
        current: info.sessionId === this.sessionId,
        locked: info.sessionId !== this.sessionId && (await isSessionLocked(info.file)),
      })),
    );
  }

  /** Deletes old sessions by count, age and total size; never the current or a locked one. */
  async prune(): Promise<string[]> {
    const removed = await pruneSessions(this.dir, this.settings(), this.sessionId);
    if (removed.length > 0) this.log.info(`pruned ${removed.length} old session(s): ${removed.join(', ')}`);
    return removed;
  }

  async dispose(): Promise<void> {
    this.earlier?.dispose();
    await this.serialized(() => this.closeCurrent());
    this.changed.dispose();
  }

  private async openInitial(): Promise<ManagedStore> {
    if (this.current) return this.current.store;
    const last = this.state.get<string>(LAST_SESSION_KEY);
    if (last) {
      const store = await this.activate(last).catch((error) => {
        this.log.warn(`could not resume session ${last}: ${describeError(error)}`);
        return undefined;
      });
      if (store) return store;
    }
    return this.activate(newSessionId());
  }

  /** Locks and opens a session; if another window holds it, this window gets a new session. */
  private async activate(sessionId: string, forkedFrom?: string): Promise<ManagedStore> {
    const { store, lock } = await openLockedSession({
      dir: this.dir,
      sessionId,
      settings: this.settings(),
      forkedFrom,
      open: this.open,
      log: this.log,
      onMovedAside: (aside) =>
        void vscode.window.showWarningMessage(
          vscode.l10n.t(
            'Tool Output Recall: the session file could not be opened ({reason}). It was kept as {path}; the session starts empty.',
            {
              reason: aside.reason,
              path: aside.path,
            },
          ),
        ),
    });
    this.current = { store, lock };
    await this.state.update(LAST_SESSION_KEY, store.sessionId);
    this.changed.fire();
    return store;
  }

  private async closeCurrent(): Promise<void> {
    if (!this.current) return;
    const { store, lock } = this.current;
    this.current = undefined;
    await store.close().catch((error) => this.log.warn(`closing session ${store.sessionId}: ${describeError(error)}`));
    await lock.release();
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

const isFile = (file: string): Promise<boolean> =>
  fs.stat(file).then(
    (stat) => stat.isFile(),
    () => false,
  );
