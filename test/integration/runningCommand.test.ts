// A long run_command is not just a spinner (issue 29, item 5), in a real host: while it runs, the
// Retained Outputs tree lists it at once with its bytes so far; its document shows the last bytes as
// they arrive (never more than the bounded tail); Cancel from the tree stops its whole process tree and
// the tool returns its usual result for a cancelled command; the item then becomes the retained output.
// Issue 40: the tree is revealed while it runs; its document follows the newest lines (and stops when
// the person scrolls up, follows again at Ctrl+End); once it ends the document states the copy's own
// byte count and offers Open Output in Inspector; a small cancelled run is kept, flagged cancelled.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { sizeText } from '../../src/extension/sizes';
import type { TreeItemSnapshot } from '../../src/extension/inspector/outputsTree';
import { commandOutputId, invoke, isAlive, readPage, recallApi, scratchDir, waitFor } from './helpers/host';
import { InspectorView } from './helpers/inspectorView';
import { Webview, hasDriver, workbenchScreenshot } from './helpers/webview';
import { testLog } from './log';

interface RunningState {
  id: string;
  command: string;
  totalBytes: number;
  tailBytes: number;
  elapsedMs: number;
  cancelling: boolean;
  uri: string;
}

const runningCommands = (): Thenable<RunningState[]> => vscode.commands.executeCommand<RunningState[]>('_toolOutputRecall.runningCommands');

const treeItems = (): Thenable<TreeItemSnapshot[]> =>
  vscode.commands.executeCommand<TreeItemSnapshot[]>('_toolOutputRecall.outputsTreeItems');

const workbench = new Webview({ selector: '.monaco-workbench' });

/** The tail size the document shows at most (PROGRESS_TAIL_BYTES). */
const TAIL_BYTES = 128 * 1024;

