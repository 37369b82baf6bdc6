import * as vscode from 'vscode';

export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('Tool Output Recall', { log: true });
  context.subscriptions.push(log);
  log.info('activated');
}

export function deactivate(): void {}
