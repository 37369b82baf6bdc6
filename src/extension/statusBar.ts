import * as vscode from 'vscode';
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
    this.item.name = 'Tool Output Recall Session';
    this.item.command = 'toolOutputRecall.switchSession';
    // Also fires when checkpoints start or stop failing (see CheckpointWatch).
    this.subscription = sessions.onDidChange(() => void this.update());
    this.item.text = '$(history) Recall';
    this.item.tooltip = 'Tool Output Recall: no session opened yet (it opens when a tool first retains an output).';
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
      `$(warning) **Saving this session is failing.** The last checkpoint, at ${new Date(error.at).toLocaleTimeString()}, failed: `,
    );
    tooltip.appendText(error.message);
    tooltip.appendMarkdown(
      `\n\nJournal: ${formatBytes(stats.journalBytes)} of its ${formatBytes(stats.journalLimitBytes)} limit. ` +
        'Retained outputs are safe in the journal and stay readable. New outputs will be refused once the journal passes its limit ' +
        '(the model then gets only their preview), until a checkpoint succeeds: free disk space or fix the session folder.\n\n',
    );
  }
  tooltip.appendMarkdown(
    `Session \`${stats.sessionId}\`: ${stats.outputs} retained output(s), ${formatBytes(stats.retainedBytes)} of ${formatBytes(stats.quotaBytes)}` +
      `${stats.evicted ? `, ${stats.evicted} evicted` : ''}.\n\nClick to switch sessions.`,
  );
  const size = formatBytes(stats.retainedBytes);
  return error
    ? { text: `$(warning) ${size}`, tooltip, backgroundColor: new vscode.ThemeColor('statusBarItem.warningBackground') }
    : { text: `$(history) ${size}`, tooltip };
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
