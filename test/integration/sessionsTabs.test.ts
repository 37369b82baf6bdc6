// Sessions never strand what a person has open (issue 29, item 1), in a real host: an inspector tab of
// an output from an earlier session keeps showing it read-only, says so with the session's name and
// offers the way back; a tab of a deleted session says it was deleted; the session picker names
// sessions as a person knows them; after switching back, the side view shows that session's outputs.
// The webviews and the quick pick are read through the runner's driver (helpers/webview.ts).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ToolOutputRecallApi } from '../../src/extension/api';
import type { InspectorViewState } from '../../src/extension/inspector/inspectorView';
import type { TreeItemSnapshot } from '../../src/extension/inspector/outputsTree';
import { recallApi, skipBecause, waitFor } from './helpers/host';
import { InspectorView } from './helpers/inspectorView';
import { Webview, hasDriver, workbenchScreenshot } from './helpers/webview';

const run = <T = unknown>(command: string, ...args: unknown[]) => vscode.commands.executeCommand<T>(`toolOutputRecall.${command}`, ...args);

/** The workbench page itself (not a webview): the quick pick lives there. */
const workbench = new Webview({ selector: '.monaco-workbench' });

const closeEditors = () => vscode.commands.executeCommand('workbench.action.closeAllEditors');

const viewState = (): Thenable<InspectorViewState> =>
  vscode.commands.executeCommand<InspectorViewState>('_toolOutputRecall.inspectorViewState');

/** The tree's items (this window's outputs first). */
const treeItems = (): Thenable<TreeItemSnapshot[]> =>
  vscode.commands.executeCommand<TreeItemSnapshot[]>('_toolOutputRecall.outputsTreeItems');

/** This extension's log file (the "Tool Output Recall" channel), under the run's scratch folder. */
function extensionLog(): string {
  const root = process.env.TOR_TEST_SCRATCH;
  assert.ok(root, 'TOR_TEST_SCRATCH is not set (run through scripts/host/run.mjs)');
  const found = (fs.readdirSync(root, { recursive: true }) as string[])
    .filter((f) => path.basename(f) === 'Tool Output Recall.log')
    .map((f) => path.join(root, f))
    .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
  assert.ok(found[0], `no "Tool Output Recall.log" under ${root}`);
  return found[0];
}

/** Lines numbered so that a page of the copy is recognisable. */
const numbered = (what: string, count: number): string =>
  Array.from({ length: count }, (_, i) => `${what} line ${i + 1}`).join('\n') + '\n';

