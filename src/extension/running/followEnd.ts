/**
 * Editors that follow the end of a running command's document, as the Output panel and the terminal
 * do: an editor whose last visible line is at (or within FOLLOW_SLACK_LINES of) the end when the new
 * text goes in is scrolled to the new end; one the person scrolled up in is left where it is, and
 * follows again once they go back to the end (Ctrl+End, or a click on its last lines).
 * Where an editor was is read when its document's change arrives here: VS Code sends an editor's moves
 * in order with its document's changes, and holds back those a change causes until that change is sent
 * (MainThreadTextEditor, isCaughtUpWithContentChanges), so an editor's visible lines then are where it
 * was just before the new text went in, the person's last scroll included. Read when VS Code asked for
 * the new text, a scroll in the round trip after it was undone by the redraw: under load that is where
 * a scroll lands (in 4 host runs of 6 it was reported 3-4 ms before the change; decisions.md).
 * Left: a scroll that lands after the new text went in and before this host's answer to it (a round
 * trip) is undone once by that answer.
 * "Left where it is" takes a hand too: past 100,000 characters VS Code replaces the document's text
 * whole, and the editor's viewport, anchored in the replaced text, may jump to its end.
 */
import * as vscode from 'vscode';

/** Lines from the end that still count as "at the end" (the empty line after the last break, a line of margin). */
const FOLLOW_SLACK_LINES = 2;

export class EndFollower implements vscode.Disposable {
  private readonly subscriptions: vscode.Disposable[];
  /**
   * Editors the person sent to the end since the last redraw (Ctrl+End, a click on the last lines,
   * opening it from the tree): they follow even when VS Code has not yet reported their new visible lines.
   */
  private readonly toEnd = new WeakSet<vscode.TextEditor>();
  /** The selection revealEnd set last in each editor: its echo is ours, not the person's going to the end. */
  private readonly ownSelection = new WeakMap<vscode.TextEditor, vscode.Selection>();
  /**
   * Editors put back where the person scrolled up to, and that line: until they go to the end again
   * (Ctrl+End, a click on the last lines) they stay there, whatever visible lines VS Code reports in
   * between (its jump to the end under replaced text).
   */
  private readonly held = new WeakMap<vscode.TextEditor, number>();

  constructor(private readonly scheme: string) {
    this.subscriptions = [
      vscode.window.onDidChangeTextEditorSelection(({ textEditor, selections, kind }) => {
        // A selection the text's change moved comes without a kind.
        if (textEditor.document.uri.scheme !== this.scheme || kind === undefined) return;
        const own = this.ownSelection.get(textEditor);
        this.ownSelection.delete(textEditor);
        if (own && selections.length === 1 && selections[0].isEqual(own)) return;
        if ((selections[0]?.active.line ?? 0) >= textEditor.document.lineCount - 1 - FOLLOW_SLACK_LINES) this.toEnd.add(textEditor);
      }),
      vscode.workspace.onDidChangeTextDocument(({ document, contentChanges }) => {
        if (document.uri.scheme !== this.scheme || contentChanges.length === 0) return;
        const last = linesBefore(document.lineCount, contentChanges) - 1;
        const key = document.uri.toString();
        for (const editor of vscode.window.visibleTextEditors) if (editor.document.uri.toString() === key) this.redrawn(editor, last);
      }),
    ];
  }

  /** Scrolls `editor` to the end and has it follow, whatever VS Code reports of it before its next redraw. */
  follow(editor: vscode.TextEditor): void {
    this.held.delete(editor);
    this.toEnd.add(editor);
    this.revealEnd(editor);
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }

  /** The new text is in; `last` was the document's last line before it, what the editor's visible lines still refer to. */
  private redrawn(editor: vscode.TextEditor, last: number): void {
    const shownAtEnd = lastVisibleLine(editor) >= last - FOLLOW_SLACK_LINES;
    const held = this.held.get(editor);
    // Consumed by every redraw, so a later scroll up is not undone by an old Ctrl+End.
    if (this.toEnd.delete(editor) || (shownAtEnd && held === undefined)) {
      this.held.delete(editor);
      // The cursor goes along only if it sat at the end (as after Ctrl+End).
      const { selection } = editor;
      this.revealEnd(editor, selection.isEmpty && selection.active.line >= last - FOLLOW_SLACK_LINES);
      return;
    }
    // A held editor reported at the end is VS Code's jump, not the person's scroll: it keeps its line.
    const top = held !== undefined && shownAtEnd ? held : (editor.visibleRanges[0]?.start.line ?? 0);
    this.held.set(editor, top);
    editor.revealRange(new vscode.Range(top, 0, top, 0), vscode.TextEditorRevealType.AtTop);
  }

  /**
   * Scrolls the editor to its document's last line (and puts the cursor there), as little as it takes;
   * at the line's start, so a long status line does not scroll the output out of view sideways.
   */
  private revealEnd(editor: vscode.TextEditor, moveCursor = true): void {
    const end = editor.document.lineAt(editor.document.lineCount - 1).range.start;
    if (moveCursor) {
      editor.selection = new vscode.Selection(end, end);
      this.ownSelection.set(editor, editor.selection);
    }
    editor.revealRange(new vscode.Range(end, end), vscode.TextEditorRevealType.Default);
  }
}

/** The document's line count before these changes (their ranges are in the text they replaced). */
function linesBefore(lineCount: number, changes: readonly vscode.TextDocumentContentChangeEvent[]): number {
  let count = lineCount;
  for (const { range, text } of changes) count += range.end.line - range.start.line - (text.match(/\n/g)?.length ?? 0);
  return count;
}

const lastVisibleLine = (editor: vscode.TextEditor): number => editor.visibleRanges.at(-1)?.end.line ?? 0;
