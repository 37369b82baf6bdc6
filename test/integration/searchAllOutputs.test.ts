// Search All Outputs in a real host (issue 38 §4): outputs retained in an earlier session of this
// window, in an agent's session (a live MCP server, as Claude Code starts it) and in the current
// session are found by one search, shown in the Search Results tree newest output first (output →
// hits, the agent's output named, the match highlighted); a hit opens the inspector at its byte;
// Match Case and Use Regular Expression change what is found, in the command's argument and in its
// input box; a long search is cancelled between pages. The tree is read through the
// `_toolOutputRecall.searchResultsItems` diagnostic command, the inspector and the input box through
// the runner's driver (helpers/webview.ts).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { defaultStoreDir } from '../../src/core/agentStore';
import type { SearchResultsSnapshot, SearchState } from '../../src/extension/inspector/searchAllOutputs';
import type { ResultItemSnapshot } from '../../src/extension/inspector/searchResultsTree';
import { EXTENSION_ID, recallApi, scaled, skipBecause, waitFor, workspaceDir } from './helpers/host';
import { InspectorView } from './helpers/inspectorView';
import { StdioMcp } from './helpers/stdioMcp';
import { hasDriver, Webview, workbenchScreenshot } from './helpers/webview';
import { testLog } from './log';

const run = <T = unknown>(command: string, ...args: unknown[]) => vscode.commands.executeCommand<T>(`toolOutputRecall.${command}`, ...args);
const search = (query: { pattern: string; regex?: boolean; caseSensitive?: boolean; pageMatches?: number }) =>
  run<SearchState>('searchAllOutputs', query);
const results = () => vscode.commands.executeCommand<SearchResultsSnapshot>('_toolOutputRecall.searchResultsItems');

/** The output groups of the tree (rows with children), and the rows that say something (no output). */
const groupsOf = (items: ResultItemSnapshot[]) => items.filter((item) => item.children !== undefined);
const messagesOf = (items: ResultItemSnapshot[]) => items.filter((item) => item.contextValue === 'searchMessage');
/** The text a hit row highlights. */
const highlighted = (item: ResultItemSnapshot): string | undefined =>
  item.highlights?.map(([from, to]) => item.label.slice(from, to)).join('|');
const outputOf = (group: ResultItemSnapshot): string => group.id!.split(':').pop()!;

