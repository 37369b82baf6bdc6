/**
 * Editors that follow the end of a running command's document, as the Output panel and the terminal
 * do: an editor whose last visible line is at (or within FOLLOW_SLACK_LINES of) the end just before
 * the document is redrawn is scrolled to the new end once the new text is in; one the person scrolled
 * up in is left where it is, and follows again once they scroll back down (or press Ctrl+End).
 * "Left where it is" takes a hand too: past 100,000 characters VS Code replaces the document's text
 * whole, and the editor's viewport, anchored in the replaced text, jumps to its end.
 */
import * as vscode from 'vscode';

/** Lines from the end that still count as "at the end" (the empty line after the last break, a line of margin). */
const FOLLOW_SLACK_LINES = 2;

interface Follower {
  editor: vscode.TextEditor;
  /** The document's last line before the redraw. */
  lastLine: number;
  /** The cursor sat at the end, so it moves to the new end (Ctrl+End keeps following). */
  cursor: boolean;
}

export class EndFollower implements vscode.Disposable {
  /** By document, its visible editors when its redraw was asked for. */
  private readonly pending = new Map<string, Follower[]>();
  private readonly subscription: vscode.Disposable;

  constructor(private readonly scheme: string) {
    // When the new text is in, an editor's visible lines are still where the person had them (VS Code
    // reports the viewport's jump later): what the person did since the redraw was asked for counts.
    this.subscription = vscode.workspace.onDidChangeTextDocument(({ document }) => {
      if (document.uri.scheme !== this.scheme) return;
      const key = document.uri.toString();
      const followers = this.pending.get(key);
      this.pending.delete(key);
      for (const { editor, lastLine, cursor } of followers ?? []) {
        if (lastVisibleLine(editor) >= lastLine - FOLLOW_SLACK_LINES) revealEnd(editor, cursor);
        else {
          const line = editor.visibleRanges[0]?.start.line ?? 0;
          editor.revealRange(new vscode.Range(line, 0, line, 0), vscode.TextEditorRevealType.AtTop);
        }
      }
    });
  }

  /** Called just before a document is redrawn, while its editors still show the old text. */
  beforeRedraw(uri: vscode.Uri): void {
    const key = uri.toString();
    const followers = vscode.window.visibleTextEditors
      .filter((editor) => editor.document.uri.toString() === key)
      .map((editor) => {
        const last = editor.document.lineCount - 1;
        return { editor, lastLine: last, cursor: editor.selection.isEmpty && editor.selection.active.line >= last - FOLLOW_SLACK_LINES };
      });
    if (followers.length > 0) this.pending.set(key, followers);
    else this.pending.delete(key);
  }

  dispose(): void {
    this.subscription.dispose();
    this.pending.clear();
  }
}

/**
 * Scrolls the editor to its document's last line (and puts the cursor there), as little as it takes;
 * at the line's start, so a long status line does not scroll the output out of view sideways.
 */
export function revealEnd(editor: vscode.TextEditor, moveCursor = true): void {
  const end = editor.document.lineAt(editor.document.lineCount - 1).range.start;
  if (moveCursor) editor.selection = new vscode.Selection(end, end);
  editor.revealRange(new vscode.Range(end, end), vscode.TextEditorRevealType.Default);
}

const lastVisibleLine = (editor: vscode.TextEditor): number => editor.visibleRanges.at(-1)?.end.line ?? 0;
