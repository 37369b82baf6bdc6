/**
 * "Show Changes" of Connect Other Agents: the files it will write, each as a diff in one changes
 * editor (VS Code's multi-file diff), both sides read-only virtual documents of our own scheme. Nothing
 * there is an untitled or file document, so nothing asks to be saved when the editor closes, and
 * nothing in it can be edited (what is written is what the preview shows: plan.ts).
 *
 * A side is `tool-output-recall-changes:<the file's path>?<preview>-<before|after>`: the path is the
 * file's (the editor labels it so and picks its language by its name), the query keeps the sides and
 * two runs apart (VS Code keeps a virtual document's text by URI).
 *
 * Its question (Write or Cancel) stays in reach until answered: as actions in the changes editor's
 * title, where VS Code puts what acts on an editor (and where they stay while it is open), besides a
 * notification, which VS Code hides into the bell after a few seconds, often while the person still
 * reads the diff. A modal would stay too, but it would cover the diff it asks about.
 */
import * as vscode from 'vscode';
import type { PlannedFile } from '../../core/agents/plan';

export const CHANGES_SCHEME = 'tool-output-recall-changes';
/** True while a preview waits for its answer: shows Write and Cancel in its editor's title (package.json). */
export const PENDING_CONTEXT = 'toolOutputRecall.changesPending';

export class ChangesPreview implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private previews = 0;
  /** The texts of the latest preview only, by URI: an older one's tab shows nothing new. */
  private texts = new Map<string, string>();
  private readonly registration: vscode.Disposable;
  /** Settles the question being asked, if one is. */
  private answering: ((write: boolean) => void) | undefined;

  constructor() {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(CHANGES_SCHEME, this);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }

  /** Opens the diffs of every file that changes; false when none does (nothing to show). */
  async show(planned: readonly PlannedFile[]): Promise<boolean> {
    const changing = planned.filter((p) => p.merge.ok && p.merge.change !== 'unchanged');
    if (!changing.length) return false;
    const preview = ++this.previews;
    this.texts = new Map();
    // Both sides keep the file's own path (the changes editor labels a file by it, and marks a side
    // whose path differs as renamed); the query tells them, and two previews, apart.
    const side = (which: 'before' | 'after', file: string, text: string): vscode.Uri => {
      const uri = vscode.Uri.from({ scheme: CHANGES_SCHEME, path: vscode.Uri.file(file).path, query: `${preview}-${which}` });
      this.texts.set(uri.toString(), text);
      return uri;
    };
    // A file not there yet is compared with an empty text of ours: both sides of every diff are this
    // provider's (without a left side VS Code makes an empty in-memory one, and the tab is harder to tell).
    // A file two entries share (Gemini CLI's settings.json: its server and its hook) is one diff,
    // from the file as it is to the file as the last of them leaves it (plan.ts merges them in turn).
    const byFile = new Map<string, { before: string; after: string }>();
    for (const { target, before, merge } of changing) {
      const after = merge.ok ? merge.text : '';
      const seen = byFile.get(target.file);
      if (seen) seen.after = after;
      else byFile.set(target.file, { before: before ?? '', after });
    }
    const diffs = [...byFile].map(([file, { before, after }]) => ({
      file: vscode.Uri.file(file),
      before: side('before', file, before),
      after: side('after', file, after),
    }));
    try {
      await vscode.commands.executeCommand(
        'vscode.changes',
        vscode.l10n.t('Connect Other Agents: the changes'),
        diffs.map(({ file, before, after }) => [file, before, after]),
      );
    } catch {
      // A VS Code without the changes editor: one diff editor per file.
      for (const { file, before, after } of diffs) {
        await vscode.commands.executeCommand(
          'vscode.diff',
          before,
          after,
          vscode.l10n.t('{0} (what Connect Other Agents writes)', vscode.workspace.asRelativePath(file)),
          { preview: false },
        );
      }
    }
    return true;
  }

  /**
   * Asks `question` about the preview shown: true for Write, false for Cancel, from the notification
   * or the editor's title (answer()), whichever comes first. Closing every tab of the preview is
   * Cancel; closing the notification is not (the title still asks). The preview closes once
   * answered: it no longer shows a proposal.
   */
  async ask(question: string, write: string, cancel: string): Promise<boolean> {
    this.answer(false); // an older question still open is cancelled: one preview at a time
    const answered = new Promise<boolean>((resolve) => (this.answering = resolve));
    await vscode.commands.executeCommand('setContext', PENDING_CONTEXT, true);
    const tabs = vscode.window.tabGroups.onDidChangeTabs(() => {
      if (!vscode.window.tabGroups.all.some((group) => group.tabs.some(isChangesTab))) this.answer(false);
    });
    void vscode.window.showInformationMessage(question, write, cancel).then((choice) => {
      if (choice !== undefined) this.answer(choice === write);
    });
    try {
      return await answered;
    } finally {
      tabs.dispose();
      await vscode.commands.executeCommand('setContext', PENDING_CONTEXT, false);
      await this.close();
    }
  }

  /** The answer to the question being asked (the title's Write and Cancel); nothing when none is. */
  answer(write: boolean): void {
    const settle = this.answering;
    this.answering = undefined;
    settle?.(write);
  }

  /** Closes the preview's editors: once the person answered, they no longer show a proposal. */
  async close(): Promise<void> {
    const ours = vscode.window.tabGroups.all.flatMap((group) => group.tabs).filter(isChangesTab);
    if (ours.length) await vscode.window.tabGroups.close(ours, true);
  }

  dispose(): void {
    this.answer(false);
    this.registration.dispose();
  }
}

/**
 * Whether a tab shows a preview's diff: a diff editor of ours, or the changes editor, whose input
 * (TabInputTextMultiDiff, not in the API this extension is built against) lists its `textDiffs`.
 */
export function isChangesTab(tab: vscode.Tab): boolean {
  const input = tab.input as { modified?: unknown; textDiffs?: unknown } | undefined;
  const ours = (uri: unknown) => uri instanceof vscode.Uri && uri.scheme === CHANGES_SCHEME;
  if (input instanceof vscode.TabInputTextDiff) return ours(input.modified);
  return Array.isArray(input?.textDiffs) && input.textDiffs.some((diff: { modified?: unknown }) => ours(diff?.modified));
}
