/**
 * The sessions that MCP servers (Claude Code, Codex, Cursor…) keep for this window's workspace
 * folders, as the Retained Outputs tree shows them: found in each folder's per-user session folder
 * (defaultStoreDir, the same as the server's), named by their agent record, live while a running
 * process holds their lock, and read through read-only views (no lock, not a byte written).
 *
 * Live: a poll (stats only) notices new sessions, ended ones, and a loaded session's files
 * changing; a changed view is read again and the tree and inspectors are told.
 *
 * Left out: a session whose only clients are VS Code. VS Code starts the server from a `.mcp.json`
 * Connect Other Agents wrote for Claude Code, and the server offers it no tools (src/mcp/vscodeClient.ts),
 * so that session never holds an output; shown, it read as a live "code-server" agent of 40 KiB.
 */
import { promises as fs } from 'node:fs';
import * as vscode from 'vscode';
import { agentDisplayName } from '../../core/agents/agents';
import { isVsCodeClient } from '../../core/agents/vscodeClients';
import { defaultStoreDir } from '../../core/agentStore';
import { RecallError, describeError, isRecallError } from '../../core/errors';
import { isOutputIdShape } from '../../core/ids';
import { openReadOnlySession, type ReadOnlySession } from '../../core/store/readOnlySession';
import { STORE_ENGINES } from '../../core/workers/stores';
import { readSessionAgent, type HookDoorStatus } from '../../core/store/sessionAgent';
import { listSessions } from '../../core/store/sessionFiles';
import { isSessionLocked } from '../../core/store/sessionLock';
import type { OutputInfo, RecallStore } from '../../core/types';

/** How often the folders and the loaded sessions are looked at. */
const POLL_MS = 1000;
/** Sessions kept read into memory at once (each holds its database); the least recently used goes. */
const MAX_LOADED = 4;

export interface AgentSessionSummary {
  file: string;
  sessionId: string;
  /** The workspace folder whose sessions these are. */
  folder: string;
  /** The agents that connected, as people know them ("Claude Code"); empty when none is recorded. */
  agents: string[];
  /** When the server started the session (its agent record), if known. */
  startedAt?: number;
  /** The session's files on disk. */
  bytes: number;
  modifiedAt: number;
  /** A running process holds the session's lock. */
  live: boolean;
  /** Where its server's door for hooks is, or why it has none (stdio servers say; HTTP ones have none). */
  hooks?: HookDoorStatus;
}

/** The tree's group for one agent session. */
export interface AgentSessionNode {
  kind: 'agentSession';
  summary: AgentSessionSummary;
}

/** An output in the tree: this window's, or (with `agentSession`, its file) another agent's, read-only. */
export type OutputNode = OutputInfo & { agentSession?: string };

export type TreeNode = OutputNode | AgentSessionNode;

export interface AgentSessionsOptions {
  /** The workspace folders' paths. */
  folders: () => readonly string[];
  /** The quota the views report (the owner's is not recorded in its file). */
  quotaBytes: () => number;
  log: vscode.LogOutputChannel;
  pollMs?: number;
}

