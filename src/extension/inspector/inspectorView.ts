/**
 * The inspector as a webview view beside the Retained Outputs tree. It shows the output selected in
 * the tree (or the one "Show in Side View" names) with the same page, protocol and request handler
 * as the editor panel: only where the page lives differs.
 *
 * The view is an ordinary contributed webview view, so a person can drag it to the secondary side
 * bar or the panel. Nothing here depends on where it is: VS Code resolves the view again after a
 * move or a reload, and reloads a hidden view's page when it is shown again; each new page says
 * `ready`, and the current output's session answers with `show`, as for a panel.
 */
import * as vscode from 'vscode';
import { isRecallError } from '../../core/errors';
import {
  PROTOCOL_VERSION,
  isWebviewToHost,
  type DescribeResult,
  type HostToWebview,
  type PageResult,
  type PersistedState,
  type WebviewToHost,
} from '../../../webview/protocol';
import { inspectorDocument, inspectorHost, inspectorWebviewOptions, shortName, type InspectorContext } from './inspectorPanel';
import { InspectorSession, type InspectorHost } from './requestHandler';

export const INSPECTOR_SIDE_VIEW_ID = 'toolOutputRecall.inspectorView';

/** The texts this file shows a person, in one place; functions, so they are looked up once the bundle is loaded. */
const TEXT = {
  nothingSelected: () =>
    vscode.l10n.t(
      'Select an output in Retained Outputs to inspect it here: the preview the model received, its flags, and the whole copy page by page.',
    ),
  gone: () => vscode.l10n.t('The output shown here is no longer in this session. Select another one in Retained Outputs.'),
  sessionDeleted: (name: string) =>
    vscode.l10n.t(
      'The output shown here belonged to the session {0}, which was deleted: its outputs are gone with it. Select another one in Retained Outputs, or run the command again if you need it.',
      name,
    ),
};

/** What the view shows, as the extension side knows it (the `_toolOutputRecall.inspectorViewState` command). */
export interface InspectorViewState {
  /** VS Code resolved the view (it was opened at least once, wherever it is). */
  resolved: boolean;
  visible: boolean;
  outputId?: string;
  /** This window's session that holds the output shown (current or earlier); undefined for another agent's. */
  sessionId?: string;
  /** The page holds only this text: nothing is selected, or the output shown is gone. */
  placeholder?: string;
  /** How many times a page said `ready`: once per load (first show, after a move, after being hidden). */
  readyCount: number;
  /** What the last `describe` of the shown output answered (its info; flags are computed from it). */
  described?: DescribeResult['info'];
  /** The last page of the shown output the webview was sent. */
  page?: Pick<PageResult, 'offset' | 'nextOffset' | 'totalBytes' | 'hasMore' | 'complete'>;
}

// A new page sends this itself; a page already running gets a new output by the same handshake.
const READY: WebviewToHost = { type: 'notification', method: 'ready', params: { protocolVersion: PROTOCOL_VERSION } };
// Sessions kept for outputs shown before: a request still in flight for one of them gets its answer.
const KEPT_SESSIONS = 4;

