// Issue 29 item 6 in a real host: the Inspector view at the side bar's default size, under the
// Retained Outputs tree of a session with nothing in it yet (the output shown is an earlier
// session's). One thing scrolls, the view's document: no scroller inside another; the search box's
// placeholder is whole; no control is cut; read into the page of the copy, the pager's head stays at
// the top and the page fills most of the view (not ~150 px of it). Measured in the webview's frame
// through the runner's driver (probe sideViewLayout, as test/browser/sideView.test.ts measures it).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ToolOutputRecallApi } from '../../src/extension/api';
import type { InspectorViewState } from '../../src/extension/inspector/inspectorView';
import { recallApi, skipBecause, waitFor } from './helpers/host';
import { testLog } from './log';
import { InspectorView } from './helpers/inspectorView';
import { hasDriver } from './helpers/webview';
import type { SideViewLayout } from '../../scripts/host/probes.mjs';

const run = <T = unknown>(command: string, ...args: unknown[]) => vscode.commands.executeCommand<T>(`toolOutputRecall.${command}`, ...args);

describe('side view at the side bar’s default size', function () {
  this.timeout(120_000);
  let api: ToolOutputRecallApi;
  let start: string;

  before(async function () {
    if (!hasDriver()) return skipBecause(this, "the view's page is measured through scripts/host/run.mjs's driver");
    api = await recallApi();
    start = await api.sessionId();
  });
  after(async () => {
    await vscode.commands.executeCommand('workbench.action.resetViewLocations');
    if (api && (await api.sessionId()) !== start) await run('switchSession', start).then(undefined, () => undefined);
  });

  it('one scroller (the document), the placeholder whole, nothing cut, and the page of the copy fills the view under the pager’s head', async () => {
    await run('newSession');
    const lines = Array.from({ length: 200_000 }, (_, i) => `${i + 1}`).join('\n') + '\nsomething failed\n';
    const { outputId } = await api.retain(lines, { tool: 'run_command', title: 'seq 1 200000; echo "something failed" >&2; exit 3' });
    // An empty tree above the view, as after New Session: the output shown is the earlier session's.
    await run('newSession');
    await vscode.commands.executeCommand('workbench.action.resetViewLocations');
    await vscode.commands.executeCommand('workbench.view.extension.toolOutputRecall');
    assert.equal(await run('showOutputInView', outputId), true);
    await waitFor('the side view to show the output', async () => {
      const s = await vscode.commands.executeCommand<InspectorViewState>('_toolOutputRecall.inspectorViewState');
      return s.outputId === outputId && s.page !== undefined;
    });
    const view = new InspectorView(outputId, 'view');
    await view.ready();
    await view.navigate(() => view.click('button[aria-keyshortcuts="Alt+PageDown"]'));
    const layout = await view.probe<SideViewLayout>('sideViewLayout');
    const where = JSON.stringify(layout);
    testLog(
      `    side view ${layout.view.width}×${layout.view.height} px: page shown ${Math.round(layout.pageVisible)} px under the pager's head`,
    );
    await view.screenshot('inspector-side-view.png', '#app');
    assert.ok(layout.view.width < 500, `the side bar's width (${where})`);
    assert.deepEqual(layout.scrollers, [], `nothing in the page scrolls but the document (${where})`);
    assert.deepEqual(layout.nested, [], `no scroller inside another (${where})`);
    assert.ok(layout.placeholder.width <= layout.placeholder.room, `the search placeholder is whole (${where})`);
    assert.deepEqual(layout.clipped, [], `no control is clipped (${where})`);
    assert.ok(Math.abs(layout.headTop) <= 1, `the pager's head stays at the top while the page is read (${where})`);
    assert.ok(layout.pageVisible >= 0.5 * layout.view.height, `the page of the copy fills most of the view (${where})`);
  });
});
