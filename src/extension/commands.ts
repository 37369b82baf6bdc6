import * as vscode from 'vscode';
import { showError } from './showError';
import type { SessionManager } from './sessions/sessionManager';
import { sizeText } from './sizes';
import { describeError } from '../core/errors';
import { isOutputIdShape } from '../core/ids';
import { plainInQuickPick, sessionParts } from './sessions/sessionNames';

/** The session commands (category "Tool Output Recall"); output commands live with the inspector. */
export function registerSessionCommands(sessions: SessionManager, log: vscode.LogOutputChannel): vscode.Disposable[] {
  // Arguments come from whoever runs the command (palette, tests, links), so each handler types its own.
  const command = <A extends unknown[]>(id: string, run: (...args: A) => Promise<unknown>) =>
    vscode.commands.registerCommand(`toolOutputRecall.${id}`, async (...args: unknown[]) => {
      try {
        return await run(...(args as A));
      } catch (error) {
        showError(log, id, error, { outputId: id === 'openOutputById' && typeof args[0] === 'string' ? args[0].trim() : undefined });
        return undefined;
      }
    });

  return [
    command('newSession', async () => {
      const store = await sessions.newSession();
      // Named as the picker and the tree name it (when it started), never by its ID.
      const name = await sessions.views.name(store.sessionId).catch(() => store.sessionId);
      void vscode.window.showInformationMessage(vscode.l10n.t('Tool Output Recall: new session {0}.', name));
      return store.sessionId;
    }),
    command('forkSession', async () => {
      const parent = sessions.sessionId ?? (await sessions.existingStore())?.sessionId;
      const parentName = parent ? await sessions.views.name(parent).catch(() => parent) : undefined;
      const store = await sessions.forkSession();
      // What makes it a fork, in words: New Session's message says nothing of the session before.
      void vscode.window.showInformationMessage(
        parentName
          ? vscode.l10n.t(
              'Tool Output Recall: started a fork of the session {parent}. The fork starts empty and its name says which session it came from; the outputs of {parent} stay there (Switch Session… goes back).',
              { parent: parentName },
            )
          : vscode.l10n.t('Tool Output Recall: new session {0}.', await sessions.views.name(store.sessionId).catch(() => store.sessionId)),
      );
      return store.sessionId;
    }),
    command('deleteSession', async (options?: { confirm?: boolean }) => {
      const current = sessions.sessionId ?? (await sessions.store()).sessionId;
      if (options?.confirm !== false) {
        const remove = vscode.l10n.t('Delete');
        const name = await sessions.views.name(current).catch(() => current);
        const answer = await vscode.window.showWarningMessage(
          vscode.l10n.t('Delete the session {0}? A new, empty session starts and becomes the current one.', name),
          {
            modal: true,
            detail: vscode.l10n.t(
              'Its retained outputs are removed and their IDs stop resolving; inspector tabs showing them will say so. (Session ID: {0})',
              current,
            ),
          },
          remove,
        );
        if (answer !== remove) return undefined;
      }
      const store = await sessions.deleteSession();
      return store.sessionId;
    }),
    command('switchSession', async (sessionId?: string) => {
      let target = typeof sessionId === 'string' ? sessionId : undefined;
      if (!target) {
        const picked = await vscode.window.showQuickPick(sessionItems(sessions, log), {
          title: vscode.l10n.t('Switch Tool Output Recall Session'),
          placeHolder: vscode.l10n.t('Pick a session of this workspace (by when it started, its first command, or its ID)'),
          matchOnDescription: true,
          matchOnDetail: true,
        });
        target = picked?.sessionId;
      }
      if (!target) return undefined;
      return (await sessions.switchSession(target)).sessionId;
    }),
    command('openOutputById', async (outputId?: string) => {
      const id =
        typeof outputId === 'string'
          ? outputId
          : await vscode.window.showInputBox({
              title: vscode.l10n.t('Open Output by ID'),
              prompt: vscode.l10n.t('An outputId from a tool result, e.g. {0}', 'out_0123456789abcdef01234567'),
              validateInput: (value) =>
                isOutputIdShape(value.trim()) ? undefined : vscode.l10n.t('An outputId looks like out_ followed by 24 hex digits.'),
            });
      if (!id) return undefined;
      return vscode.commands.executeCommand('toolOutputRecall.openOutput', id.trim());
    }),
    command('showLog', async () => log.show()),
  ];
}

/**
 * The sessions of this workspace as a person knows them: when each started and its first command
 * (the label), its outputs and size (the description), and its ID (the detail), newest first.
 */
async function sessionItems(
  sessions: SessionManager,
  log: vscode.LogOutputChannel,
): Promise<(vscode.QuickPickItem & { sessionId: string })[]> {
  return Promise.all(
    (await sessions.sessions()).map(async (s) => {
      const summary = await sessions.views.summary(s.sessionId).catch((error: unknown) => {
        log.info(`switchSession: session ${s.sessionId} cannot be named: ${describeError(error)}`);
        return undefined;
      });
      const parts = summary && sessionParts(summary, vscode.env.language);
      const state = s.current ? vscode.l10n.t('current session') : s.locked ? vscode.l10n.t('open in another window') : undefined;
      return {
        label: plainInQuickPick(parts ? [parts.when, parts.first, parts.fork].filter(Boolean).join(' · ') : s.sessionId),
        description: plainInQuickPick([parts?.contents ?? sizeText(s.bytes), state].filter(Boolean).join(' · ')),
        detail: s.sessionId,
        sessionId: s.sessionId,
      };
    }),
  );
}
