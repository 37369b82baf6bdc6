/**
 * This window's sessions other than the current one, for reading: an output stays viewable for as
 * long as its session exists, whatever session is current. The current session is read through its
 * store; an earlier one through a read-only view of its files (readOnlySession.ts, as other agents'
 * sessions are read: no lock, not a byte written), so New Session or Switch Session never strands an
 * open inspector. A session whose files are gone was deleted (Delete Session, or pruned as old):
 * reading it is NOT_FOUND with `details.sessionDeleted`, which the inspector says in words of its own.
 *
 * Also names sessions as a person knows them (sessionNames.ts), from their data.
 */
import { promises as fs } from 'node:fs';
import * as vscode from 'vscode';
import { RecallError, describeError, isRecallError } from '../../core/errors';
import { isOutputIdShape } from '../../core/ids';
import { openReadOnlySession, type ReadOnlySession } from '../../core/store/readOnlySession';
import { STORE_ENGINES } from '../../core/workers/stores';
import { currentSignature, signatureText } from '../../core/store/readOnlyView';
import { listSessions, sessionFile } from '../../core/store/sessionFiles';
import type { RecallStore } from '../../core/types';
import type { OpenedStore } from '../../core/store/lockedSession';
import { sessionName, sessionShortName, summarize, type SessionOrigin, type SessionSummary } from './sessionNames';

/** Earlier sessions kept read into memory at once (each holds its index); the least recently used goes. */
const MAX_LOADED = 4;

/** What the views use of the window's current session (the SessionManager, which makes them). */
export interface CurrentSession {
  readonly dir: string;
  readonly sessionId: string | undefined;
  readonly onDidChange: vscode.Event<void>;
  store(): Promise<OpenedStore>;
  existingStore(): Promise<OpenedStore | undefined>;
  switchSession(sessionId: string): Promise<OpenedStore>;
  /** The session `sessionId` was forked from, when it is a fork (absent: no forks are recorded). */
  forkedFrom?(sessionId: string): string | undefined;
}