export class InspectorView implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private viewDisposables: vscode.Disposable[] = [];
  private outputId: string | undefined;
  private sessionId: string | undefined;
  private placeholder: string | undefined = TEXT.nothingSelected();
  /** By output, the current output last. */
  private readonly sessions = new Map<string, InspectorSession>();
  /** What the shown output's inspector session reads through (its session's store). */
  private host: InspectorHost | undefined;
  private readyCount = 0;
  private described: InspectorViewState['described'];
  private page: InspectorViewState['page'];

  constructor(private readonly context: InspectorContext) {}

  resolveWebviewView(view: vscode.WebviewView, resolved: vscode.WebviewViewResolveContext<unknown>): void {
    this.disposeView();
    this.view = view;
    view.webview.options = inspectorWebviewOptions(this.context.extensionUri);
    this.viewDisposables.push(
      view.webview.onDidReceiveMessage((message) => this.receive(message)),
      view.onDidDispose(() => {
        if (this.view === view) this.disposeView();
      }),
    );
    // After a reload nothing is selected yet: show what the page showed before, if it still exists.
    const saved = resolved.state as Partial<PersistedState> | undefined;
    const restored = saved?.outputId;
    if (this.outputId === undefined && typeof restored === 'string') {
      this.select(restored, undefined, typeof saved?.sessionId === 'string' ? saved.sessionId : undefined);
      void this.checkStillThere();
    }
    this.render();
  }

  /**
   * Shows `outputId` (the tree's selection, or Show in Side View); `offset` moves it to that byte.
   * `sessionId`, this window's session that holds it, is read whatever session is current later.
   */
  show(outputId: string, offset?: number, sessionId?: string): void {
    // The tree's selection and Open Output in Inspector both name it: shown once, not loaded twice.
    if (offset === undefined && outputId === this.outputId && sessionId === this.sessionId && this.placeholder === undefined) return;
    const running = this.view !== undefined && this.placeholder === undefined;
    const session = this.select(outputId, offset, sessionId);
    if (!this.view) return; // shown once VS Code resolves the view
    if (!running) {
      this.render();
      return;
    }
    // A visible page is listening: replay the handshake for the new output. A hidden one is
    // reloaded when shown, and its own `ready` gets the answer (with the offset, still pending).
    if (this.view.visible) void session.handle(READY);
    void this.retitle(outputId);
  }

  /** Reveals the view wherever it is, without taking the focus once it exists. */
  async reveal(): Promise<void> {
    if (this.view) this.view.show(true);
    else await vscode.commands.executeCommand(`${INSPECTOR_SIDE_VIEW_ID}.focus`);
  }

  /** Outputs were retained or removed, or the session switched: describe again, or say it is gone. */
  async changed(): Promise<void> {
    if (!(await this.checkStillThere())) return;
    if (this.outputId) this.sessions.get(this.outputId)?.changed();
  }

  state(): InspectorViewState {
    return {
      resolved: this.view !== undefined,
      visible: this.view?.visible ?? false,
      outputId: this.outputId,
      sessionId: this.sessionId,
      placeholder: this.placeholder,
      readyCount: this.readyCount,
      described: this.described,
      page: this.page,
    };
  }

  dispose(): void {
    this.disposeView();
    this.sessions.clear();
  }

  private select(outputId: string, offset: number | undefined, sessionId: string | undefined): InspectorSession {
    this.outputId = outputId;
    this.sessionId = sessionId;
    this.placeholder = undefined;
    this.described = undefined;
    this.page = undefined;
    this.host = inspectorHost(this.context, outputId, (message) => this.post(outputId, message), sessionId);
    const session = new InspectorSession(this.host, outputId, offset);
    this.sessions.delete(outputId);
    this.sessions.set(outputId, session);
    for (const old of this.sessions.keys()) if (this.sessions.size > KEPT_SESSIONS) this.sessions.delete(old);
    return session;
  }

  /**
   * Resolves false (and shows the placeholder) when the output shown is no longer in its session, or
   * its session was deleted. An output of an earlier session is still there: it is shown read-only.
   */
  private async checkStillThere(): Promise<boolean> {
    const outputId = this.outputId;
    const host = this.host;
    if (!outputId || !host) return true;
    try {
      await (await host.store()).info(outputId);
      this.sessionId = host.sessionId;
      return true;
    } catch (error) {
      // Any other failure (the store unavailable…) is the page's to explain.
      if (!isRecallError(error, 'NOT_FOUND') || this.outputId !== outputId) return true;
      const deleted = error.details.sessionDeleted;
      this.outputId = undefined;
      this.sessionId = undefined;
      this.host = undefined;
      this.placeholder =
        typeof deleted === 'string'
          ? TEXT.sessionDeleted(typeof error.details.sessionName === 'string' ? error.details.sessionName : deleted)
          : TEXT.gone();
      this.render();
      return false;
    }
  }

  private receive(message: unknown): void {
    if (!isWebviewToHost(message)) {
      // Malformed: the current session logs it.
      if (this.outputId) void this.sessions.get(this.outputId)?.handle(message);
      return;
    }
    if (message.type === 'notification') {
      if (message.method === 'ready') {
        // A new page: what the old one was answered no longer describes what is on screen.
        this.readyCount++;
        this.described = undefined;
        this.page = undefined;
      }
      if (this.outputId) void this.sessions.get(this.outputId)?.handle(message);
      return;
    }
    const asked = (message.params as { outputId?: unknown }).outputId;
    const session = (typeof asked === 'string' && this.sessions.get(asked)) || (this.outputId && this.sessions.get(this.outputId));
    if (session) void session.handle(message);
  }

  private post(outputId: string, message: HostToWebview): void {
    if (outputId === this.outputId && message.type === 'response' && message.ok) {
      if (message.method === 'describe') this.described = (message.result as DescribeResult).info;
      else if (message.method === 'page' || message.method === 'pageBefore') {
        const { offset, nextOffset, totalBytes, hasMore, complete } = message.result as PageResult;
        this.page = { offset, nextOffset, totalBytes, hasMore, complete };
      }
    }
    void this.view?.webview.postMessage(message);
  }

  private render(): void {
    const view = this.view;
    if (!view) return;
    view.webview.html = inspectorDocument(
      view.webview,
      this.context.extensionUri,
      this.placeholder !== undefined ? { placeholder: this.placeholder, surface: 'view' } : { title: this.outputId, surface: 'view' },
    );
    if (this.placeholder !== undefined) view.description = undefined;
    else if (this.outputId) void this.retitle(this.outputId);
  }

  /** Names the output in the view's title bar, once the store says what it is. */
  private async retitle(outputId: string): Promise<void> {
    const host = this.host;
    if (!host) return;
    try {
      const name = shortName(await (await host.store()).info(outputId));
      if (this.view && this.outputId === outputId) this.view.description = name;
    } catch {
      // The page shows why (not found, store unavailable).
    }
  }

  private disposeView(): void {
    for (const disposable of this.viewDisposables.splice(0)) disposable.dispose();
    this.view = undefined;
  }
}
