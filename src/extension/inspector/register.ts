/**
 * Wires the inspector into VS Code: the Retained Outputs tree, the inspector panels (and their
 * serializer, so they come back after a reload), the read-only copy documents, a vscode:// link
 * handler, the output commands and Search All Outputs. Everything registered goes to context.subscriptions.
 */
import * as vscode from 'vscode';
import { showError } from '../showError';
import { isSessionIdShape } from '../../core/ids';
import type { OutputInfo } from '../../core/types';
import { INSPECTOR_VIEW_TYPE } from '../../../webview/protocol';
import { COPY_SCHEME, CopyDocuments, inspectorActions } from './actions';
import { InspectorPanel, type InspectorContext } from './inspectorPanel';
import { INSPECTOR_SIDE_VIEW_ID, InspectorView } from './inspectorView';
import { OutputsTree } from './outputsTree';
import { revealRunningCommands } from '../running/runningReveal';
import { READ_TOOL_OUTPUT_TOOL, SEARCH_TOOL_OUTPUT_TOOL } from '../../core/toolNames';
import { locateOutput } from './locate';
import { registerSearchAllOutputs } from './searchAllOutputs';
import type { InspectorServices } from './services';

export interface OpenOutputOptions {
  offset?: number;
  viewColumn?: vscode.ViewColumn;
  /** This window's session that holds the output, if the caller knows it (the tree does). */
  sessionId?: string;
}

function openOptions(options: unknown): OpenOutputOptions {
  const opts: OpenOutputOptions =
    typeof options === 'number' ? { offset: options } : typeof options === 'object' && options !== null ? options : {};
  const offset = typeof opts.offset === 'number' && Number.isInteger(opts.offset) && opts.offset >= 0 ? opts.offset : undefined;
  const sessionId = typeof opts.sessionId === 'string' && isSessionIdShape(opts.sessionId) ? opts.sessionId : undefined;
  return { ...opts, offset, sessionId };
}

/** A command about an output ran with none given, none selected and no inspector active. */
class NoOutputChosen extends Error {}

/** The session a tree node names for its output (this window's outputs carry it). */
const sessionOf = (arg: unknown): string | undefined =>
  typeof arg === 'object' && arg !== null && typeof (arg as { sessionId?: unknown }).sessionId === 'string'
    ? (arg as { sessionId: string }).sessionId
    : undefined;

const outputIdOf = (arg: unknown): string | undefined =>
  typeof arg === 'string' && arg.trim()
    ? arg.trim()
    : typeof arg === 'object' && arg !== null && typeof (arg as OutputInfo).outputId === 'string'
      ? (arg as OutputInfo).outputId
      : undefined;

