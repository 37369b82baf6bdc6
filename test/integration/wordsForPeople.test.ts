// Issue 40 §5 in a real host: words, ids and times for people. Repeated runs of one command say which
// run each is in their label (the part of the row the side bar shows) and when in words ("… ago"); a
// command is named by its program and key argument, not its first 40 characters; typing a command's
// title in the Command Palette finds that command only; the session picker's screen-reader label
// keeps a `$(…)` of a first command. Screenshots in test/artifacts/host/.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ToolOutputRecallApi } from '../../src/extension/api';
import type { TreeItemSnapshot } from '../../src/extension/inspector/outputsTree';
import { exactTime, relativeTime } from '../../src/extension/times';
import { recallApi, skipBecause, waitFor } from './helpers/host';
import { testLog } from './log';
import { hasDriver, Webview, workbenchScreenshot } from './helpers/webview';

const run = <T = unknown>(command: string, ...args: unknown[]) => vscode.commands.executeCommand<T>(`toolOutputRecall.${command}`, ...args);
const treeItems = (): Thenable<TreeItemSnapshot[]> =>
  vscode.commands.executeCommand<TreeItemSnapshot[]>('_toolOutputRecall.outputsTreeItems');
const AWK = `awk -F'\\t' '{ if ($3 > max) { max = $3; line = $0 } } END { print line }' build/app.log`;

/** The times from `from` to `to`, a second apart, both ends included (a time is shown to the second). */
function everySecond(from: number, to: number): number[] {
  const times: number[] = [];
  for (let at = from; at < to; at += 1000) times.push(at);
  return [...times, to];
}

/** A MarkdownString's text as a person reads it: appendText escapes spaces as &nbsp; and punctuation with a backslash. */
const unescapeMarkdown = (value: string): string => value.replace(/&nbsp;/g, ' ').replace(/\\([\s\S])/g, '$1');

describe('words, ids and times for people (issue 40 §5)', function () {
  this.timeout(120_000);
  let api: ToolOutputRecallApi;
  let start: string;

  before(async () => {
    api = await recallApi();
    start = await api.sessionId();
  });
  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    if ((await api.sessionId()) !== start) await run('switchSession', start).then(undefined, () => undefined);
  });

  it('repeated runs say which run in their label, when in words; a command is named by its program and key argument', async () => {
    await run('newSession');
    const retainedFrom = Date.now();
    const first = await api.retain('a\tb\t3\n', { tool: 'run_command', title: AWK });
    const second = await api.retain('a\tb\t4\n', { tool: 'run_command', title: AWK });
    const retainedTo = Date.now();
    let items: TreeItemSnapshot[] = [];
    let readFrom = 0;
    await waitFor('both runs in the tree', async () => {
      readFrom = Date.now();
      items = await treeItems();
      return [first.outputId, second.outputId].every((id) => items.some((item) => item.id === id));
    });
    const readTo = Date.now();
    const item = (id: string) => items.find((i) => i.id === id)!;
    assert.equal(item(first.outputId).label, 'awk build/app.log · run 1 of 2');
    assert.equal(item(second.outputId).label, 'awk build/app.log · run 2 of 2');
    for (const id of [first.outputId, second.outputId]) {
      assert.match(item(id).description, /^(now|\d+ seconds? ago|\d+ minutes? ago) · /, 'when, in words, first');
      assert.ok(!item(id).description.includes('run '), 'which run is in the label, not in the description the side bar cuts');
      // §5, one format of a time: relative in the row, the exact time (times.ts's one form) in its tooltip.
      const exact = everySecond(retainedFrom, retainedTo).map((at) => exactTime(at));
      const relative = new Set(everySecond(readFrom - retainedTo, readTo - retainedFrom).map((ago) => relativeTime(0, ago)));
      const when = item(id).description.split(' · ')[0];
      assert.ok(relative.has(when), `the row says when relatively (${[...relative].join(' / ')}): ${item(id).description}`);
      assert.ok(!exact.some((text) => item(id).description.includes(text)), `no exact time in the row: ${item(id).description}`);
      const tooltip = unescapeMarkdown(item(id).tooltip ?? '');
      assert.ok(
        exact.some((text) => tooltip.includes(`run_command · ${text}\n`)),
        `the tooltip gives the exact time as ${exact.join(' or ')}:\n${tooltip}`,
      );
    }
    if (hasDriver()) {
      await vscode.commands.executeCommand('workbench.view.extension.toolOutputRecall');
      testLog(`    screenshot: ${await workbenchScreenshot('outputs-tree-repeated-runs.png')}`);
    }
  });

  it('typing "New Session" in the Command Palette finds New Session, not Fork Session', async function () {
    if (!hasDriver()) return skipBecause(this, "the palette's rows are read through scripts/host/run.mjs's driver");
    if (vscode.env.language !== 'en') return skipBecause(this, 'the titles typed are the English ones');
    const workbench = new Webview({ selector: '.quick-input-widget' });
    void vscode.commands.executeCommand('workbench.action.quickOpen', '>New Session');
    const rows = '.quick-input-widget .quick-input-list .monaco-list-row';
    await workbench.waitFor(rows);
    let labels: string[] = [];
    await waitFor('the palette to filter', async () => {
      labels = (await workbench.probe<Record<string, string>[]>('attributes', rows)).map((a) => a['aria-label'] ?? '');
      return labels.some((label) => label.includes('Tool Output Recall: New Session'));
    });
    testLog(`    screenshot: ${await workbench.screenshot('palette-new-session.png', '.quick-input-widget')}`);
    const ours = labels.filter((label) => label.includes('Tool Output Recall'));
    assert.deepEqual(
      ours.map((label) => label.split(',')[0]),
      ['Tool Output Recall: New Session'],
      `rows: ${JSON.stringify(labels)}`,
    );
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
  });

  it("the session picker's screen-reader label keeps a first command's `$(…)`", async function () {
    if (!hasDriver()) return skipBecause(this, "the picker's rows are read through scripts/host/run.mjs's driver");
    await run('newSession');
    await api.retain('1\n2\n', { tool: 'run_command', title: 'echo $(seq 1 20)' });
    const workbench = new Webview({ selector: '.quick-input-widget' });
    const picked = run('switchSession');
    const rows = '.quick-input-widget .quick-input-list .monaco-list-row';
    await workbench.waitFor(rows);
    let labels: string[] = [];
    await waitFor('the picker to list the session', async () => {
      labels = (await workbench.probe<Record<string, string>[]>('attributes', rows)).map((a) => a['aria-label'] ?? '');
      return labels.some((label) => label.includes('seq 1 20'));
    });
    testLog(`    screenshot: ${await workbench.screenshot('session-picker.png', '.quick-input-widget')}`);
    const read = labels.find((label) => label.includes('seq 1 20'))!.replace(/\u2060/g, '');
    assert.ok(read.includes('echo $(seq 1 20)'), `the label a screen reader reads: ${JSON.stringify(read)}`);
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    await picked;
  });
});
