/**
 * How a running run_command call looks in the Retained Outputs tree: the command, its bytes so far (in
 * the words of the retained output it becomes) and its elapsed time, a spinning icon, Cancel (inline
 * and in the context menu, package.json's `runningCommand` items) and, on click, its tail as it
 * arrives (runningView.ts).
 */
import * as vscode from 'vscode';
import { sizeText } from '../sizes';
import { commandLabel } from '../../core/commandLabel';
import type { RunningCommand } from './runningCommands';

export { commandLabel };

/** A running call in the tree: its ID only, so one element stays the same while its bytes change. */
export interface RunningNode {
  kind: 'running';
  id: string;
}

export const RUNNING_CONTEXT = 'runningCommand';
export const SHOW_RUNNING_COMMAND = 'toolOutputRecall.showRunningCommand';
export const CANCEL_RUNNING_COMMAND = 'toolOutputRecall.cancelRunningCommand';

export function runningItem(node: RunningNode, call: RunningCommand | undefined, now = Date.now()): vscode.TreeItem {
  // Short (program and key argument), so that the bytes so far and the elapsed time fit beside it in a side bar.
  const item = new vscode.TreeItem(call ? commandLabel(call.command) : node.id, vscode.TreeItemCollapsibleState.None);
  item.id = node.id;
  item.contextValue = call?.cancelling ? `${RUNNING_CONTEXT}-cancelling` : RUNNING_CONTEXT;
  if (!call) return item;
  // The spinning icon says it runs; the description keeps to what changes, so it fits a narrow side bar.
  const state = call.cancelling ? vscode.l10n.t('stopping') : vscode.l10n.t('running');
  item.description = [...(call.cancelling ? [state] : []), sizeText(call.totalBytes), formatElapsed(now - call.startedAt)].join(' · ');
  item.iconPath = new vscode.ThemeIcon('loading~spin');
  item.command = { command: SHOW_RUNNING_COMMAND, title: vscode.l10n.t('Show Running Output'), arguments: [node] };
  const md = new vscode.MarkdownString();
  // appendCodeblock and appendText escape everything: a command line cannot inject markdown or links.
  md.appendCodeblock(call.command.slice(0, 2000), 'shellscript');
  md.appendText(
    [
      vscode.l10n.t('Running for {0}', formatElapsed(now - call.startedAt)),
      vscode.l10n.t('{size} so far ({bytes} bytes: stdout {stdout}, stderr {stderr})', {
        size: sizeText(call.totalBytes),
        bytes: call.totalBytes.toLocaleString('en-US'),
        stdout: call.stdoutBytes.toLocaleString('en-US'),
        stderr: call.stderrBytes.toLocaleString('en-US'),
      }),
      vscode.l10n.t('Click to watch its last lines as they arrive. When it ends, its output appears here as usual.'),
    ].join('\n'),
  );
  item.tooltip = md;
  item.accessibilityInformation = { label: [commandLabel(call.command), state, item.description].join(', ') };
  return item;
}

/** Elapsed time for a person: "7 s", "3 min 4 s". */
export function formatElapsed(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return vscode.l10n.t('{0} s', seconds);
  return vscode.l10n.t('{minutes} min {seconds} s', { minutes: Math.floor(seconds / 60), seconds: seconds % 60 });
}