export function registerInspector(context: vscode.ExtensionContext, services: InspectorServices): void {
  const tree = new OutputsTree(services);
  const view = vscode.window.createTreeView('toolOutputRecall.outputs', { treeDataProvider: tree });
  tree.attach(view);
  context.subscriptions.push(revealRunningCommands(view));
  const panels: InspectorContext = { extensionUri: context.extensionUri, services, actions: inspectorActions(services) };
  const sideView = new InspectorView(panels);
  // Search All Outputs and its Search Results view (hits open through toolOutputRecall.openOutput).
  registerSearchAllOutputs(context, services);

  /**
   * The output a command is about: its argument (ID, tree node, {outputId}), else the selection or
   * the active panel. With none of them (the Command Palette, nothing selected) nothing went wrong:
   * NoOutputChosen tells the person how to choose one.
   */
  const target = (arg: unknown): string => {
    if (typeof arg === 'string' && arg.trim()) return arg.trim();
    if (typeof arg === 'object' && arg !== null && typeof (arg as OutputInfo).outputId === 'string') return (arg as OutputInfo).outputId;
    const fallback = tree.selected()?.outputId ?? InspectorPanel.active();
    if (fallback) return fallback;
    throw new NoOutputChosen();
  };

  const command = (id: string, run: (...args: unknown[]) => Promise<unknown>): void => {
    context.subscriptions.push(
      vscode.commands.registerCommand(id, async (...args: unknown[]) => {
        try {
          return await run(...args);
        } catch (error) {
          if (error instanceof NoOutputChosen) {
            void vscode.window.showInformationMessage(
              vscode.l10n.t(
                'Select an output in the Retained Outputs view, or open one in the inspector (command "Tool Output Recall: Open Output by ID…"), then run this command again.',
              ),
            );
            return undefined;
          }
          showError(services.log, id, error, { outputId: outputIdOf(args[0]) ?? tree.selected()?.outputId ?? InspectorPanel.active() });
          return undefined;
        }
      }),
    );
  };

  const openOutput = async (arg: unknown, options?: unknown): Promise<boolean> => {
    const outputId = target(arg);
    const opts = openOptions(options);
    // Check first, so a mistyped ID gets the engine's explanation rather than an empty panel.
    const located = await locateOutput(services, outputId, opts.sessionId ?? sessionOf(arg));
    await located.store.info(outputId);
    InspectorPanel.show(panels, outputId, opts.offset, opts.viewColumn, located.sessionId);
    // The side view follows: it never keeps showing another (perhaps deleted) output beside the tab just opened.
    sideView.show(outputId, opts.offset, located.sessionId);
    return true;
  };

  command('toolOutputRecall.openOutput', openOutput);
  command('toolOutputRecall.showOutputInView', async (arg, options) => {
    const outputId = target(arg);
    const opts = openOptions(options);
    const located = await locateOutput(services, outputId, opts.sessionId ?? sessionOf(arg));
    await located.store.info(outputId);
    sideView.show(outputId, opts.offset, located.sessionId);
    await sideView.reveal();
    return true;
  });
  command('toolOutputRecall.refreshOutputs', async () => {
    tree.refresh();
    InspectorPanel.changed();
    await sideView.changed();
  });
  command('toolOutputRecall.copyOutputId', async (arg) => {
    await panels.actions.copyText(target(arg), vscode.l10n.t('Output ID'));
  });
  command('toolOutputRecall.saveOutputAs', async (arg) => panels.actions.saveAs(target(arg)));
  command('toolOutputRecall.openOutputInEditor', async (arg, line) =>
    panels.actions.openInEditor(target(arg), typeof line === 'number' ? line : undefined),
  );
  // `{ confirm: false }` as a second argument skips the dialog (scripts and tests, like deleteSession).
  command('toolOutputRecall.deleteOutput', async (arg, options) => {
    const outputId = target(arg);
    const { store } = await locateOutput(services, outputId, sessionOf(arg));
    const info = await store.info(outputId);
    const name = (info.title ?? info.tool ?? outputId).split('\n')[0].slice(0, 80);
    const remove = vscode.l10n.t('Delete');
    const choice =
      (options as { confirm?: boolean } | undefined)?.confirm === false
        ? remove
        : await vscode.window.showWarningMessage(
            vscode.l10n.t('Delete the retained copy of "{0}"?', name),
            {
              modal: true,
              detail: vscode.l10n.t(
                '{outputId} will stop resolving: {read} and {search} will answer NOT_FOUND for it. This cannot be undone.',
                { outputId, read: READ_TOOL_OUTPUT_TOOL, search: SEARCH_TOOL_OUTPUT_TOOL },
              ),
            },
            remove,
          );
    if (choice !== remove) return false;
    await store.remove(outputId);
    InspectorPanel.close(outputId);
    services.fireChanged();
    return true;
  });

  context.subscriptions.push(
    view,
    tree,
    sideView,
    vscode.window.registerWebviewViewProvider(INSPECTOR_SIDE_VIEW_ID, sideView, { webviewOptions: { retainContextWhenHidden: false } }),
    view.onDidChangeSelection((event) => {
      const selected = tree.selected();
      if (selected && event.selection[0] === selected) sideView.show(selected.outputId, undefined, selected.sessionId);
    }),
    // For diagnostics and the real-host test: what the side view shows, as the extension knows it.
    vscode.commands.registerCommand('_toolOutputRecall.inspectorViewState', () => sideView.state()),
    // Likewise what the Retained Outputs tree shows, other agents' sessions expanded.
    vscode.commands.registerCommand('_toolOutputRecall.outputsTreeItems', () => tree.snapshot()),
    vscode.window.registerFileDecorationProvider(tree),
    vscode.workspace.registerTextDocumentContentProvider(COPY_SCHEME, new CopyDocuments(services)),
    vscode.window.registerWebviewPanelSerializer(INSPECTOR_VIEW_TYPE, {
      async deserializeWebviewPanel(panel, state) {
        InspectorPanel.revive(panels, panel, state);
      },
    }),
    vscode.window.registerUriHandler({
      handleUri(uri) {
        const query = new URLSearchParams(uri.query);
        const outputId = query.get('outputId');
        if (uri.path !== '/openOutput' || !outputId) {
          void vscode.window.showErrorMessage(
            vscode.l10n.t('Tool Output Recall cannot open the link {link}: expected {expected}', {
              link: uri.toString(true),
              expected: '/openOutput?outputId=out_…',
            }),
          );
          return;
        }
        const offset = Number(query.get('offset'));
        void vscode.commands.executeCommand(
          'toolOutputRecall.openOutput',
          outputId,
          Number.isInteger(offset) && offset >= 0 && query.has('offset') ? { offset } : undefined,
        );
      },
    }),
    services.onDidChangeOutputs(() => {
      tree.refresh();
      InspectorPanel.changed();
      void sideView.changed();
    }),
  );
}