export class SessionViews implements vscode.Disposable {
  /** Loaded views by session ID, least recently used first. */
  private readonly views = new Map<string, Promise<ReadOnlySession>>();
  /** Summaries of sessions that are not current, with the signature of the files they were computed from. */
  private readonly summaries = new Map<string, { signature: string; summary: SessionSummary }>();
  /** When each session started: it never changes, so it is read once. */
  private readonly started = new Map<string, number | undefined>();
  /** The last name a session was shown with, by ID: a deleted session can no longer be read for one. */
  private readonly lastNames = new Map<string, string>();
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly manager: CurrentSession,
    private readonly quotaBytes: () => number,
    private readonly log: vscode.LogOutputChannel,
    private readonly locale: () => string = () => vscode.env.language,
  ) {
    // A session made current again is read through its store: its view is dropped.
    this.subscription = manager.onDidChange(() => {
      const current = manager.sessionId;
      if (current) this.drop(current);
    });
  }

  /** Whether `sessionId` is this window's current session (after resuming the workspace's last one, if no session is open yet). */
  async isCurrent(sessionId: string): Promise<boolean> {
    if (this.manager.sessionId === undefined) await this.manager.existingStore().catch(() => undefined);
    return this.manager.sessionId === sessionId;
  }

  /**
   * The store to read `sessionId`'s outputs from: the current store, or a read-only view of the
   * session's files. NOT_FOUND with `details.sessionDeleted` when its files are gone.
   */
  async store(sessionId: string): Promise<RecallStore> {
    if (await this.isCurrent(sessionId)) return this.manager.store();
    const file = sessionFile(this.manager.dir, sessionId);
    try {
      if (!(await isFile(file))) throw this.deleted(sessionId);
      const view = await this.view(sessionId, file);
      await view.refresh();
      return view;
    } catch (error) {
      if (isRecallError(error, 'NOT_FOUND') || isRecallError(error, 'STORE_CLOSED')) {
        this.drop(sessionId);
        if (!(await isFile(file))) throw this.deleted(sessionId);
      }
      throw error;
    }
  }

  /**
   * An earlier session of this window that holds `outputId` (an ID from an earlier session opened by
   * ID, or a tab restored without its session): loaded views first, then every session, newest first.
   */
  async find(outputId: string): Promise<string | undefined> {
    if (!isOutputIdShape(outputId)) return undefined;
    for (const [sessionId, opening] of [...this.views].reverse()) {
      const view = await opening.catch(() => undefined);
      if (view?.has(outputId)) return sessionId;
    }
    for (const { sessionId, file } of await listSessions(this.manager.dir)) {
      if (this.views.has(sessionId) || (await this.isCurrent(sessionId))) continue;
      const view = await openReadOnlySession(file, STORE_ENGINES, { quotaBytes: this.quotaBytes() }).catch(() => undefined);
      if (!view) continue;
      const has = view.has(outputId);
      await view.close();
      if (has) return sessionId;
    }
    return undefined;
  }

  /** How the inspector shows `sessionId`: its name, and whether it is current. */
  async origin(sessionId: string): Promise<SessionOrigin> {
    const current = await this.isCurrent(sessionId);
    const summary = await this.summary(sessionId);
    return { sessionId, current, name: this.named(summary), shortName: sessionShortName(summary, this.locale()) };
  }

  /** The session's name as a person knows it: when it started, its first command, its outputs and size. */
  async name(sessionId: string): Promise<string> {
    return this.named(await this.summary(sessionId));
  }

  /** The name `sessionId` was last shown with, if it was (the only name left of a deleted session). */
  lastName(sessionId: string): string | undefined {
    return this.lastNames.get(sessionId);
  }

  /** The current session's name, from the outputs it lists (the tree has them at hand). */
  async currentName(store: RecallStore & { file?: string }, outputs: Parameters<typeof summarize>[2]): Promise<string> {
    const summary = summarize(store.sessionId, await this.startedAt(store.sessionId, store.file), outputs);
    return this.named(await this.withFork(summary));
  }

  /** What a session's name is made of, computed from its data (cached while its files do not change); a fork's names its parent. */
  async summary(sessionId: string): Promise<SessionSummary> {
    return this.withFork(await this.ownSummary(sessionId));
  }

  /** A fork's summary names the session it was forked from (briefly: when it started, its first command). */
  private async withFork(summary: SessionSummary): Promise<SessionSummary> {
    const parent = this.manager.forkedFrom?.(summary.sessionId);
    if (!parent) return summary;
    const forkOf = await this.ownSummary(parent).then(
      (own) => sessionShortName(own, this.locale()),
      // Deleted or unreadable: the name it was last shown with, else its ID.
      () => this.lastNames.get(parent) ?? parent,
    );
    return { ...summary, forkOf };
  }

  private async ownSummary(sessionId: string): Promise<SessionSummary> {
    if (await this.isCurrent(sessionId)) {
      const store = await this.manager.store();
      return summarize(sessionId, await this.startedAt(sessionId, (store as { file?: string }).file), await store.list());
    }
    const file = sessionFile(this.manager.dir, sessionId);
    const signature = await currentSignature(file);
    if (!signature) throw this.deleted(sessionId);
    const known = this.summaries.get(sessionId);
    if (known && known.signature === signatureText(signature)) return known.summary;
    const loaded = this.views.get(sessionId);
    let view: ReadOnlySession;
    if (loaded) {
      view = await loaded;
      await view.refresh();
    } else {
      view = await openReadOnlySession(file, STORE_ENGINES, { quotaBytes: this.quotaBytes() });
    }
    try {
      const summary = summarize(sessionId, view.createdAt, await view.list());
      this.started.set(sessionId, view.createdAt);
      this.summaries.set(sessionId, { signature: signatureText(signature), summary });
      this.named(summary);
      return summary;
    } finally {
      if (!loaded) await view.close();
    }
  }

  switchTo(sessionId: string): Promise<unknown> {
    return this.manager.switchSession(sessionId);
  }

  dispose(): void {
    this.subscription.dispose();
    for (const sessionId of [...this.views.keys()]) this.drop(sessionId);
  }

  private named(summary: SessionSummary): string {
    const name = sessionName(summary, this.locale());
    this.lastNames.set(summary.sessionId, name);
    return name;
  }

  private async startedAt(sessionId: string, file = sessionFile(this.manager.dir, sessionId)): Promise<number | undefined> {
    if (this.started.has(sessionId)) return this.started.get(sessionId);
    // Read once from the session's file (its owner keeps it open meanwhile: a read-only view never disturbs it).
    const view = await openReadOnlySession(file, STORE_ENGINES, { quotaBytes: this.quotaBytes() }).catch((error: unknown) => {
      this.log.info(`session ${sessionId}: when it started cannot be read: ${describeError(error)}`);
      return undefined;
    });
    if (!view) {
      // Not asked again at every refresh: the name says its start is unknown.
      this.started.set(sessionId, undefined);
      return undefined;
    }
    const startedAt = view.createdAt;
    await view.close();
    this.started.set(sessionId, startedAt);
    return startedAt;
  }

  private view(sessionId: string, file: string): Promise<ReadOnlySession> {
    const known = this.views.get(sessionId);
    if (known) {
      this.views.delete(sessionId);
      this.views.set(sessionId, known);
      return known;
    }
    const opening = openReadOnlySession(file, STORE_ENGINES, { quotaBytes: this.quotaBytes() });
    this.views.set(sessionId, opening);
    opening.catch(() => this.views.get(sessionId) === opening && this.views.delete(sessionId));
    for (const old of [...this.views.keys()]) {
      if (this.views.size <= MAX_LOADED) break;
      this.drop(old);
    }
    return opening;
  }

  private drop(sessionId: string): void {
    const opening = this.views.get(sessionId);
    if (!opening) return;
    this.views.delete(sessionId);
    void opening.then((view) => view.close()).catch(() => undefined);
  }

  private deleted(sessionId: string): RecallError {
    const name = this.lastNames.get(sessionId);
    return new RecallError('NOT_FOUND', `Session ${sessionId} was deleted: its outputs are gone.`, {
      sessionDeleted: sessionId,
      ...(name ? { sessionName: name } : {}),
    });
  }
}

const isFile = (file: string): Promise<boolean> =>
  fs.stat(file).then(
    (stat) => stat.isFile(),
    () => false,
  );
