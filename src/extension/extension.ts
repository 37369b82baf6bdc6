import * as vscode from 'vscode';
import * as path from 'node:path';
import * as l10n from '@vscode/l10n';
import { describeError } from '../core/errors';
import { openWorkerStore } from '../core/workers/workerClient';
import { readSettings } from './config';
import { SessionManager } from './sessions/sessionManager';
import { announceSessions, catalogFolders } from './sessions/catalogFolders';
import { OutputCatalog } from '../core/catalog/outputCatalog';
import { CheckpointWatch } from './sessions/checkpointWatch';
import { SessionStatusBar } from './statusBar';
import { registerSessionCommands } from './commands';
import { createApi, type ToolOutputRecallApi } from './api';
import { TOOL_NAMES } from '../core/tools/registry';
import { RecallTool } from './tools/recallTool';
import { describeSpillRoots, spillRootsOf } from './tools/spillRoots';
import { keepTerminalOutputs } from './tools/terminalOutputKeeper';
import { RecallParticipant, registerRecallParticipant } from './chat/recallParticipant';
import { registerInspector } from './inspector/register';
import { registerAgents } from './agents/registerAgents';
import { registerRunningCommands } from './running/runningView';

/**
 * The composition root: builds the parts and registers them. Nothing heavy happens here: sql.js
 * and the session store load on first use, so activation stays light.
 */
export function activate(context: vscode.ExtensionContext): ToolOutputRecallApi | undefined {
  const started = performance.now();
  // The inspector's vscode-free modules (shared with the browser tests) translate with @vscode/l10n:
  // give it the bundle VS Code loaded for the display language (none in English).
  if (vscode.l10n.bundle) l10n.config({ contents: vscode.l10n.bundle });
  const log = vscode.window.createOutputChannel('Tool Output Recall', { log: true });
  context.subscriptions.push(log);
  try {
    // The store runs in a worker thread: sql.js is synchronous and the host thread is shared.
    // Per-workspace storage; an empty window has none, so its sessions live in global storage.
    const storage = context.storageUri ?? context.globalStorageUri;
    const sessions = new SessionManager(
      path.join(storage.fsPath, 'sessions'),
      context.workspaceState,
      (options) => openWorkerStore(options),
      readSettings,
      log,
    );
    const store = () => sessions.store();
    // Every session's outputs in this workspace, for list_tool_outputs and searches across outputs.
    const catalog = new OutputCatalog({ folders: catalogFolders(sessions.dir), current: store });
    context.subscriptions.push({ dispose: () => void catalog.close() });
    void announceSessions(sessions.dir, log);
    const spillRoots = spillRootsOf(context);
    log.info(describeSpillRoots(spillRoots));
    const toolDeps = {
      store,
      catalog,
      settings: readSettings,
      isTrusted: () => vscode.workspace.isTrusted,
      onRetained: () => sessions.notifyChanged(),
      log,
      spillRoots,
    };
    context.subscriptions.push(
      sessions,
      new SessionStatusBar(sessions),
      new CheckpointWatch(sessions, log),
      ...registerSessionCommands(sessions, log),
      ...TOOL_NAMES.map((name) => vscode.lm.registerTool(name, new RecallTool(name, toolDeps))),
      keepTerminalOutputs({ ...toolDeps, roots: spillRoots, retain: (content, meta) => sessions.retain(content, meta) }),
    );
    // Other agents' MCP sessions for this workspace: shown (read-only) beside this window's outputs.
    const agents = registerAgents(context, {
      own: store,
      existing: () => sessions.existingStore(),
      ownChanged: sessions.onDidChange,
      quotaBytes: () => readSettings().sessionQuotaBytes,
      log,
    });
    registerInspector(context, {
      store: agents.store,
      sessions: sessions.views,
      agents: agents.sessions,
      catalog,
      onDidChangeOutputs: agents.onDidChangeOutputs,
      log,
      fireChanged: () => sessions.notifyChanged(),
    });
    // run_command calls while they run: their tail as a document, and Cancel (the tree lists them).
    registerRunningCommands(context);
    registerRecallParticipant(context, new RecallParticipant(sessions, readSettings, log));
    log.info(`activated in ${(performance.now() - started).toFixed(1)} ms; sessions in ${sessions.dir}`);
    return createApi(sessions);
  } catch (error) {
    // Shown, not swallowed: a broken activation otherwise looks like tools that silently vanish.
    log.error(`activation failed: ${describeError(error)}`);
    void vscode.window
      .showErrorMessage(vscode.l10n.t('Tool Output Recall failed to activate: {0}', describeError(error)), vscode.l10n.t('Show Log'))
      .then((choice) => {
        if (choice) log.show();
      });
    return undefined;
  }
}

export function deactivate(): void {}
