/**
 * Editors that follow the end of a running command's document, as the Output panel and the terminal
 * do: an editor whose last visible line is at (or within FOLLOW_SLACK_LINES of) the end just before
 * the document is redrawn is scrolled to the new end once the new text is in; one the person scrolled
 * up in is left where it is, and follows again once they go back to the end (Ctrl+End, or a click
 * on its last lines).
 * "Left where it is" takes a hand too: past 100,000 characters VS Code replaces the document's text
 * whole, and the editor's viewport, anchored in the replaced text, jumps to its end.
 * A scroll that lands between VS Code's asking for the new text and applying it (an IPC round trip)
 * is undone once by that redraw; the next scroll holds (seen once in six host runs at load 4-14;
 * four times in three when the editors were read as the redraw was asked for, a round trip earlier). Telling it apart
 * from VS Code's own moves of the viewport as the text is replaced was tried (every visible-range
 * report that moved up taken for the person's): those moves go up too, and it stopped following.
 */
import * as vscode from 'vscode';

/** Lines from the end that still count as "at the end" (the empty line after the last break, a line of margin). */
const FOLLOW_SLACK_LINES = 2;

interface Follower {
  editor: vscode.TextEditor;
  /** Its last visible line was at the document's end when the redraw was asked for. */
  atEnd: boolean;
  /** Its first visible line then: where an editor scrolled up is put back. */
  top: number;
  /** The cursor sat at the end, so it moves to the new end (Ctrl+End keeps following). */
  cursor: boolean;
}

export class EndFollower implements vscode.Disposable {
  /** By document, its visible editors when its redraw was asked for. */
  private readonly pending = new Map<string, Follower[]>();
  private readonly subscription: vscode.Disposable;
  private readonly selections: vscode.Disposable;
  /**
   * Editors the person moved to the end with the keyboard or a command (Ctrl+End) since their last
   * redraw: they follow even when VS Code has not yet told this host their new visible lines.
   */
  private readonly jumpedToEnd = new WeakSet<vscode.TextEditor>();
  /**
   * Editors put back where the person scrolled up to, and that line: until they go to the end again
   * (Ctrl+End, a click on the last lines) they stay there, whatever visible lines VS Code reports in
   * between (its jump to the end under replaced text is reported after the fact).
   */
  private readonly held = new WeakMap<vscode.TextEditor, number>();

  constructor(private readonly scheme: string) {
    // Our own moves (revealEnd) set the selection from the API, which comes without a kind.
    this.selections = vscode.window.onDidChangeTextEditorSelection(({ textEditor, selections, kind }) => {
      if (textEditor.document.uri.scheme !== this.scheme || kind === undefined) return;
      if ((selections[0]?.active.line ?? 0) >= textEditor.document.lineCount - 1 - FOLLOW_SLACK_LINES) this.jumpedToEnd.add(textEditor);
    });
    // Where each editor was is taken when VS Code asks for the new text (runningView.ts), just before
    // it applies it: by the time the change arrives here, VS Code may already have moved a viewport it
    // replaced the text under, and reading it then would take that jump for the person's scroll.
    this.subscription = vscode.workspace.onDidChangeTextDocument(({ document }) => {
      if (document.uri.scheme !== this.scheme) return;
      const key = document.uri.toString();
      const followers = this.pending.get(key);
      this.pending.delete(key);
      for (const { editor, atEnd, top, cursor } of followers ?? []) {
        if (atEnd) {
          this.held.delete(editor);
          revealEnd(editor, cursor);
        } else {
          this.held.set(editor, top);
          editor.revealRange(new vscode.Range(top, 0, top, 0), vscode.TextEditorRevealType.AtTop);
        }
      }
    });
  }

  /** Scrolls `editor` to the end and has it follow, whatever VS Code reports of it before its next redraw. */
  follow(editor: vscode.TextEditor): void {
    this.held.delete(editor);
    this.jumpedToEnd.add(editor);
    revealEnd(editor);
  }

  /** Called just before a document is redrawn, while its editors still show the old text. */
  beforeRedraw(uri: vscode.Uri): void {
    const key = uri.toString();
    const followers = vscode.window.visibleTextEditors
      .filter((editor) => editor.document.uri.toString() === key)
      .map((editor) => {
        const last = editor.document.lineCount - 1;
        // Consumed by every redraw, so a later scroll up is not undone by an old Ctrl+End.
        const jumped = this.jumpedToEnd.delete(editor);
        const shownAtEnd = lastVisibleLine(editor) >= last - FOLLOW_SLACK_LINES;
        const held = this.held.get(editor);
        return {
          editor,
          atEnd: jumped || (shownAtEnd && held === undefined),
          // A held editor reported at the end is VS Code's jump, not the person's scroll: it keeps its line.
          top: held !== undefined && shownAtEnd ? held : (editor.visibleRanges[0]?.start.line ?? 0),
          cursor: editor.selection.isEmpty && editor.selection.active.line >= last - FOLLOW_SLACK_LINES,
        };
      });
    if (followers.length > 0) this.pending.set(key, followers);
    else this.pending.delete(key);
  }

  dispose(): void {
    this.subscription.dispose();
    this.selections.dispose();
    this.pending.clear();
  }
}

/**
 * Scrolls the editor to its document's last line (and puts the cursor there), as little as it takes;
 * at the line's start, so a long status line does not scroll the output out of view sideways.
 */
function revealEnd(editor: vscode.TextEditor, moveCursor = true): void {
  const end = editor.document.lineAt(editor.document.lineCount - 1).range.start;
  if (moveCursor) editor.selection = new vscode.Selection(end, end);
  editor.revealRange(new vscode.Range(end, end), vscode.TextEditorRevealType.Default);
}

const lastVisibleLine = (editor: vscode.TextEditor): number => editor.visibleRanges.at(-1)?.end.line ?? 0;
