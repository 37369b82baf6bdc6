import * as vscode from 'vscode';
import type { SessionManager } from './sessions/sessionManager';

/** Shows the current session and how much it retains; clicking switches sessions. */
export class SessionStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('toolOutputRecall.session', vscode.StatusBarAlignment.Right, 100);
  private readonly subscription: vscode.Disposable;

  constructor(private readonly sessions: SessionManager) {
    this.item.name = 'Tool Output Recall Session';
    this.item.command = 'toolOutputRecall.switchSession';
    this.subscription = sessions.onDidChange(() => void this.update());
    this.item.text = '$(history) Recall';
    this.item.tooltip = 'Tool Output Recall: no session opened yet (it opens when a tool first retains an output).';
    this.item.show();
  }

  private async update(): Promise<void> {
    if (!this.sessions.sessionId) return;
    const store = await this.sessions.store();
    const stats = await store.stats().catch(() => undefined);
    if (!stats) return;
    this.item.text = `$(history) ${formatBytes(stats.retainedBytes)}`;
    this.item.tooltip = new vscode.MarkdownString(
      `**Tool Output Recall**\n\nSession \`${store.sessionId}\`: ${stats.outputs} retained output(s), ${formatBytes(stats.retainedBytes)} of ${formatBytes(store.quotaBytes)}` +
        `${stats.evicted ? `, ${stats.evicted} evicted` : ''}.\n\nClick to switch sessions.`,
    );
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
