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
import { browserInfo, hasDriver, workbenchScreenshot } from './helpers/webview';
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
    // The head that sticks is one row (navigation and slider): the page gets the rest (issue 40 §6).
    assert.ok(layout.pageVisible >= 0.8 * layout.view.height, `the page of the copy fills most of the view (${where})`);
  });

  it('follows Open Output in Inspector: the side view shows the output a tab was just opened on (issue 40 §6)', async () => {
    const a = await api.retain('first output\n', { tool: 'run_command', title: 'echo first' });
    const b = await api.retain('second output\n', { tool: 'run_command', title: 'echo second' });
    await vscode.commands.executeCommand('workbench.view.extension.toolOutputRecall');
    assert.equal(await run('showOutputInView', a.outputId), true);
    const shown = (outputId: string) => async () => {
      const s = await vscode.commands.executeCommand<InspectorViewState>('_toolOutputRecall.inspectorViewState');
      return s.outputId === outputId && s.page !== undefined;
    };
    await waitFor('the side view to show the first output', shown(a.outputId));
    assert.equal(await run('openOutput', b.outputId), true);
    await waitFor('the side view to follow the tab just opened', shown(b.outputId));
    const view = new InspectorView(b.outputId, 'view');
    await view.ready();
    testLog(`    screenshot: ${await workbenchScreenshot('side-view-follows-open-output.png')}`);
    // The Inspector gets the room, not an empty tree above it: sized to their content at first show.
    const layout = await view.probe<SideViewLayout>('sideViewLayout');
    const window = (await browserInfo()).viewport;
    testLog(`    side view ${layout.view.width}×${layout.view.height} px in a ${window?.width}×${window?.height} window`);
    if (window) assert.ok(layout.view.height >= 0.55 * window.height, `the Inspector's height (${JSON.stringify(layout.view)})`);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('Open Whole Copy in Editor on an 8 MiB copy: measured, and the file named after the command briefly (issue 40 §6)', async () => {
    const line = `${'0123456789abcdef'.repeat(5)}\n`;
    const text = line.repeat(Math.ceil((8 * 1024 * 1024) / line.length));
    const { outputId } = await api.retain(text, { tool: 'run_command', title: `awk '{ n++ } END { print n }' build/big.log` });
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const started = performance.now();
    await run('openOutputInEditor', outputId);
    await waitFor('the copy in an editor', () =>
      vscode.window.visibleTextEditors.some((e) => e.document.uri.path.includes(outputId.slice(4, 12)) && e.document.lineCount > 1),
    );
    const ms = performance.now() - started;
    const editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.path.includes(outputId.slice(4, 12)))!;
    testLog(`    Open Whole Copy in Editor, ${text.length.toLocaleString('en-US')} bytes: ${Math.round(ms)} ms`);
    const name = editor.document.uri.path.split('/').pop()!;
    assert.equal(name, `awk build-big.log-${outputId.slice(4, 12)}.log`);
    assert.ok(editor.document.lineCount > 100_000, `the whole copy's lines (${editor.document.lineCount})`);
    testLog(`    screenshot: ${await workbenchScreenshot('open-whole-copy.png')}`);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