describe('sessions keep open tabs', function () {
  this.timeout(120_000);
  let api: ToolOutputRecallApi;
  let start: string;

  before(async function () {
    if (!hasDriver())
      skipBecause(
        this,
        "the webviews and the quick pick are read through scripts/host/run.mjs's driver, which this runner does not provide",
      );
    api = await recallApi();
    start = await api.sessionId();
    await closeEditors();
  });
  afterEach(closeEditors);
  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    if (api && (await api.sessionId()) !== start) await run('switchSession', start).then(undefined, () => undefined);
  });

  it('an open inspector tab after New Session still shows its output read-only, with a banner naming its session, and the banner’s button makes that session current again', async () => {
    await run('newSession');
    const earlier = await api.sessionId();
    const { outputId } = await api.retain(numbered('earlier', 200), { tool: 'run_command', title: 'sh earlier-build.sh' });
    assert.equal(await run('openOutput', outputId), true);
    const tab = new InspectorView(outputId);
    await tab.ready();
    assert.equal(await tab.probe<number>('count', '.earlier-session'), 0, 'no banner while its session is current');

    const next = await run<string>('newSession');
    assert.ok(next && next !== earlier);
    await tab.waitFor('.earlier-session');
    const banner = await tab.text('.earlier-session');
    if (vscode.env.language === 'en') assert.match(banner, /^From an earlier session \(.+\) — read-only/);
    assert.ok(banner.includes('sh earlier-build.sh'), `the banner names the session by its first command: ${banner}`);
    assert.ok(banner.includes(new Date().getFullYear().toString()), `… and when it started: ${banner}`);
    assert.equal(await tab.probe<number>('count', '.banner.error'), 0, 'no error: the output still exists in its session');
    const lines = await tab.renderedLines('page');
    assert.equal(lines[0]?.text, 'earlier line 1', 'the copy still pages');
    await tab.screenshot('inspector-earlier-session.png', '#app');

    await tab.click('.earlier-session button');
    await waitFor('the earlier session to be current again', async () => (await api.sessionId()) === earlier);
    await tab.waitFor('.earlier-session', 'detached');
    assert.equal((await api.read(outputId, 0, 16)).text, 'earlier line 1\ne', 'its outputs resolve again');
  });

  it('an open tab of a deleted session says that its session was deleted and what to do', async () => {
    await run('newSession');
    const { outputId } = await api.retain(numbered('doomed', 20), { tool: 'run_command', title: 'sh doomed.sh' });
    assert.equal(await run('openOutput', outputId), true);
    const tab = new InspectorView(outputId);
    await tab.ready();
    await run('deleteSession', { confirm: false });
    await tab.waitFor('.banner.error[data-code]');
    const message = await tab.text('.banner.error[data-code]');
    if (vscode.env.language === 'en') {
      assert.match(message, /was deleted/);
      assert.match(message, /run the command again/i);
    }
    assert.ok(message.includes('sh doomed.sh'), `the deleted session is named as a person knew it: ${message}`);
    assert.equal(await tab.probe<number>('count', '.earlier-session'), 0);
  });

  it('the session picker names each session by when it started, its first command, its outputs and size; the ID is the detail', async () => {
    await run('newSession');
    const id = await api.sessionId();
    await api.retain('first output\n', { tool: 'run_command', title: 'npm run picker-first-command' });
    await api.retain('second output\n', { tool: 'run_command', title: 'npm run picker-second' });
    const picking = run('switchSession');
    try {
      const row = `.quick-input-widget .quick-input-list .monaco-list-row:has-text("${id}")`;
      await workbench.waitFor(row);
      const text = await workbench.text(row);
      assert.ok(text.includes('npm run picker-first-command'), `the first command names it: ${text}`);
      assert.ok(!text.includes('picker-second'), `only the first command: ${text}`);
      assert.ok(text.includes(new Date().getFullYear().toString()), `when it started: ${text}`);
      if (vscode.env.language === 'en') assert.match(text, /2 outputs/);
      assert.match(text, /\d+ B\b/, `its size: ${text}`);
      await workbenchScreenshot('session-picker.png');
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    }
    assert.equal(await picking, undefined, 'nothing picked, nothing switched');
    assert.equal(await api.sessionId(), id);
  });

  it('New Session says which session started by its name, as the picker names it, never by its ID (issue 40 §5)', async () => {
    await vscode.commands.executeCommand('notifications.clearAll');
    const started = await run<string>('newSession');
    assert.ok(started);
    await vscode.commands.executeCommand('notifications.showList');
    const told = '.notifications-center .notification-list-item:has-text("Tool Output Recall")';
    await workbench.waitFor(told);
    const message = await workbench.text(told);
    await vscode.commands.executeCommand('notifications.hideList');
    assert.ok(!message.includes(started), `the message names the session as a person knows it, not its ID: ${message}`);
    const picking = run('switchSession');
    try {
      const row = `.quick-input-widget .quick-input-list .monaco-list-row:has-text("${started}")`;
      await workbench.waitFor(row);
      // The picker's row names the session in its label: the message carries that same name.
      const name = (await workbench.text(`${row} .label-name`)).trim();
      assert.ok(name.length > 0 && message.includes(name), `the picker's name "${name}" in: ${message}`);
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    }
    await picking;
  });

  it('Fork Session is told apart from New Session: its message and its name in the picker say which session it was forked from', async () => {
    await run('newSession');
    const parent = await api.sessionId();
    await api.retain('parent output\n', { tool: 'run_command', title: 'sh parent-of-the-fork.sh' });
    await vscode.commands.executeCommand('notifications.clearAll');
    const fork = await run<string>('forkSession');
    assert.ok(fork && fork !== parent);
    await vscode.commands.executeCommand('notifications.showList');
    const told = '.notifications-center .notification-list-item:has-text("sh parent-of-the-fork.sh")';
    await workbench.waitFor(told);
    const message = await workbench.text(told);
    if (vscode.env.language === 'en') assert.match(message, /started a fork of the session .+ · sh parent-of-the-fork\.sh/);
    assert.ok(!message.includes(fork), `the message names the parent as a person knows it, not the fork's ID: ${message}`);
    await vscode.commands.executeCommand('notifications.hideList');

    const picking = run('switchSession');
    try {
      const row = (id: string) => `.quick-input-widget .quick-input-list .monaco-list-row:has-text("${id}")`;
      await workbench.waitFor(row(fork));
      const forkRow = await workbench.text(row(fork));
      assert.ok(forkRow.includes('sh parent-of-the-fork.sh'), `the fork's row names its parent by its first command: ${forkRow}`);
      if (vscode.env.language === 'en') assert.match(forkRow, /fork of /);
      const parentRow = await workbench.text(row(parent));
      assert.ok(!/fork of /.test(parentRow), `the parent is no fork: ${parentRow}`);
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    }
    assert.equal(await picking, undefined);
  });

  it('Delete Session asks first, naming the session as a person knows it and saying that a new session starts', async () => {
    await run('newSession');
    const id = await api.sessionId();
    await api.retain('kept\n', { tool: 'run_command', title: 'sh kept-by-cancel.sh' });
    // The harness runs the workbench with its smoke-test driver, whose dialog service refuses to show a
    // modal and fails it with the dialog's message: the command reports that (to its log) and deletes nothing.
    const log = extensionLog();
    const from = fs.statSync(log).size;
    assert.equal(await run('deleteSession'), undefined, 'not confirmed: nothing deleted');
    assert.equal(await api.sessionId(), id);
    let asked = '';
    await waitFor('the confirmation in the log', () => {
      asked =
        fs
          .readFileSync(log)
          .subarray(from)
          .toString('utf8')
          .split('\n')
          .find((line) => line.includes('Delete the session')) ?? '';
      return asked !== '' || vscode.env.language !== 'en';
    });
    if (vscode.env.language !== 'en') return;
    assert.ok(asked.includes('sh kept-by-cancel.sh'), `the session is named by its first command: ${asked}`);
    assert.ok(!asked.includes(id), `… not by its ID: ${asked}`);
    assert.match(asked, /A new, empty session starts and becomes the current one\./);
  });

  it('after switching back to a session, the side view shows its output and the tree lists its outputs', async () => {
    await run('newSession');
    const home = await api.sessionId();
    const { outputId } = await api.retain(numbered('home', 50), { tool: 'run_command', title: 'sh home.sh' });
    assert.equal(await run('showOutputInView', outputId), true);
    const shown = async (): Promise<boolean> => {
      const s = await viewState();
      return s.outputId === outputId && s.placeholder === undefined && s.described?.outputId === outputId && s.page !== undefined;
    };
    await waitFor('the output in the side view', shown);

    await run('newSession');
    await run('switchSession', home);
    assert.equal(await api.sessionId(), home);
    await waitFor('the side view to show the output again', async () => {
      const tree = await treeItems();
      return (await shown()) && tree.some((item) => item.id === outputId);
    });
    const side = new InspectorView(outputId, 'view');
    await side.ready();
    await side.waitFor('.earlier-session', 'detached');
    assert.doesNotMatch((await viewState()).placeholder ?? '', /no longer in this session/);
    // The tree's header names the session it lists, as the picker does.
    await vscode.commands.executeCommand('toolOutputRecall.outputs.focus');
    await workbench.waitFor('.pane-header .description:has-text("sh home.sh")', 'attached');
    const header = await workbench.text('.pane-header .description:has-text("sh home.sh")');
    assert.ok(header.includes(new Date().getFullYear().toString()), `the header says when the session started: ${header}`);
    assert.ok(!header.includes(home), `the header names the session, not its ID: ${header}`);
  });
});
