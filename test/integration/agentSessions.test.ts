// Other agents in a real host: a live MCP server process (dist/mcp.js with --workspace the test
// workspace and its default store, reached over stdio as Claude Code would) retains outputs; the
// Retained Outputs tree shows its session (agent, live, size) and outputs; the inspector and the copy
// document open them through the read-only view, Delete is refused, and a new output appears while
// the server runs; the session shows "ended" once it stops. Then "Connect Other Agents…" merges its entry into
// the workspace's .mcp.json beside another server, installs a copy of the server that starts on its
// own, leaves a malformed .cursor/mcp.json alone, and writes nothing when run again.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { defaultStoreDir } from '../../src/core/agentStore';
import type { AgentSessionSummary } from '../../src/extension/agents/agentSessions';
import type { ConnectResult } from '../../src/extension/agents/connect';
import type { TreeItemSnapshot } from '../../src/extension/inspector/outputsTree';
import { EXTENSION_ID, recallApi, waitFor, workspaceDir } from './helpers/host';
import { StdioMcp } from './helpers/stdioMcp';

const pkg = require('../../package.json') as { version: string; contributes: { languageModelTools: { name: string }[] } };

const treeItems = (): Thenable<TreeItemSnapshot[]> =>
  vscode.commands.executeCommand<TreeItemSnapshot[]>('_toolOutputRecall.outputsTreeItems');
const agentSessions = (): Thenable<AgentSessionSummary[]> =>
  vscode.commands.executeCommand<AgentSessionSummary[]>('_toolOutputRecall.agentSessions');
const outputIdIn = (text: string): string => {
  const match = /outputId "(out_[0-9a-f]{24})"/.exec(text);
  assert.ok(match, `no outputId in:\n${text.slice(0, 600)}`);
  return match[1];
};

describe("other agents' sessions", function () {
  this.timeout(120_000);
  let server: StdioMcp;
  let storeDir: string;
  let first: string;
  let group: TreeItemSnapshot | undefined;
  const findGroup = async (): Promise<TreeItemSnapshot | undefined> =>
    (await treeItems()).find((item) => item.contextValue?.startsWith('agentSession') && item.label === 'Claude Code');

  before(async () => {
    await recallApi();
    const workspace = workspaceDir();
    storeDir = defaultStoreDir(fs.realpathSync(workspace));
    const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
    server = new StdioMcp(path.join(ext.extensionPath, 'dist', 'mcp.js'), ['--workspace', workspace]);
    await server.initialize('claude-code');
    first = outputIdIn(await server.call('run_command', { command: 'seq 1 30000 | sed "s/^/agent line /"' }));
  });

  after(async () => {
    if (server.child.exitCode === null) await server.close();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    // The session folder of this run's workspace (unique per run) goes with the run.
    fs.rmSync(storeDir, { recursive: true, force: true });
  });

  it("shows the live server's session as a group: agent, start time, size, live; its outputs read-only", async () => {
    await waitFor(
      'the session in the tree, with its output',
      async () => {
        group = await findGroup();
        return !!group?.children?.some((child) => child.id === first);
      },
      20_000,
      250,
    );
    assert.equal(group!.contextValue, 'agentSession-live');
    assert.match(group!.description, /^started .+ · [\d.]+ (KiB|MiB|B) · live$/);
    const child = group!.children!.find((c) => c.id === first)!;
    assert.equal(child.contextValue, 'agentOutput');
    assert.match(child.label, /seq 1 30000/);
    const [session] = (await agentSessions()).filter((s) => s.agents.includes('Claude Code'));
    assert.ok(session.live && session.file.startsWith(storeDir), JSON.stringify(session));
  });

  // Through the panel, not the side view: the side view suite starts from a view nothing was shown in.
  it('opens its output in the inspector and as a document through the read-only view', async () => {
    assert.equal(await vscode.commands.executeCommand('toolOutputRecall.openOutput', first), true);
    // The panel names its tab after the output once the store that holds it answered.
    await waitFor(
      "the inspector panel's tab named after the agent's command",
      () =>
        vscode.window.tabGroups.all.some((g) =>
          g.tabs.some((tab) => tab.input instanceof vscode.TabInputWebview && tab.label.startsWith('seq 1 30000')),
        ),
      20_000,
      100,
    );
    const expected = Array.from({ length: 30000 }, (_, i) => `agent line ${i + 1}\n`).join('');
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.from({ scheme: 'tool-output-recall', path: `/${first}/copy.log` }));
    assert.equal(doc.getText(), expected, 'the whole copy, as the server retained it');
  });

  it('refuses to delete it (only its server changes the session) and takes no lock', async () => {
    assert.equal(await vscode.commands.executeCommand('toolOutputRecall.deleteOutput', first, { confirm: false }), undefined);
    const group = await findGroup();
    assert.ok(
      group?.children?.some((c) => c.id === first),
      'still there',
    );
    const locks = fs.readdirSync(storeDir).filter((name) => name.endsWith('.lock'));
    assert.equal(locks.length, 1);
    // The server runs as the one child of the process the client started (src/mcp/front.ts): the lock is its.
    const owner = (JSON.parse(fs.readFileSync(path.join(storeDir, locks[0]), 'utf8')) as { pid: number }).pid;
    assert.equal(parentOf(owner), server.child.pid, "the server's lock only");
  });

  it('shows a new output while the server keeps running', async () => {
    const second = outputIdIn(await server.call('run_command', { command: 'seq 1 20000 | sed "s/^/second /"' }));
    await waitFor(
      'the new output in the tree',
      async () => {
        const group = await findGroup();
        return !!group?.children?.some((c) => c.id === second);
      },
      20_000,
      250,
    );
    const children = (await findGroup())!.children!;
    assert.deepEqual(
      children.slice(0, 2).map((c) => c.id),
      [second, first],
      'newest first',
    );
    assert.equal(await vscode.commands.executeCommand('toolOutputRecall.openOutput', second), true);
  });

  it('shows the session as ended once the server stops', async () => {
    assert.equal(await server.close(), 0, server.stderr);
    await waitFor('the group to say ended', async () => (await findGroup())?.contextValue === 'agentSession-ended', 20_000, 250);
    assert.match((await findGroup())!.description, / · ended$/);
  });
});

