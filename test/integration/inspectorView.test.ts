// The inspector as a webview view beside the Retained Outputs tree, in a real host: it resolves, it
// follows the tree's selection and "Show in Side View", its page asks for the output it was given
// (ready → describe → page, answered by the same handler as the panel), and it keeps working after
// being moved to the panel and to the secondary side bar. What the page paints is not read here:
// the extension side's record of what the page asked and was answered is (`_toolOutputRecall.inspectorViewState`).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { InspectorViewState } from '../../src/extension/inspector/inspectorView';
import { recallApi, skipBecause, waitFor } from './helpers/host';

const VIEW = 'toolOutputRecall.inspectorView';
const state = async (): Promise<InspectorViewState> =>
  vscode.commands.executeCommand<InspectorViewState>('_toolOutputRecall.inspectorViewState');

/** Waits until the page on screen described `outputId` and was sent its first page. */
async function waitShown(outputId: string, what: string, timeoutMs = 15_000): Promise<InspectorViewState> {
  let last: InspectorViewState | undefined;
  try {
    await waitFor(
      what,
      async () => {
        last = await state();
        return last.outputId === outputId && last.described?.outputId === outputId && last.page !== undefined;
      },
      timeoutMs,
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}; the view's last state: ${JSON.stringify(last)}`, { cause: error });
  }
  return last!;
}

describe('inspector side view', function () {
  this.timeout(60_000);
  const lines = Array.from({ length: 3000 }, (_, i) => `side view line ${i + 1}`).join('\n') + '\nRESULT build_id=7\n';
  let complete: string;
  let incomplete: string;

  before(async () => {
    const api = await recallApi();
    ({ outputId: complete } = await api.retain(lines, { tool: 'run_command', title: 'side view test: complete' }));
    ({ outputId: incomplete } = await api.retain(lines, {
      tool: 'run_command',
      title: 'side view test: incomplete',
      complete: false,
      droppedBytes: 5000,
      gapOffset: 4096,
    }));
  });
  after(async () => {
    await vscode.commands.executeCommand('workbench.action.resetViewLocations');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('resolves beside the tree, with a placeholder while nothing is selected', async function () {
    await vscode.commands.executeCommand(`${VIEW}.focus`);
    await waitFor('the view to resolve and show', async () => {
      const s = await state();
      return s.resolved && s.visible;
    });
    const s = await state();
    // The view follows Open Output in Inspector: an earlier file's tab leaves it showing that output (or its placeholder once deleted).
    if (s.outputId !== undefined || /no longer in this session|was deleted/.test(s.placeholder ?? ''))
      return skipBecause(this, 'an earlier test opened an output in the inspector, which the side view follows');
    assert.match(s.placeholder ?? '', /Select an output in Retained Outputs/);
    assert.equal(s.readyCount, 0, 'the placeholder page runs no script');
  });

  it("follows the tree's selection: the page describes the selected output and shows its first page", async () => {
    // Select the newest output (the tree lists newest first) the way a person does: focus the tree,
    // first item, select. The tree refreshes shortly after a retain, so repeat until it has.
    await waitFor(
      'the tree selection to reach the side view',
      async () => {
        await vscode.commands.executeCommand('toolOutputRecall.outputs.focus');
        await vscode.commands.executeCommand('list.focusFirst');
        await vscode.commands.executeCommand('list.select');
        return (await state()).outputId === incomplete;
      },
      20_000,
      250,
    );
    const s = await waitShown(incomplete, 'the selected output in the side view');
    assert.equal(s.placeholder, undefined);
    assert.ok(s.readyCount >= 1, 'the inspector page loaded and said ready');
    assert.equal(s.described?.complete, false, 'complete=false reaches the flags');
    assert.equal(s.described?.droppedBytes, 5000);
    assert.equal(s.described?.gapOffset, 4096);
    assert.deepEqual(
      { offset: s.page?.offset, totalBytes: s.page?.totalBytes, complete: s.page?.complete, hasMore: s.page?.hasMore },
      { offset: 0, totalBytes: Buffer.byteLength(lines), complete: false, hasMore: true },
    );
  });

  it('Show in Side View shows the output it names, at the offset it names', async () => {
    assert.equal(await vscode.commands.executeCommand('toolOutputRecall.showOutputInView', complete, { offset: 8192 }), true);
    const s = await waitShown(complete, 'the named output in the side view');
    assert.equal(s.described?.complete, true, 'complete=true reaches the flags');
    assert.equal(s.described?.droppedBytes, 0);
    assert.equal(s.page?.offset, 8192);
    assert.equal(s.page?.complete, true);
  });

  it('Show in Side View refuses an unknown id and keeps what it shows', async () => {
    assert.equal(await vscode.commands.executeCommand('toolOutputRecall.showOutputInView', 'out_0123456789abcdef01234567'), undefined);
    assert.equal((await state()).outputId, complete);
  });

  // Where the view lives is the person's choice; moving it gives a new page in the new place.
  for (const [where, container] of [
    ['the panel', 'workbench.panel.output'],
    ['the secondary side bar', 'workbench.panel.chat'],
  ] as const) {
    it(`keeps working when moved to ${where}`, async () => {
      const before = await state();
      await vscode.commands.executeCommand('vscode.moveViews', { viewIds: [VIEW], destinationId: container });
      await vscode.commands.executeCommand(`${VIEW}.focus`);
      await waitFor(`a new page in ${where}`, async () => (await state()).readyCount > before.readyCount, 15_000);
      // The new page shows what the old one showed; then it still follows what is asked.
      const shown = before.outputId!;
      const s = await waitShown(shown, `the output in ${where}`);
      assert.equal(s.visible, true);
      assert.equal(s.described?.complete, shown === complete);
      const other = shown === complete ? incomplete : complete;
      assert.equal(await vscode.commands.executeCommand('toolOutputRecall.showOutputInView', other), true);
      const next = await waitShown(other, `the next output in ${where}`);
      assert.equal(next.described?.complete, other === complete);
    });
  }

  it('gives way to a placeholder when the output it shows is deleted', async () => {
    await vscode.commands.executeCommand('workbench.action.resetViewLocations');
    const shown = (await state()).outputId;
    assert.ok(shown === complete || shown === incomplete, `the view shows one of this suite's outputs, not ${shown}`);
    assert.equal(await vscode.commands.executeCommand('toolOutputRecall.deleteOutput', shown, { confirm: false }), true);
    await waitFor('the placeholder for a deleted output', async () => (await state()).outputId === undefined);
    assert.match((await state()).placeholder ?? '', /no longer in this session/);
  });
});
