/**
 * One inspector webview panel per output: created or revealed by `show`, rebuilt by the serializer
 * after a window reload, and wired to the vscode-free protocol handler (`InspectorSession`).
 */
import * as vscode from 'vscode';
import { outputLabel } from '../../core/commandLabel';
import { RUN_COMMAND_TOOL } from '../../core/toolNames';
import type { OutputInfo } from '../../core/types';
import { INSPECTOR_VIEW_TYPE, type PersistedState } from '../../../webview/protocol';
import { readSettings } from '../config';
import { inspectorHtml, type InspectorHtmlOptions } from './html';
import { InspectorSession, type InspectorActions, type InspectorHost } from './requestHandler';
import type { InspectorServices } from './services';
import { locateOutput } from './locate';

export interface InspectorContext {
  extensionUri: vscode.Uri;
  services: InspectorServices;
  actions: InspectorActions;
}

export class InspectorPanel {
  private static readonly open = new Map<string, InspectorPanel>();

  /**
   * Reveals the panel of `outputId`, creating it if needed; `offset` moves it to that byte.
   * `sessionId` is this window's session that holds it: the panel reads that session, whatever
   * session is current later (an earlier one read-only).
   */
  static show(
    context: InspectorContext,
    outputId: string,
    offset?: number,
    column = vscode.ViewColumn.Active,
    sessionId?: string,
  ): InspectorPanel {
    const existing = InspectorPanel.open.get(outputId);
    if (existing) {
      existing.panel.reveal(column);
      if (offset !== undefined) existing.session.reveal(offset);
      return existing;
    }
    const panel = vscode.window.createWebviewPanel(
      INSPECTOR_VIEW_TYPE,
      titleFor(outputId),
      { viewColumn: column, preserveFocus: false },
      options(context.extensionUri),
    );
    return new InspectorPanel(context, panel, outputId, offset, sessionId);
  }

  /** Called by the serializer with the state the webview last saved (`setState`). */
  static revive(context: InspectorContext, panel: vscode.WebviewPanel, state: unknown): void {
    const saved = typeof state === 'object' && state !== null ? (state as Partial<PersistedState>) : {};
    const { outputId } = saved;
    if (typeof outputId !== 'string' || InspectorPanel.open.has(outputId)) {
      // Nothing to restore (or a duplicate): a blank panel helps no one.
      panel.dispose();
      return;
    }
    panel.webview.options = options(context.extensionUri);
    // The webview restores its own offset from getState(); the host passes none.
    new InspectorPanel(context, panel, outputId, undefined, typeof saved.sessionId === 'string' ? saved.sessionId : undefined);
  }

  static changed(): void {
    for (const panel of InspectorPanel.open.values()) panel.session.changed();
  }

  static close(outputId: string): void {
    InspectorPanel.open.get(outputId)?.panel.dispose();
  }

  static active(): string | undefined {
    for (const [outputId, panel] of InspectorPanel.open) if (panel.panel.active) return outputId;
    return undefined;
  }

  private readonly session: InspectorSession;
  private readonly disposables: vscode.Disposable[] = [];

  private constructor(
    context: InspectorContext,
    readonly panel: vscode.WebviewPanel,
    readonly outputId: string,
    offset: number | undefined,
    sessionId: string | undefined,
  ) {
    InspectorPanel.open.set(outputId, this);
    const host = inspectorHost(context, outputId, (message) => void panel.webview.postMessage(message), sessionId);
    this.session = new InspectorSession(host, outputId, offset);

    panel.iconPath = vscode.Uri.joinPath(context.extensionUri, 'media', 'icon.png');
    panel.webview.html = inspectorDocument(panel.webview, context.extensionUri, { title: titleFor(outputId) });
    this.disposables.push(
      panel.webview.onDidReceiveMessage((message) => void this.session.handle(message)),
      panel.onDidDispose(() => this.dispose()),
    );
    void this.retitle(host);
  }

  /** Names the tab after the command or title, once the store says what it is. */
  private async retitle(host: InspectorHost): Promise<void> {
    try {
      this.panel.title = shortName(await (await host.store()).info(this.outputId));
    } catch {
      // The webview shows why (not found, store unavailable); the tab keeps the ID.
    }
  }

  private dispose(): void {
    if (InspectorPanel.open.get(this.outputId) === this) InspectorPanel.open.delete(this.outputId);
    for (const disposable of this.disposables.splice(0)) disposable.dispose();
  }
}

/** The command named briefly (program and key argument), to fit a tab, a view's title bar or a file name. */
export function shortName(info: Pick<OutputInfo, 'outputId' | 'title' | 'tool'>): string {
  return outputLabel(info.title ?? info.tool ?? info.outputId, info.tool === RUN_COMMAND_TOOL && !!info.title) || info.outputId;
}

/**
 * What an inspector session (a panel's or the side view's) of `outputId` reads and does through VS
 * Code. It reads the session that holds the output (`sessionId`, once known), whatever is current.
 */
export function inspectorHost(context: InspectorContext, outputId: string, post: InspectorHost['post'], sessionId?: string): InspectorHost {
  const { services } = context;
  let known = sessionId;
  return {
    get sessionId() {
      return known;
    },
    async store() {
      const located = await locateOutput(services, outputId, known);
      known = located.sessionId;
      return located.store;
    },
    async origin() {
      return known && services.sessions ? services.sessions.origin(known) : undefined;
    },
    async switchSession() {
      if (!known || !services.sessions) return false;
      await services.sessions.switchTo(known);
      return true;
    },
    post,
    previewBytes: () => readSettings().previewBytes,
    actions: context.actions,
    log: (level, message) => services.log[level](message),
  };
}

/** The inspector page for a panel or a view: the bundle's script and stylesheet, as webview URIs. */
export function inspectorDocument(
  webview: vscode.Webview,
  extensionUri: vscode.Uri,
  page: Pick<InspectorHtmlOptions, 'title' | 'placeholder' | 'surface'>,
): string {
  const bundle = vscode.Uri.joinPath(extensionUri, 'dist', 'webview');
  return inspectorHtml({
    cspSource: webview.cspSource,
    scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(bundle, 'inspector.js')).toString(),
    styleUri: webview.asWebviewUri(vscode.Uri.joinPath(bundle, 'inspector.css')).toString(),
    // The page cannot fetch its translations: they travel inside it (see protocol.ts).
    language: vscode.env.language,
    bundle: vscode.l10n.bundle,
    ...page,
  });
}

/** What a panel's or a view's webview may do: run the bundle, load from the bundle folder only. */
export function inspectorWebviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return {
    enableScripts: true,
    // Only the bundle folder: the page can load its script and stylesheet and nothing else.
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist', 'webview')],
  };
}

function options(extensionUri: vscode.Uri): vscode.WebviewPanelOptions & vscode.WebviewOptions {
  return {
    ...inspectorWebviewOptions(extensionUri),
    // State is small and restored through getState; no need to keep hidden panels alive.
    retainContextWhenHidden: false,
    enableFindWidget: false, // Ctrl+F goes to the inspector's search, which covers the whole copy
  };
}

const titleFor = (outputId: string): string => vscode.l10n.t('Output {0}', outputId);