describe('Connect Other Agents', function () {
  this.timeout(120_000);
  const workspace = (): string => workspaceDir();
  const mcpJson = (): string => path.join(workspace(), '.mcp.json');
  const cursorJson = (): string => path.join(workspace(), '.cursor', 'mcp.json');
  const claudeSettings = (): string => path.join(workspace(), '.claude', 'settings.json');
  const other = { command: 'other-mcp', args: ['--flag'] };

  after(() => {
    fs.rmSync(mcpJson(), { force: true });
    fs.rmSync(path.dirname(cursorJson()), { recursive: true, force: true });
    fs.rmSync(path.dirname(claudeSettings()), { recursive: true, force: true });
  });

  it('adds the server to .mcp.json beside another server, with a stable copy that runs on its own', async () => {
    fs.writeFileSync(mcpJson(), `${JSON.stringify({ mcpServers: { other } }, null, 2)}\n`);
    const result = await vscode.commands.executeCommand<ConnectResult>('toolOutputRecall.connectAgents', {
      confirm: false,
      agents: ['claude-code'],
    });
    assert.ok(result, 'the command returned its result');
    // …and Claude Code's PostToolUse hook for Bash in .claude/settings.json (claudeHook.ts).
    assert.deepEqual(result.files, [
      { file: mcpJson(), agent: 'Claude Code', outcome: 'written', change: 'add' },
      { file: claudeSettings(), agent: 'Claude Code', outcome: 'written', change: 'create' },
    ]);
    const written = JSON.parse(fs.readFileSync(mcpJson(), 'utf8'));
    assert.deepEqual(Object.keys(written.mcpServers), ['other', 'tool-output-recall']);
    assert.deepEqual(written.mcpServers.other, other, 'the other server is untouched');
    assert.deepEqual(written.mcpServers['tool-output-recall'], {
      command: 'node',
      args: [result.launcher, '--workspace', fs.realpathSync(workspace())],
      alwaysLoad: true,
    });
    // The copy lives outside the extension's folder (which an update replaces).
    const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
    assert.ok(!result.launcher.startsWith(ext.extensionPath), result.launcher);
    assert.ok(result.build.startsWith(`${pkg.version}-`));
    // The installed copy is a working server: it starts from the launcher and lists every tool the manifest declares.
    const copy = new StdioMcp(result.launcher, ['--workspace', workspace()]);
    try {
      await copy.initialize('connect-test');
      const { tools } = (await copy.request('tools/list', {})) as { tools: { name: string }[] };
      assert.deepEqual(tools.map((t) => t.name).sort(), pkg.contributes.languageModelTools.map((t) => t.name).sort());
    } finally {
      assert.equal(await copy.close(), 0, copy.stderr);
      fs.rmSync(defaultStoreDir(fs.realpathSync(workspace())), { recursive: true, force: true });
    }
  });

  it('writes nothing when run again, and leaves a malformed file as it is', async () => {
    const before = fs.readFileSync(mcpJson(), 'utf8');
    fs.mkdirSync(path.dirname(cursorJson()), { recursive: true });
    fs.writeFileSync(cursorJson(), '{ "mcpServers": { broken ');
    const result = await vscode.commands.executeCommand<ConnectResult>('toolOutputRecall.connectAgents', {
      confirm: false,
      agents: ['claude-code', 'cursor'],
    });
    assert.equal(result.files[0].outcome, 'unchanged');
    assert.equal(result.files[1].outcome, 'unchanged');
    assert.equal(fs.readFileSync(mcpJson(), 'utf8'), before);
    const cursor = result.files[2];
    assert.equal(cursor.outcome, 'skipped');
    assert.match(cursor.outcome === 'skipped' ? cursor.why : '', /^it is not valid JSON/);
    assert.equal(fs.readFileSync(cursorJson(), 'utf8'), '{ "mcpServers": { broken ', 'not overwritten');
  });

  it('refuses an unknown agent with the names it knows', async () => {
    assert.equal(await vscode.commands.executeCommand('toolOutputRecall.connectAgents', { confirm: false, agents: ['emacs'] }), undefined);
  });
});

/** A process's parent, from Linux's /proc/<pid>/stat (the field after the command's closing parenthesis and state). */
function parentOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}
