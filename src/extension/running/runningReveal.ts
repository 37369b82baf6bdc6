/**
 * A command that is still running after REVEAL_AFTER_MS is revealed in the Retained Outputs tree,
 * without taking the focus or the selection: the person sees it run (and its Cancel) as a task shows
 * in the terminal, while quick commands, done before then, do not flash the side bar.
 */
import type * as vscode from 'vscode';
import { RUNNING_COMMANDS, type RunningCommands } from './runningCommands';
import type { RunningNode } from './runningItem';

export const REVEAL_AFTER_MS = 1000;

/** The tree view's part this needs: the Retained Outputs view holds running nodes at its root. */
export interface RevealsRunning {
  reveal(element: RunningNode, options: { select: boolean; focus: boolean }): Thenable<void>;
}

export function revealRunningCommands(
  view: RevealsRunning,
  running: RunningCommands = RUNNING_COMMANDS,
  afterMs = REVEAL_AFTER_MS,
): vscode.Disposable {
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  const subscription = running.onDidChange((id) => {
    if (id !== undefined) return;
    for (const call of running.list()) {
      if (timers.has(call.id)) continue;
      timers.set(
        call.id,
        setTimeout(() => {
          // Only once per call; an ended call's timer fired or was cleared, so a later start is a new ID.
          if (!running.get(call.id)) return;
          // The view first: TreeView.reveal without an element shows the view (VS Code's own code does so;
          // its typings leave it out). Revealing the item alone failed in the real host while the view was
          // hidden ("Cannot resolve tree item"), and running calls are the tree's first items anyway.
          view
            .reveal(undefined as unknown as RunningNode, { select: false, focus: false })
            .then(() => view.reveal({ kind: 'running', id: call.id }, { select: false, focus: false }))
            // The item may have left the tree in between: the view shows what there is.
            .then(undefined, () => undefined);
        }, afterMs),
      );
    }
    for (const [id, timer] of timers)
      if (!running.get(id)) {
        clearTimeout(timer);
        timers.delete(id);
      }
  });
  return {
    dispose: () => {
      subscription.dispose();
      for (const timer of timers.values()) clearTimeout(timer);
    },
  };
}