/** `promise`, or a failure naming `what` once a deadline (generous, ×TEST_TIME_SCALE) passes. */
async function settled<T>(promise: Thenable<T>, what: string, timeoutMs = 30_000): Promise<T> {
  const limitMs = scaled(timeoutMs);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new assert.AssertionError({ message: `timed out after ${limitMs} ms waiting for ${what}` })), limitMs);
  });
  try {
    return await Promise.race([Promise.resolve(promise), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

const outputIdIn = (text: string): string => {
  const match = /outputId "(out_[0-9a-f]{24})"/.exec(text);
  assert.ok(match, `no outputId in:\n${text.slice(0, 600)}`);
  return match[1];
};

describe('Search All Outputs', function () {
  this.timeout(180_000);
  // Unique to this run: the workspace's sessions hold other suites' outputs.
  const token = `sao${Date.now().toString(36)}`;
  const filler = Array.from({ length: 2000 }, (_, i) => `compiling unit ${i + 1}`).join('\n');
  let server: StdioMcp;
  let storeDir: string;
  let earlierSession: string;
  let earlier: string;
  let agentOutput: string;
  let newest: string;

  before(async () => {
    const api = await recallApi();
    // An earlier session of this window: a failing test run, its lines past the first page of the copy.
    earlierSession = await run<string>('newSession');
    ({ outputId: earlier } = await api.retain(`${filler}\nERROR ${token}-alpha: total is undefined\nwarning: ${token}-ALPHA deprecated\n`, {
      tool: 'run_command',
      title: 'search test: npm test',
    }));
    // An agent's session: its MCP server runs a command.
    const workspace = workspaceDir();
    storeDir = defaultStoreDir(fs.realpathSync(workspace));
    const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
    server = new StdioMcp(path.join(ext.extensionPath, 'dist', 'mcp.js'), ['--workspace', workspace]);
    await server.initialize('claude-code');
    agentOutput = outputIdIn(await server.call('run_command', { command: `seq 1 3000 | sed "s/^/agent ${token}-beta line /"` }));
    // This window's current session, the newest output.
    await run('newSession');
    ({ outputId: newest } = await api.retain(`${token}-gamma ready\n`, { tool: 'run_command', title: 'search test: serve' }));
  });

  after(async () => {
    if (server?.child.exitCode === null) await server.close();
    await run('clearSearchResults');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(storeDir, { recursive: true, force: true });
  });

  it('finds the text in every session: output → hits, newest output first, the agent and the earlier session named', async () => {
    const state = await search({ pattern: token });
    assert.equal(state.running, false);
    assert.equal(state.complete, true, JSON.stringify(state));
    assert.equal(state.cancelled, false);
    assert.equal(state.hits, 1 + 50 + 2, '50 hits of the agent output (at most 50 an output), 2 + 1 of ours');
    assert.ok(state.searchedOutputs >= 3 && state.searchedOutputs === state.outputsInScope, JSON.stringify(state));

    const { items } = await results();
    const groups = groupsOf(items);
    assert.deepEqual(groups.map(outputOf), [newest, agentOutput, earlier], 'newest output first');
    const [current, agent, old] = groups;

    assert.equal(current.label, 'search test: serve');
    assert.equal(current.contextValue, 'searchOutput');
    assert.match(current.description, /^1 match · [^·]+$/, 'the current session is not named');
    assert.deepEqual(
      current.children!.map((hit) => [hit.label, highlighted(hit)]),
      [[`1: ${token}-gamma ready`, token]],
    );

    assert.equal(agent.contextValue, 'searchAgentOutput');
    assert.match(agent.label, /^seq 1 3000/);
    assert.match(agent.description, /^50\+ matches · Claude Code · /);
    // The tooltip is markdown: its text escaped (spaces as &nbsp;, parentheses with backslashes).
    const tooltip = (agent.tooltip ?? '').replace(/&nbsp;/g, ' ').replace(/\\(.)/g, '$1');
    assert.match(tooltip, /Claude Code's session s\d{8}-[0-9a-f]+ \(read-only\)/);
    assert.equal(agent.children!.length, 51, '50 hits, then the row that opens the output for more');
    assert.equal(agent.children![0].label, `1: agent ${token}-beta line 1`);
    assert.equal(agent.children!.at(-1)!.contextValue, 'searchMore');

    assert.equal(old.contextValue, 'searchOutput');
    assert.match(old.description, /^2 matches · earlier session · /);
    assert.deepEqual(
      old.children!.map((hit) => [hit.label, highlighted(hit)]),
      [
        [`2001: ERROR ${token}-alpha: total is undefined`, token],
        [`2002: warning: ${token}-ALPHA deprecated`, token],
      ],
    );
    // Every session was read; a row says how many copies searched are incomplete (other suites leave some).
    assert.deepEqual(state.unreadable, []);
    assert.equal(messagesOf(items).length, state.incompleteSearched > 0 ? 1 : 0, JSON.stringify(messagesOf(items)));
    if (hasDriver()) testLog(`    screenshot: ${await workbenchScreenshot('search-all-outputs.png')}`);
  });

  it('a hit opens the inspector at its byte, in the session that holds it (an earlier one, an agent’s)', async function () {
    if (!hasDriver()) skipBecause(this, "the inspector is read through scripts/host/run.mjs's driver, which this runner does not provide");
    await search({ pattern: token });
    const [, agent, old] = groupsOf((await results()).items);
    for (const [outputId, hit, sessionId] of [
      [earlier, old.children![1], earlierSession],
      [agentOutput, agent.children![9], undefined],
    ] as const) {
      const { command, arguments: args } = hit.command!;
      assert.equal(command, 'toolOutputRecall.openOutput');
      const [id, options] = args as [string, { offset: number; sessionId?: string }];
      assert.equal(id, outputId);
      assert.equal(options.sessionId, sessionId, "this window's session by its ID; an agent's is found by the output");
      assert.equal(await vscode.commands.executeCommand(command, ...args), true);
      const view = new InspectorView(outputId);
      await view.ready();
      let shown = await view.page();
      await waitFor(
        `the inspector of ${outputId} at byte ${options.offset}`,
        async () => {
          shown = await view.page();
          return shown.offset <= options.offset && options.offset < shown.nextOffset;
        },
        20_000,
        100,
      );
      assert.ok(shown.offset > 0 || outputId === agentOutput, `a page past the first (${JSON.stringify(shown)})`);
      const line = Number(/^(\d+):/.exec(hit.label)![1]);
      assert.ok(shown.firstLine <= line && line <= shown.lastLine, `line ${line} is on the page shown ${JSON.stringify(shown)}`);
    }
  });

  it('Match Case and Use Regular Expression change what is found; a miss and a bad pattern say so', async () => {
    const lines = async () => groupsOf((await results()).items).flatMap((group) => group.children!.map((hit) => hit.label));
    assert.equal((await search({ pattern: `${token}-ALPHA` })).hits, 2, 'any case');
    assert.equal((await search({ pattern: `${token}-ALPHA`, caseSensitive: true })).hits, 1);
    assert.deepEqual(await lines(), [`2002: warning: ${token}-ALPHA deprecated`]);

    const pattern = `${token}-(alpha|gamma)`;
    const plain = await search({ pattern });
    assert.equal(plain.hits, 0, 'as plain text, nothing has the parentheses');
    const [miss] = messagesOf((await results()).items);
    if (vscode.env.language === 'en') assert.equal(miss.label, `No match in ${plain.searchedOutputs} outputs.`);

    assert.equal((await search({ pattern, regex: true })).hits, 3);
    const { items } = await results();
    assert.deepEqual(groupsOf(items).map(outputOf), [newest, earlier]);
    assert.deepEqual(
      groupsOf(items).flatMap((group) => group.children!.map(highlighted)),
      [`${token}-gamma`, `${token}-alpha`, `${token}-ALPHA`],
      'the whole match highlighted',
    );
    assert.equal((await search({ pattern, regex: true, caseSensitive: true })).hits, 2);

    const bad = await search({ pattern: `${token}(`, regex: true });
    assert.ok(bad.error, 'an error, said for a person');
    const [error] = messagesOf((await results()).items);
    assert.equal(error.label, bad.error);
  });

  it('says when copies searched are incomplete: a match in their dropped bytes cannot be found', async () => {
    const api = await recallApi();
    const { outputId } = await api.retain(`head ${token}-partial\n`, {
      tool: 'run_command',
      title: 'search test: cut',
      complete: false,
      droppedBytes: 4096,
    });
    const state = await search({ pattern: `${token}-partial` });
    assert.equal(state.hits, 1);
    assert.ok(state.incompleteSearched >= 1, JSON.stringify(state));
    const { items } = await results();
    const [group] = groupsOf(items);
    assert.equal(outputOf(group), outputId);
    assert.match((group.tooltip ?? '').replace(/&nbsp;/g, ' '), /Incomplete copy: 4,096 bytes were dropped/);
    const [row] = messagesOf(items);
    const expected =
      state.incompleteSearched === 1
        ? '1 output searched is an incomplete copy: a match in the bytes it dropped cannot be found.'
        : `${state.incompleteSearched} outputs searched are incomplete copies: a match in the bytes they dropped cannot be found.`;
    if (vscode.env.language === 'en') assert.equal(row?.label, expected);
  });

  it('asks in an input box whose buttons toggle Use Regular Expression and Match Case, and offers the last query again', async function () {
    if (!hasDriver()) skipBecause(this, "the input box is read through scripts/host/run.mjs's driver, which this runner does not provide");
    if (vscode.env.language !== 'en') skipBecause(this, 'the buttons are found by their English tooltips');
    const workbench = new Webview({ selector: '.quick-input-widget' });
    const input = '.quick-input-widget .quick-input-box input';
    const button = (name: string, state: 'on' | 'off') => `.quick-input-widget .action-label[aria-label="${name} (${state})"]`;
    /** Clicks the option's button until it says `state` (the box opens with the options of the last query typed). */
    const turn = async (name: string, state: 'on' | 'off') => {
      if ((await workbench.probe<number>('count', button(name, state))) === 0)
        await workbench.click(button(name, state === 'on' ? 'off' : 'on'));
      await workbench.waitFor(button(name, state));
    };
    const pattern = `${token}-(ALPHA|gamma)`;
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const asked = run<SearchState | undefined>('searchAllOutputs');
    await workbench.waitFor(input);
    await workbench.fill(input, pattern);
    for (const name of ['Use Regular Expression', 'Match Case']) {
      await turn(name, 'off');
      await turn(name, 'on');
    }
    testLog(`    screenshot: ${await workbench.screenshot('search-all-outputs-box.png', '.quick-input-widget')}`);
    await workbench.press(input, 'Enter');
    const state = await settled(asked, 'the search the box asked for');
    assert.deepEqual(state?.query, { pattern, regex: true, caseSensitive: true });
    assert.equal(state.hits, 2, `${token}-ALPHA and ${token}-gamma`);

    const again = run<SearchState | undefined>('searchAllOutputs');
    await workbench.waitFor(button('Match Case', 'on'));
    await workbench.waitFor(button('Use Regular Expression', 'on'));
    assert.equal(await workbench.probe('value', input), pattern, 'the last query, offered again');
    // Closed as Escape closes it (a key press can go to a webview that holds the focus).
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    assert.equal(await settled(again, 'the dismissed box to end the command'), undefined, 'dismissed: no search');
  });

  it('Cancel stops a long search between its pages, and says how far it got', async () => {
    const api = await recallApi();
    const outputs = 80;
    for (let i = 0; i < outputs; i++)
      await api.retain(`step ${i}: ${token}-many\n`, { tool: 'run_command', title: `search test: step ${i}` });
    // One hit a page: each output is a page of its own, so the search takes 80 round trips to the search worker.
    const searching = search({ pattern: `${token}-many`, pageMatches: 1 });
    await waitFor('the first pages', async () => ((await results()).state?.pages ?? 0) >= 2, 30_000, 20);
    assert.equal(await run('cancelSearchAllOutputs'), true);
    const state = await searching;
    assert.equal(state.cancelled, true, JSON.stringify(state));
    assert.equal(state.running, false);
    assert.equal(state.complete, false);
    assert.ok(state.hits >= 2 && state.hits < outputs, `${state.hits} of ${outputs} outputs' hits before it stopped`);
    assert.ok(state.searchedOutputs < state.outputsInScope, JSON.stringify(state));
    const snapshot = await results();
    assert.equal(groupsOf(snapshot.items).length, state.hits, 'what was found before Cancel stays');
    if (vscode.env.language === 'en') assert.match(snapshot.message ?? '', /^Cancelled: \d+ of \d+ outputs searched, \d+ matches\.$/);
    // Nothing runs on: the state holds still (a fixed wait, scaled, to show that nothing happens).
    await new Promise((resolve) => setTimeout(resolve, scaled(500)));
    assert.equal((await results()).state?.hits, state.hits);
  });
});
