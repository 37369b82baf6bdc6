/**
 * Wires the other agents into the extension: their sessions for the Retained Outputs tree and the
 * inspector (the store that holds an output, theirs or this window's), the "Connect Other Agents…"
 * command, and the refresh of an installed server copy after the extension updated.
 */
import * as vscode from 'vscode';
import { describeError } from '../../core/errors';
import type { RecallStore } from '../../core/types';
import { AgentSessions } from './agentSessions';
import { ChangesPreview } from './changesPreview';
import { connectAgents, refreshInstalledServer, type ConnectOptions } from './connect';

export interface AgentsDeps {
  /** This window's current session store (opened, or started, on first use). */
  own: () => Promise<RecallStore>;
  /** This window's session to look an output up in, if it has one (never a new session). */
  existing: () => Promise<RecallStore | undefined>;
  /** Fired when this window's outputs change. */
  ownChanged: vscode.Event<void>;
  quotaBytes: () => number;
  log: vscode.LogOutputChannel;
}

export interface Agents {
  sessions: AgentSessions;
  /** The store holding `outputId`: an agent's session (read-only) or this window's. */
  store: (outputId?: string) => Promise<RecallStore>;
  /** This window's outputs or an agent session's changed. */
  onDidChangeOutputs: vscode.Event<void>;
}

/** Installing a copy reads ~2 MB and hashes it: not during activation. */
const REFRESH_AFTER_MS = 10_000;

export function registerAgents(context: vscode.ExtensionContext, deps: AgentsDeps): Agents {
  const sessions = new AgentSessions({
    folders: () => (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath),
    quotaBytes: deps.quotaBytes,
    log: deps.log,
  });
  const changed = new vscode.EventEmitter<void>();
  const preview = new ChangesPreview();
  const refresh = setTimeout(() => {
    refreshInstalledServer(context, deps.log).catch((error) =>
      deps.log.warn(`mcp: refreshing the installed server: ${describeError(error)}`),
    );
  }, REFRESH_AFTER_MS);
  context.subscriptions.push(
    sessions,
    changed,
    preview,
    { dispose: () => clearTimeout(refresh) },
    deps.ownChanged(() => changed.fire()),
    sessions.onDidChange(() => changed.fire()),
    vscode.commands.registerCommand('toolOutputRecall.connectAgents', async (options?: ConnectOptions) => {
      try {
        return await connectAgents(context, deps.log, preview, typeof options === 'object' && options !== null ? options : {});
      } catch (error) {
        deps.log.error(`toolOutputRecall.connectAgents: ${describeError(error)}`);
        void vscode.window.showErrorMessage(describeError(error));
        return undefined;
      }
    }),
    // Write and Cancel in the title of Show Changes' editor (changesPreview.ts).
    vscode.commands.registerCommand('toolOutputRecall.writeShownChanges', () => preview.answer(true)),
    vscode.commands.registerCommand('toolOutputRecall.cancelShownChanges', () => preview.answer(false)),
    // For the real-host tests: the agent sessions after one more look at the disk.
    vscode.commands.registerCommand('_toolOutputRecall.agentSessions', async () => {
      await sessions.poll();
      return sessions.list();
    }),
  );
  return {
    sessions,
    store: (outputId) => sessions.storeOf(outputId, deps.own, deps.existing),
    onDidChangeOutputs: changed.event,
  };
}
