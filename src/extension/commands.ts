import * as vscode from 'vscode';
import { showError } from './showError';
import type { SessionManager } from './sessions/sessionManager';
import { formatBytes } from '../core/limits';

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
      void vscode.window.showInformationMessage(vscode.l10n.t('Tool Output Recall: new session {0}.', store.sessionId));
      return store.sessionId;
    }),
    command('forkSession', async () => {
      const store = await sessions.forkSession();
      void vscode.window.showInformationMessage(
        vscode.l10n.t('Tool Output Recall: forked into session {0}; it shares no outputs with the previous one.', store.sessionId),
      );
      return store.sessionId;
    }),
    command('deleteSession', async (options?: { confirm?: boolean }) => {
      const current = sessions.sessionId ?? (await sessions.store()).sessionId;
      if (options?.confirm !== false) {
        const remove = vscode.l10n.t('Delete');
        const answer = await vscode.window.showWarningMessage(
          vscode.l10n.t('Delete session {0}? Its retained outputs are removed and their IDs stop resolving.', current),
          { modal: true },
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
        const items = (await sessions.sessions()).map((s) => ({
          label: s.sessionId,
          description: `${formatBytes(s.bytes)} · ${new Date(s.modifiedAt).toLocaleString(vscode.env.language)}`,
          detail: s.current ? vscode.l10n.t('current session') : s.locked ? vscode.l10n.t('open in another window') : undefined,
          sessionId: s.sessionId,
        }));
        const picked = await vscode.window.showQuickPick(items, {
          title: vscode.l10n.t('Switch Tool Output Recall Session'),
          placeHolder: vscode.l10n.t('Pick a session of this workspace'),
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
                /^\s*out_[0-9a-f]{24}\s*$/.test(value)
                  ? undefined
                  : vscode.l10n.t('An outputId looks like out_ followed by 24 hex digits.'),
            });
      if (!id) return undefined;
      return vscode.commands.executeCommand('toolOutputRecall.openOutput', id.trim());
    }),
    command('showLog', async () => log.show()),
  ];
}