describe('running command in the tree: bytes so far, the tail, Cancel', function () {
  this.timeout(240_000);

  // A failed test leaves no command running behind it for the next one.
  afterEach(async () => {
    for (const call of await runningCommands()) await vscode.commands.executeCommand('toolOutputRecall.cancelRunningCommand', call.id);
  });

  it('shows a running run_command at once, its growing bytes and tail, and cancels it from the tree', async () => {
    await recallApi();
    const dir = scratchDir('running');
    // The side bar shows another view: the tree must come to the running command by itself.
    await vscode.commands.executeCommand('workbench.view.explorer');
    // A slow producer: ten numbered 62-byte lines every 20 ms until it is stopped (the 16 KiB tail is
    // ~260 lines, more than an editor shows); it writes its pid first.
    const command = `echo $$ > shell.pid; i=0; while :; do for j in 0 1 2 3 4 5 6 7 8 9; do i=$((i+1)); printf 'tick %06d %050d\\n' $i 0; done; sleep 0.02; done`;
    const outcome = invoke('run_command', { command, cwd: dir }).then(
      ({ text }) => ({ text }),
      (error: Error) => ({ error }),
    );

    // At once in the tree, first, as a running item.
    let state: RunningState | undefined;
    await waitFor('the running command in the registry', async () => {
      state = (await runningCommands()).find((c) => c.command === command);
      return state !== undefined;
    });
    const id = state!.id;
    await waitFor('the running item in the tree', async () => {
      const items = await treeItems();
      // Its label is the command named briefly (commandLabel's own tests say how).
      return items[0]?.id === id && items[0].contextValue === 'runningCommand' && !!items[0].label && items[0].label !== id;
    });

    // Still running after a second, it is revealed in the tree (not selected, the focus stays where it was).
    if (hasDriver()) {
      await workbench.waitFor('.monaco-list-row[aria-label*=", running, "]', 'visible');
      await workbench.waitFor('.monaco-list-row.selected[aria-label*=", running, "]', 'detached');
    }

    // Its bytes grow, and the item's description says so.
    const first = await waitForBytes(id, 1);
    const later = await waitForBytes(id, first + 160 * 1024);
    assert.ok(later > first);
    await waitFor('the item to show the bytes so far', async () => {
      const item = (await treeItems()).find((i) => i.id === id);
      return /^[\d.]+ (KiB|MiB) · \d+ s$/.test(item?.description ?? '');
    });

    // Its document: the command, the bytes so far and only the last bytes, updated as they arrive.
    const uri = await vscode.commands.executeCommand<string>('toolOutputRecall.showRunningCommand', { kind: 'running', id });
    assert.equal(uri, state!.uri);
    const doc = () => vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
    await waitFor('the document to open', () => doc() !== undefined);
    const lastTick = (text: string) => Math.max(...[...text.matchAll(/^tick (\d{6}) /gm)].map((m) => Number(m[1])));
    const shown = doc()!.getText();
    assert.ok(shown.startsWith(`$ ${command}\n`), shown.slice(0, 300));
    assert.match(shown, /\nRunning for \d+ s: [\d,]+ bytes so far \(stdout [\d,]+, stderr 0\)\.$/);
    assert.match(shown, /--- the last 131,072 bytes \(updated as they arrive\) ---\n/);
    // The output, then the status line last (where an editor following the end looks).
    const tail = shown.slice(shown.indexOf('---\n', shown.indexOf('--- the last')) + 4, shown.lastIndexOf('\n') + 1);
    assert.ok(Buffer.byteLength(tail) <= TAIL_BYTES, `the document shows ${Buffer.byteLength(tail)} bytes of output`);
    assert.ok(tail.startsWith('tick '), 'the tail starts at a whole line');
    const seen = lastTick(shown);
    await waitFor('the document to show later lines', () => lastTick(doc()!.getText()) > seen + 5).catch(async (error: Error) => {
      const now = (await runningCommands()).find((c) => c.id === id);
      throw new Error(
        `${error.message}; it shows tick ${seen} and "${doc()!.lineAt(doc()!.lineCount - 1).text}", ${now?.totalBytes} bytes printed`,
      );
    });

    // Its editor follows the newest lines as they arrive, redraw after redraw.
    const editor = () => vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri)!;
    assert.ok(doc()!.lineCount > 200, `the tail is ${doc()!.lineCount} lines`);
    for (let round = 0; round < 3; round++) {
      const before = lastTick(doc()!.getText());
      await waitFor(`the editor to show the newest line after tick ${before}`, () => {
        const text = doc()!.getText();
        return lastTick(text) > before && showsEnd(editor());
      });
    }
    // Scrolled up, it is left where the person put it, redraw after redraw: once, no second try, also when
    // the scroll lands while a redraw is in flight (followEnd.ts reads the editor as the new text goes in).
    // A move a redraw made is reported before the next redraw's text, so each redraw finds it at its line.
    editor().revealRange(new vscode.Range(0, 0, 0, 0), vscode.TextEditorRevealType.AtTop);
    await waitFor('the editor to scroll to the top', () => editor().visibleRanges[0]?.start.line === 0);
    for (let round = 1; round <= 4; round++) {
      await redraws(uri, 1);
      assert.equal(editor().visibleRanges[0]?.start.line, 0, `redraw ${round} after the scroll up moved the editor`);
    }
    // Ctrl+End follows again: the newest lines, never a blank editor.
    await vscode.window.showTextDocument(doc()!, { preview: true, preserveFocus: false });
    await vscode.commands.executeCommand('cursorBottom');
    await redraws(uri, 2);
    await waitFor('the editor to follow the end again after Ctrl+End', () => showsEnd(editor()));
    for (let round = 1; round <= 3; round++) {
      await redraws(uri, 1);
      await waitFor(`the editor to keep following the end, redraw ${round} after Ctrl+End`, () => showsEnd(editor()));
    }
    if (hasDriver()) testLog(`    screenshot: ${await workbenchScreenshot('running-command-follow.png')}`);
    if (hasDriver()) {
      // For the README: the running item in the tree, its Cancel button and its document.
      await vscode.commands.executeCommand('toolOutputRecall.outputs.focus');
      await vscode.commands.executeCommand('list.focusFirst');
      await vscode.commands.executeCommand('list.select');
      testLog(`    screenshot: ${await workbenchScreenshot('running-command.png')}`);
    }

    // Cancel from the tree (the item's inline button passes its node).
    const pid = Number(fs.readFileSync(path.join(dir, 'shell.pid'), 'utf8').trim());
    assert.ok(isAlive(pid));
    const cancelled = await vscode.commands.executeCommand<boolean>('toolOutputRecall.cancelRunningCommand', { kind: 'running', id });
    assert.equal(cancelled, true);
    const result = await outcome;
    assert.ok('text' in result, `the tool failed instead of returning its result: ${'error' in result ? String(result.error) : ''}`);
    assert.match(result.text, /^cancelled \(the process tree was stopped\); /m);
    await waitFor('the process tree to be gone', () => !isAlive(pid), 5000);

    // The item becomes the retained output, as for any command; the document says it ended.
    const outputId = commandOutputId(result.text);
    await waitFor('the running item to become the retained output', async () => {
      const items = await treeItems();
      return !items.some((i) => i.id === id) && items.some((i) => i.id === outputId && i.contextValue === 'output');
    });
    assert.deepEqual(await runningCommands(), []);
    // One count everywhere: the document's final bytes are the copy's, which the tree shows too.
    const copy = await readPage(outputId, 0, 1024);
    await waitFor('the document to say the command was cancelled, with the copy', () =>
      new RegExp(
        `^Cancelled after [^:]+: ${copy.totalBytes.toLocaleString('en-US')} bytes, retained as ${outputId} \\(flagged cancelled\\)\\.$`,
        'm',
      ).test(doc()!.getText()),
    );
    const item = (await treeItems()).find((i) => i.id === outputId);
    assert.match(item?.description ?? '', /cancelled/);
    assert.ok(item?.description.includes(sizeText(copy.totalBytes)), `${item?.description} names ${copy.totalBytes} bytes`);
    await opensInInspector(uri, outputId);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('keeps a small cancelled run as a retained output flagged cancelled, and its document opens it', async () => {
    await recallApi();
    const dir = scratchDir('running-small');
    const command = `echo $$ > shell.pid; echo just-a-line; sleep 1000`;
    const before = new Set((await treeItems()).map((i) => i.id));
    const outcome = invoke('run_command', { command, cwd: dir });
    let state: RunningState | undefined;
    await waitFor('the running command', async () => {
      state = (await runningCommands()).find((c) => c.command === command);
      return state !== undefined && state.totalBytes > 0;
    });
    const uri = await vscode.commands.executeCommand<string>('toolOutputRecall.showRunningCommand', { kind: 'running', id: state!.id });
    const pid = Number(fs.readFileSync(path.join(dir, 'shell.pid'), 'utf8').trim());
    assert.equal(await vscode.commands.executeCommand('toolOutputRecall.cancelRunningCommand', { kind: 'running', id: state!.id }), true);
    const { text } = await outcome;
    // The model got the whole output, as before, in English.
    assert.match(text, /^cancelled \(the process tree was stopped\); /m);
    assert.match(text, /--- output ---\njust-a-line\n/);
    await waitFor('the process tree to be gone', () => !isAlive(pid), 5000);
    // The person finds it in the tree, flagged cancelled, and its document names it.
    let item: TreeItemSnapshot | undefined;
    await waitFor('the cancelled run in the tree', async () => {
      item = (await treeItems()).find((i) => i.contextValue === 'output' && !before.has(i.id));
      return item !== undefined;
    });
    const outputId = item!.id!;
    assert.match(item!.description, /cancelled/);
    assert.equal((await readPage(outputId)).text, 'just-a-line\n');
    const doc = () => vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
    await waitFor('the document to name the kept copy', () =>
      doc()!.getText().includes(`bytes, retained as ${outputId} (flagged cancelled).`),
    );
    await opensInInspector(uri, outputId);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('a run that ends normally states one count: its document, its copy and its row (issue 40 §2)', async () => {
    await recallApi();
    const dir = scratchDir('running-ended');
    // 288,894 bytes, then (once the test has opened its document) 300,001 more, and a normal exit: the
    // last bytes arrive just before the streams close, where a count from an earlier report would fall short.
    const printed = 288_894 + 300_001;
    const command = `seq 1 50000; while [ ! -f go ]; do sleep 0.05; done; seq 50001 100000`;
    const outcome = invoke('run_command', { command, cwd: dir });
    let state: RunningState | undefined;
    await waitFor('the running command to print its first part', async () => {
      state = (await runningCommands()).find((c) => c.command === command);
      return state !== undefined && state.totalBytes >= 288_894;
    });
    const uri = await vscode.commands.executeCommand<string>('toolOutputRecall.showRunningCommand', { kind: 'running', id: state!.id });
    const doc = () => vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
    await waitFor('the document to open', () => doc() !== undefined);
    fs.writeFileSync(path.join(dir, 'go'), '');
    const { text } = await outcome;
    assert.match(text, /\bexit code 0\b/, text.slice(0, 500));
    const outputId = commandOutputId(text);
    const copy = await readPage(outputId, 0, 1024);
    assert.equal(copy.totalBytes, printed, 'the copy holds every byte the command printed');
    const count = copy.totalBytes.toLocaleString('en-US');
    await waitFor(`the document to say it ended with the copy's ${count} bytes`, () =>
      new RegExp(`^Ended after [^:]+: ${count} bytes, retained as ${outputId}\\.$`, 'm').test(doc()!.getText()),
    ).catch((error: Error) => {
      throw new Error(`${error.message}; its last line: "${doc()!.lineAt(doc()!.lineCount - 1).text}"`);
    });
    assert.ok(!/Running for|so far/.test(doc()!.lineAt(doc()!.lineCount - 1).text), 'the status line is the ended one');
    let item: TreeItemSnapshot | undefined;
    await waitFor('the ended run in the tree', async () => {
      item = (await treeItems()).find((i) => i.id === outputId && i.contextValue === 'output');
      return item !== undefined;
    });
    assert.ok(item!.description.includes(sizeText(copy.totalBytes)), `${item!.description} names ${count} bytes`);
    if (vscode.env.language === 'en')
      assert.match(item!.description, new RegExp(` · output ${sizeText(copy.totalBytes)}$`), item!.description);
    // The row's tooltip gives the exact count (escaped as markdown: spaces as &nbsp;, punctuation after a backslash).
    const tooltip = (item!.tooltip ?? '').replace(/&nbsp;/g, ' ').replace(/\\([\s\S])/g, '$1');
    assert.ok(tooltip.includes(`${count} bytes`), `the tooltip names ${count} bytes:\n${tooltip}`);
    await opensInInspector(uri, outputId);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('Cancel with no command running says so and stops nothing', async () => {
    await recallApi();
    assert.deepEqual(await runningCommands(), []);
    assert.equal(
      await vscode.commands.executeCommand('toolOutputRecall.cancelRunningCommand', { kind: 'running', id: 'running:999' }),
      false,
    );
  });
});

/** The editor shows its document's last lines (the empty line after the last break, or the one before). */
function showsEnd(editor: vscode.TextEditor | undefined): boolean {
  const last = editor?.visibleRanges.at(-1);
  return !!editor && !!last && last.end.line >= editor.document.lineCount - 2 && last.start.line < editor.document.lineCount - 2;
}

/** Resolves after the document's text changed `count` times. */
async function redraws(uri: string, count: number): Promise<void> {
  let seen = 0;
  const subscription = vscode.workspace.onDidChangeTextDocument((e) => {
    if (e.document.uri.toString() === uri && e.contentChanges.length > 0) seen++;
  });
  try {
    await waitFor(`${count} redraws of ${uri}`, () => seen >= count);
  } finally {
    subscription.dispose();
  }
}

/** The ended document's CodeLens opens the copy in the inspector. */
async function opensInInspector(uri: string, outputId: string): Promise<void> {
  let lens: vscode.CodeLens | undefined;
  await waitFor('the Open Output in Inspector CodeLens', async () => {
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', vscode.Uri.parse(uri));
    lens = lenses.find((l) => l.command?.command === 'toolOutputRecall.openOutput');
    return lens !== undefined;
  });
  assert.deepEqual(lens!.command!.arguments, [outputId]);
  const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri)!;
  assert.equal(lens!.range.start.line, document.lineCount - 1, 'on the last line, which says how it ended');
  await vscode.commands.executeCommand(lens!.command!.command, outputId);
  if (hasDriver()) await new InspectorView(outputId).ready();
}

/** Waits until the call has printed at least `bytes`; returns its count then. */
async function waitForBytes(id: string, bytes: number): Promise<number> {
  let total = 0;
  await waitFor(
    `the running command to print ${bytes} bytes`,
    async () => {
      total = (await runningCommands()).find((c) => c.id === id)?.totalBytes ?? 0;
      return total >= bytes;
      // The shell loop's pace follows the machine's load.
    },
    60_000,
  );
  return total;
}
