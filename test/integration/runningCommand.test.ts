// A long run_command is not just a spinner (issue 29, item 5), in a real host: while it runs, the
// Retained Outputs tree lists it at once with its bytes so far; its document shows the last bytes as
// they arrive (never more than the bounded tail); Cancel from the tree stops its whole process tree and
// the tool returns its usual result for a cancelled command; the item then becomes the retained output.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TreeItemSnapshot } from '../../src/extension/inspector/outputsTree';
import { commandOutputId, invoke, isAlive, recallApi, scratchDir, waitFor } from './helpers/host';
import { hasDriver, workbenchScreenshot } from './helpers/webview';
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

/** The tail size the document shows at most (PROGRESS_TAIL_BYTES). */
const TAIL_BYTES = 16 * 1024;

describe('running command in the tree: bytes so far, the tail, Cancel', function () {
  this.timeout(120_000);

  it('shows a running run_command at once, its growing bytes and tail, and cancels it from the tree', async () => {
    await recallApi();
    const dir = scratchDir('running');
    // A slow producer: a numbered 1,000-byte line every 20 ms until it is stopped; it writes its pid first.
    const command = `echo $$ > shell.pid; i=0; while :; do i=$((i+1)); printf 'tick %06d %0990d\\n' $i 0; sleep 0.02; done`;
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
      return items[0]?.id === id && items[0].contextValue === 'runningCommand' && items[0].label === command.slice(0, 19) + '…';
    });

    // Its bytes grow, and the item's description says so.
    const first = await waitForBytes(id, 1);
    const later = await waitForBytes(id, first + 64 * 1024);
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
    assert.match(shown, /bytes so far/);
    assert.match(shown, /--- the last 16,384 bytes \(updated as they arrive\) ---\n/);
    const tail = shown.slice(shown.indexOf('---\n', shown.indexOf('--- the last')) + 4);
    assert.ok(Buffer.byteLength(tail) <= TAIL_BYTES, `the document shows ${Buffer.byteLength(tail)} bytes of output`);
    assert.ok(tail.startsWith('tick '), 'the tail starts at a whole line');
    const seen = lastTick(shown);
    await waitFor('the document to show later lines', () => lastTick(doc()!.getText()) > seen + 5);
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
    await waitFor('the document to say the command ended', () => /^Ended after /m.test(doc()!.getText()));
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

/** Waits until the call has printed at least `bytes`; returns its count then. */
async function waitForBytes(id: string, bytes: number): Promise<number> {
  let total = 0;
  await waitFor(`the running command to print ${bytes} bytes`, async () => {
    total = (await runningCommands()).find((c) => c.id === id)?.totalBytes ?? 0;
    return total >= bytes;
  });
  return total;
}
