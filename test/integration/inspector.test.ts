// The inspector's public behaviour in a real host: its commands open a webview panel per output
// (named after the output), refuse unknown ids, and open the whole copy as a read-only document.
// (No VS Code API reads another view's tree items or a webview's content; test/browser covers the page.)
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { INSPECTOR_VIEW_TYPE } from '../../webview/protocol';
import { recallApi, waitFor } from './helpers/host';

const run = <T = unknown>(command: string, ...args: unknown[]) => vscode.commands.executeCommand<T>(`toolOutputRecall.${command}`, ...args);

function inspectorTabs(): vscode.Tab[] {
  return vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter(
      (t) =>
        t.input instanceof vscode.TabInputWebview &&
        (t.input.viewType === INSPECTOR_VIEW_TYPE || t.input.viewType.endsWith(`-${INSPECTOR_VIEW_TYPE}`)),
    );
}

describe('inspector', function () {
  // Generous (seconds on an idle machine), ×TEST_TIME_SCALE; above the waits' own deadlines (waitFor).
  this.timeout(60_000);
  const title = 'inspector test: make all';
  const content = Array.from({ length: 3000 }, (_, i) => `compiling unit ${i + 1}`).join('\n') + '\nBUILD OK\n';
  let outputId: string;

  before(async () => {
    const api = await recallApi();
    await vscode.window.tabGroups.close(inspectorTabs());
    ({ outputId } = await api.retain(content, { tool: 'run_command', title }));
  });
  after(async () => {
    await vscode.window.tabGroups.close(inspectorTabs());
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('refreshOutputs runs', async () => {
    assert.equal(await run('refreshOutputs'), undefined);
  });

  it('openOutput opens one inspector panel per output, named after it', async () => {
    assert.equal(await run('openOutput', outputId), true);
    await waitFor('the inspector tab, named after the output', () => inspectorTabs().some((t) => t.label === title));
    const tab = inspectorTabs().find((t) => t.label === title)!;
    assert.equal(tab.isActive, true);

    // Opening it again reveals the same panel.
    assert.equal(await run('openOutput', outputId, { offset: 100 }), true);
    assert.equal(inspectorTabs().length, 1);
  });

  it('openOutput refuses an unknown id and opens nothing', async () => {
    const before = inspectorTabs().length;
    assert.equal(await run('openOutput', 'out_0123456789abcdef01234567'), undefined);
    assert.equal(inspectorTabs().length, before);
  });

  it('openOutputInEditor opens the whole copy as a read-only document', async () => {
    await run('openOutputInEditor', outputId);
    await waitFor('the copy in an editor', () => vscode.window.activeTextEditor?.document.uri.scheme === 'tool-output-recall');
    const document = vscode.window.activeTextEditor!.document;
    assert.ok(document.uri.path.includes(outputId), document.uri.toString());
    assert.equal(document.getText(), content);
  });

  it('deleteOutput removes the copy and closes its panel; the id stops resolving', async () => {
    const api = await recallApi();
    const { outputId: doomed } = await api.retain(content, { tool: 'run_command', title: 'inspector test: to delete' });
    assert.equal(await run('openOutput', doomed), true);
    await waitFor('the panel of the copy to delete', () => inspectorTabs().some((t) => t.label === 'inspector test: to delete'));
    assert.equal(await run('deleteOutput', doomed, { confirm: false }), true);
    // The panel closes after the command returns (the workbench disposes it asynchronously): wait for
    // the tab to go. Under heavy load that once took more than the fixed 5 s the wait allowed; waitFor's
    // deadline is now generous and ×TEST_TIME_SCALE, there only so that a panel that never closes fails.
    await waitFor('its panel to close', () => !inspectorTabs().some((t) => t.label === 'inspector test: to delete'));
    await assert.rejects(api.read(doomed), (error: Error) => /NOT_FOUND/.test(`${(error as { code?: string }).code} ${error.message}`));
  });
});
