// Issue 29, item 8, in a real host: repeated commands are told apart in Retained Outputs (which run,
// when, how each ended come first in the description), and one output's sizes read the same in the
// tree, its tooltip and the inspector, each named by what it measures (the output, the retained copy,
// the preview). The inspector's page is read through the runner's driver (helpers/inspectorView.ts).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ToolOutputRecallApi } from '../../src/extension/api';
import type { TreeItemSnapshot } from '../../src/extension/inspector/outputsTree';
import { recallApi, skipBecause } from './helpers/host';
import { InspectorView } from './helpers/inspectorView';
import { hasDriver } from './helpers/webview';

const run = <T = unknown>(command: string, ...args: unknown[]) => vscode.commands.executeCommand<T>(`toolOutputRecall.${command}`, ...args);
const treeItems = (): Thenable<TreeItemSnapshot[]> =>
  vscode.commands.executeCommand<TreeItemSnapshot[]>('_toolOutputRecall.outputsTreeItems');
const KiB = 1024;
const MiB = 1024 * KiB;

describe('outputs told apart, sizes named', function () {
  this.timeout(120_000);
  let api: ToolOutputRecallApi;
  let start: string;

  before(async () => {
    api = await recallApi();
    start = await api.sessionId();
    await run('newSession');
  });
  afterEach(() => vscode.commands.executeCommand('workbench.action.closeAllEditors'));
  after(async () => {
    if (api && (await api.sessionId()) !== start) await run('switchSession', start).then(undefined, () => undefined);
  });

  it('the same command run three times reads differently in Retained Outputs: which run, and how it ended, before the cut', async () => {
    const title = 'npm test -- --grep flaky';
    const ids: string[] = [];
    for (const exitCode of [1, 1, 0]) {
      ids.push((await api.retain(`run with exit ${exitCode}\n`, { tool: 'run_command', title, extra: { exitCode } })).outputId);
    }
    const other = (await api.retain('once\n', { tool: 'run_command', title: 'sh once.sh', extra: { exitCode: 0 } })).outputId;
    const items = await treeItems();
    // Issue 40 §5: which run is in the label (the part a narrow side bar keeps), how it ended in the description.
    const labelOf = (id: string) => items.find((item) => item.id === id)?.label ?? '';
    const described = ids.map((id) => `${labelOf(id)} — ${items.find((item) => item.id === id)?.description ?? ''}`);
    assert.equal(new Set(described).size, 3, `three different rows:\n${described.join('\n')}`);
    if (vscode.env.language === 'en') {
      ids.forEach((id, i) => assert.ok(labelOf(id).endsWith(`run ${i + 1} of 3`), `which run, in the label: ${labelOf(id)}`));
      assert.match(described[0], /exit 1/);
      assert.match(described[2], /exit 0/);
    }
    const once = `${labelOf(other)} — ${items.find((item) => item.id === other)?.description ?? ''}`;
    assert.ok(!/ of \d/.test(once), `a command run once has no ordinal: ${once}`);
    assert.ok(!once.includes('run_command'), `run_command's icon says it; the name is not repeated: ${once}`);
  });

  it("an incomplete copy's sizes read the same in the tree and the inspector, each named: the output, the retained copy, the preview", async function () {
    if (!hasDriver()) return skipBecause(this, "the inspector's page is read through scripts/host/run.mjs's driver");
    const copy = `${'kept line\n'.repeat(90 * KiB)}`; // 900 KiB of copy
    const dropped = Math.round(9.5 * MiB) - copy.length;
    const { outputId } = await api.retain(copy, {
      tool: 'run_command',
      title: 'sh sizes.sh',
      complete: false,
      droppedBytes: dropped,
      gapOffset: 450 * KiB,
      extra: { exitCode: 0 },
    });
    const item = (await treeItems()).find((i) => i.id === outputId);
    assert.ok(item, 'listed');
    if (vscode.env.language === 'en') assert.match(item.description, / · output 9\.5 MiB · copy 900 KiB$/, item.description);
    assert.equal(await run('openOutput', outputId), true);
    const tab = new InspectorView(outputId);
    await tab.ready();
    const header = await tab.text('.meta .output-sizes');
    const [treeSizes] = /output .*$/.exec(item.description) ?? [''];
    if (vscode.env.language === 'en') {
      assert.equal(header, 'output 9.5 MiB · copy 900 KiB (921,600 bytes)');
      assert.ok(header.startsWith(treeSizes), `the tree's sizes (${treeSizes}) are the header's: ${header}`);
      assert.match(await tab.text('.preview-note'), /Preview: [\d.]+ KiB \([\d,]+ bytes\)\./);
    }
    await tab.screenshot('inspector-sizes.png', '#app');
  });
});
