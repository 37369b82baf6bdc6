import * as vscode from 'vscode';
import { sizeText } from './sizes';
import { exactTime } from './times';
import type { SessionManager } from './sessions/sessionManager';
import { sessionStats, type SessionStats } from './sessions/sessionStats';

/** What the item shows for one session; vscode objects only, so the host tests can check it. */
export interface SessionStatusView {
  text: string;
  tooltip: vscode.MarkdownString;
  backgroundColor?: vscode.ThemeColor;
}

/**
 * Shows the current session and how much it retains; clicking switches sessions. While the
 * session's checkpoints fail it turns into a warning: nothing is lost yet, but new outputs will be
 * refused once the journal reaches its limit, and only the user can free the disk or fix the folder.
 */
export class SessionStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('toolOutputRecall.session', vscode.StatusBarAlignment.Right, 100);
  private readonly subscription: vscode.Disposable;

  constructor(private readonly sessions: SessionManager) {
    this.item.name = vscode.l10n.t('Tool Output Recall Session');
    this.item.command = 'toolOutputRecall.switchSession';
    // Also fires when checkpoints start or stop failing (see CheckpointWatch).
    this.subscription = sessions.onDidChange(() => void this.update());
    this.item.text = `$(history) ${vscode.l10n.t('Recall')}`;
    this.item.tooltip = vscode.l10n.t('Tool Output Recall: no session opened yet (it opens when a tool first retains an output).');
    this.item.show();
  }

  private async update(): Promise<void> {
    if (!this.sessions.sessionId) return;
    const stats = await sessionStats(await this.sessions.store()).catch(() => undefined);
    if (!stats) return;
    const view = sessionStatusView(stats);
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.backgroundColor = view.backgroundColor;
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }
}

export function sessionStatusView(stats: SessionStats): SessionStatusView {
  const tooltip = new vscode.MarkdownString('**Tool Output Recall**\n\n', true);
  const error = stats.lastCheckpointError;
  if (error) {
    tooltip.appendMarkdown(
      `$(warning) **${vscode.l10n.t('Saving this session is failing.')}** ` +
        vscode.l10n.t('The last checkpoint, at {0}, failed:', exactTime(error.at)) +
        ' ',
    );
    tooltip.appendText(error.message);
    tooltip.appendMarkdown(
      '\n\n' +
        vscode.l10n.t(
          'Journal: {used} of its {limit} limit. Retained outputs are safe in the journal and stay readable. New outputs will be refused once the journal passes its limit (the model then gets only their preview), until a checkpoint succeeds: free disk space or fix the session folder.',
          { used: sizeText(stats.journalBytes), limit: sizeText(stats.journalLimitBytes) },
        ) +
        '\n\n',
    );
  }
  const counts = {
    session: `\`${stats.sessionId}\``,
    outputs: stats.outputs,
    retained: sizeText(stats.retainedBytes),
    quota: sizeText(stats.quotaBytes),
    evicted: stats.evicted,
  };
  tooltip.appendMarkdown(
    (stats.evicted
      ? vscode.l10n.t('Session {session}: {outputs} retained output(s), {retained} of {quota}, {evicted} evicted.', counts)
      : vscode.l10n.t('Session {session}: {outputs} retained output(s), {retained} of {quota}.', counts)) +
      `\n\n${vscode.l10n.t('Click to switch sessions.')}`,
  );
  const size = sizeText(stats.retainedBytes);
  return error
    ? { text: `$(warning) ${size}`, tooltip, backgroundColor: new vscode.ThemeColor('statusBarItem.warningBackground') }
    : { text: `$(history) ${size}`, tooltip };
}