export class AgentSessions implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fired when a session appears, ends or goes, or a loaded session's outputs change. */
  readonly onDidChange = this.changed.event;
  private summaries: AgentSessionSummary[] | undefined;
  private summaryText = '[]';
  /** Loaded views by session file, least recently used first. */
  private readonly views = new Map<string, Promise<ReadOnlySession>>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private polling: Promise<void> | undefined;
  private disposed = false;

  constructor(private readonly options: AgentSessionsOptions) {
    this.schedule();
  }

  /** The sessions of every workspace folder, newest first. */
  async list(): Promise<AgentSessionSummary[]> {
    return this.summaries ?? (await this.scan());
  }

  /** A session's outputs, newest first, from its read-only view. */
  async outputs(file: string): Promise<OutputInfo[]> {
    return (await this.view(file)).list();
  }

  /**
   * The read-only view that holds `outputId`, if it is an agent session's: loaded views first,
   * then (when `look` allows) every session of the workspace, for an ID copied from an agent's
   * transcript.
   */
  async storeFor(outputId: string, look = false): Promise<RecallStore | undefined> {
    for (const file of [...this.views.keys()].reverse()) {
      const view = await this.views.get(file)?.catch(() => undefined);
      if (view?.has(outputId)) return this.touch(file, view);
    }
    if (!look) return undefined;
    for (const session of await this.list()) {
      if (this.views.has(session.file)) continue;
      const view = await this.view(session.file).catch(() => undefined);
      if (view?.has(outputId)) return view;
    }
    return undefined;
  }

  /**
   * The store that holds `outputId`: a loaded view's, else this window's (`existing`), else (an ID
   * from an agent's transcript, opened by ID) whichever session of the workspace has it. Without an
   * ID, this window's (`own`, opened or started as needed). Looking an ID up never starts a session:
   * when `existing` has none and no agent's session has the ID, it is NOT_FOUND.
   */
  async storeOf(
    outputId: string | undefined,
    own: () => Promise<RecallStore>,
    existing: () => Promise<RecallStore | undefined> = own,
  ): Promise<RecallStore> {
    if (!outputId) return own();
    const theirs = await this.storeFor(outputId);
    if (theirs) return theirs;
    const store = await existing();
    if (!store) {
      const found = isOutputIdShape(outputId) && (await this.list()).length > 0 ? await this.storeFor(outputId, true) : undefined;
      if (found) return found;
      throw new RecallError(
        'NOT_FOUND',
        `No retained output "${outputId}": this window has no session yet, and none is started only to look an ID up.`,
      );
    }
    if (!isOutputIdShape(outputId) || (await this.list()).length === 0) return store;
    const ours = await store.info(outputId).then(
      () => true,
      (error: unknown) => !isRecallError(error, 'NOT_FOUND'),
    );
    return ours ? store : ((await this.storeFor(outputId, true)) ?? store);
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    for (const view of this.views.values()) void view.then((v) => v.close()).catch(() => undefined);
    this.views.clear();
    this.changed.dispose();
  }

  /** Resolves after one more look at the folders and the loaded sessions (tests, the refresh command). */
  async poll(): Promise<void> {
    this.polling ??= this.pollOnce().finally(() => (this.polling = undefined));
    return this.polling;
  }

  private view(file: string): Promise<ReadOnlySession> {
    const known = this.views.get(file);
    if (known) {
      this.views.delete(file);
      this.views.set(file, known);
      return known;
    }
    const opening = openReadOnlySession(file, STORE_ENGINES, { quotaBytes: this.options.quotaBytes() });
    this.views.set(file, opening);
    opening.catch(() => this.views.get(file) === opening && this.views.delete(file));
    for (const [old, view] of this.views) {
      if (this.views.size <= MAX_LOADED) break;
      this.views.delete(old);
      void view.then((v) => v.close()).catch(() => undefined);
    }
    return opening;
  }

  private touch(file: string, view: ReadOnlySession): ReadOnlySession {
    void this.view(file);
    return view;
  }

  private async scan(): Promise<AgentSessionSummary[]> {
    const found: AgentSessionSummary[] = [];
    for (const folder of this.options.folders()) {
      const real = await fs.realpath(folder).catch(() => undefined);
      if (!real) continue;
      for (const session of await listSessions(defaultStoreDir(real))) {
        const record = await readSessionAgent(session.file);
        if (record?.clients.length && record.clients.every((client) => isVsCodeClient(client.name))) continue;
        found.push({
          file: session.file,
          sessionId: session.sessionId,
          folder,
          agents: [...new Set((record?.clients ?? []).map(agentDisplayName))],
          ...(record ? { startedAt: record.startedAt } : {}),
          bytes: session.bytes,
          modifiedAt: session.modifiedAt,
          live: await isSessionLocked(session.file),
          ...(record?.hooks ? { hooks: record.hooks } : {}),
        });
      }
    }
    found.sort((a, b) => (b.startedAt ?? b.modifiedAt) - (a.startedAt ?? a.modifiedAt));
    this.summaries = found;
    return found;
  }

  private async pollOnce(): Promise<void> {
    let changed = false;
    const before = this.summaryText;
    const summaries = await this.scan();
    this.summaryText = JSON.stringify(summaries);
    if (this.summaryText !== before) changed = true;
    const present = new Set(summaries.map((s) => s.file));
    for (const [file, opening] of [...this.views]) {
      if (!present.has(file)) {
        this.views.delete(file);
        void opening.then((v) => v.close()).catch(() => undefined);
        changed = true;
        continue;
      }
      try {
        const view = await opening;
        if (await view.refresh()) changed = true;
      } catch (error) {
        // Gone meanwhile (pruned) or unreadable: the next scan says which; the tree shows the error.
        if (!isRecallError(error, 'NOT_FOUND')) this.options.log.warn(`agent session ${file}: ${describeError(error)}`);
        this.views.delete(file);
        changed = true;
      }
    }
    if (changed && !this.disposed) this.changed.fire();
  }

  private schedule(): void {
    if (this.disposed) return;
    this.timer = setTimeout(() => {
      this.poll()
        .catch((error) => this.options.log.warn(`agent sessions: ${describeError(error)}`))
        .finally(() => this.schedule());
    }, this.options.pollMs ?? POLL_MS);
  }
}
