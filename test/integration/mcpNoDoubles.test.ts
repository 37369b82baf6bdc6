// Issue 29, item 2: whatever Connect Other Agents writes, a VS Code chat never offers our tools twice.
// In the real host (code-server 4.139.1, VS Code 1.139.1): "Connect Other Agents…" for Claude Code
// writes `.mcp.json` at the workspace root. VS Code reads that file too (its `workspaceDotMcp`
// discovery, contribution `workbench.contrib.mcp.discovery`, on whenever `chat.mcp.access` is not
// "none"; the collection is trusted, so nothing asks). The test then has VS Code start the server from
// it (`workbench.mcp.startServer` '*' with `waitForLiveTools`, which resolves once VS Code holds the
// server's live tool list: what a chat's first message does through `chat.mcp.autostart`), and checks
// - the session the server opened records a VS Code client (its clientInfo name, here code-server),
//   i.e. VS Code did start and talk to it;
// - vscode.lm.tools, after an ordered update of VS Code's tool list, is the list from before Connect:
//   our five tools once each and nothing from the MCP server;
// - a chat request (@recall's handler against the scripted model of test/fixtures/test-model-extension)
//   sends the model each of our tools exactly once. (@recall builds its list from vscode.lm.tools; VS
//   Code's own agent mode takes the same tools service's list, but it needs Copilot Chat, which the
//   offline host does not have, so no test submits an agent-mode request.)
// A build whose server offers tools to VS Code fails here: its tools appear beside ours (checked with
// src/mcp/vscodeClient.ts's isVsCodeClient returning false).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { defaultStoreDir } from '../../src/core/agentStore';
import type { AgentSessionSummary } from '../../src/extension/agents/agentSessions';
import type { ConnectResult } from '../../src/extension/agents/connect';
import type { TreeItemSnapshot } from '../../src/extension/inspector/outputsTree';
import { recallApi, skipBecause, waitFor, workspaceDir } from './helpers/host';
import { testLog } from './log';
import { chatRequest, participantOnApi } from './helpers/chat';
import { hasDriver, workbenchScreenshot } from './helpers/webview';

const pkg = require('../../package.json') as { contributes: { languageModelTools: { name: string }[] } };
const OUR_TOOLS = pkg.contributes.languageModelTools.map((t) => t.name).sort();

interface TestModel {
  vendor: string;
  requests: { tools: string[] }[];
}
const FIXTURE = { id: 'tor-test.test-model', dir: 'test-model-extension' };

/** VS Code's MCP client names itself by its product's nameLong: code-server here, Visual Studio Code on the desktop. */
const VSCODE_CLIENT = /^(code-server|Visual Studio Code|Code - OSS|VSCodium)\b/;

const toolNames = (): string[] => vscode.lm.tools.map((t) => t.name).sort();
/** Every tool that is one of ours by name: ours as is, or an MCP tool VS Code named after ours (`mcp_<server>_<tool>`). */
const ourNamed = (names: readonly string[]): string[] =>
  names.filter((n) => OUR_TOOLS.some((ours) => n === ours || n.endsWith(`_${ours}`)));

/**
 * Waits for VS Code's next tool-list update to reach this extension host after a change made now.
 * VS Code batches tool changes (a 750 ms scheduler in its tools service) and sends the whole list on
 * each; a change to `chat.extensionTools.enabled` schedules one. Written as its current value and then
 * removed again, nothing changes for the user; the update that follows carries every tool registered
 * before it, MCP tools included. The API has no event for it (1.139.1), but each update gives every
 * tool a new API object (ExtHostLanguageModelTools.$onDidChangeTools), so a new object for one of
 * ours says the update arrived. So what vscode.lm.tools holds afterwards is no race with the server.
 */
async function toolListUpdate(): Promise<void> {
  const probe = () => vscode.lm.tools.find((t) => t.name === OUR_TOOLS[0]);
  const old = probe();
  assert.ok(old, `${OUR_TOOLS[0]} is in vscode.lm.tools`);
  const config = vscode.workspace.getConfiguration('chat');
  const value = config.get<boolean>('extensionTools.enabled') ?? true;
  await config.update('extensionTools.enabled', value, vscode.ConfigurationTarget.Global);
  await config.update('extensionTools.enabled', undefined, vscode.ConfigurationTarget.Global);
  await waitFor('VS Code to send its tool list after a chat.extensionTools.enabled change', () => probe() !== old, 30_000);
}

/** The pids of running processes whose command line names `script` (the servers VS Code started from it). */
function serversOf(script: string): number[] {
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(script);
      } catch {
        return false;
      }
    })
    .map(Number);
}

interface AgentRecord {
  file: string;
  clients: { name: string; version?: string }[];
}

function agentRecords(storeDir: string): AgentRecord[] {
  let names: string[];
  try {
    names = fs.readdirSync(storeDir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.endsWith('.sqlite.agent.json'))
    .flatMap((n) => {
      try {
        const record = JSON.parse(fs.readFileSync(path.join(storeDir, n), 'utf8')) as { clients?: AgentRecord['clients'] };
        return [{ file: n, clients: record.clients ?? [] }];
      } catch {
        return []; // being written
      }
    });
}

describe('mcp no doubles: after Connect Other Agents, VS Code starts the server from .mcp.json and its chat gets each of our tools once', function () {
  this.timeout(240_000);
  let workspace: string;
  let storeDir: string;
  let launcher: string | undefined;

  const clean = () => {
    fs.rmSync(path.join(workspace, '.mcp.json'), { force: true });
    fs.rmSync(path.join(workspace, '.claude'), { recursive: true, force: true });
  };

  before(async () => {
    await recallApi();
    workspace = fs.realpathSync(workspaceDir());
    storeDir = defaultStoreDir(workspace, process.env);
    clean();
  });
  after(async () => {
    if (!workspace) return;
    // Gone from the folder, VS Code's discovery drops the collection and stops the server it started.
    clean();
    if (launcher) {
      await waitFor('VS Code to stop the server once .mcp.json is gone', () => serversOf(launcher!).length === 0, 30_000, 200);
    }
  });

  it('the server VS Code starts from the .mcp.json Connect wrote records a VS Code client and adds no tool to vscode.lm.tools or a chat request', async function () {
    await toolListUpdate();
    const before = toolNames();
    assert.deepEqual(ourNamed(before), OUR_TOOLS, `our tools once each before Connect: ${before.join(', ')}`);

    const result = await vscode.commands.executeCommand<ConnectResult | undefined>('toolOutputRecall.connectAgents', {
      confirm: false,
      agents: ['claude-code'],
    });
    assert.ok(result, 'Connect wrote');
    const mcpJson = JSON.parse(fs.readFileSync(path.join(workspace, '.mcp.json'), 'utf8')) as {
      mcpServers: Record<string, { command: string; args: string[] }>;
    };
    const [name] = Object.keys(mcpJson.mcpServers);
    assert.ok(name, `.mcp.json names a server: ${JSON.stringify(mcpJson)}`);
    testLog(`    .mcp.json: ${JSON.stringify(mcpJson.mcpServers[name])}`);
    launcher = mcpJson.mcpServers[name].args[0];

    // VS Code picks the file up (a watcher, then a 500 ms debounce) and starts what it found. Until
    // then the server list is empty and the command returns at once, so ask until the server ran.
    const vscodeSession = () => agentRecords(storeDir).find((r) => r.clients.some((c) => VSCODE_CLIENT.test(c.name)));
    await waitFor(
      `VS Code to start ${name} from .mcp.json (a session in ${storeDir} naming a VS Code client)`,
      async () => {
        await vscode.commands.executeCommand('workbench.mcp.startServer', '*', { waitForLiveTools: true });
        return vscodeSession() !== undefined;
      },
      90_000,
      500,
    );
    const session = vscodeSession()!;
    testLog(`    VS Code's session ${session.file}: clients ${JSON.stringify(session.clients)}`);
    assert.ok(serversOf(launcher).length > 0, `a server process runs ${launcher}`);
    // That server offered no tools: it makes no session a person sees in Retained Outputs (issue 40, §4).
    const sessionFile = path.join(storeDir, session.file.replace(/\.agent\.json$/, ''));
    const listed = await vscode.commands.executeCommand<AgentSessionSummary[]>('_toolOutputRecall.agentSessions');
    assert.deepEqual(
      listed.filter((s) => s.file === sessionFile).map((s) => `${s.agents.join(', ')} ${s.bytes} B`),
      [],
      `VS Code's own session is not listed: ${JSON.stringify(listed)}`,
    );
    await vscode.commands.executeCommand('toolOutputRecall.outputs.focus');
    const groups = (await vscode.commands.executeCommand<TreeItemSnapshot[]>('_toolOutputRecall.outputsTreeItems')).filter(
      (item) => item.contextValue?.startsWith('agentSession') && VSCODE_CLIENT.test(item.label),
    );
    assert.deepEqual(
      groups.map((g) => `${g.label} ${g.description}`),
      [],
      'no VS Code session group in Retained Outputs',
    );
    if (hasDriver()) testLog(`    screenshot: ${await workbenchScreenshot('mcp-vscode-session-hidden.png')}`);
    // Once more, now that it runs: resolves when VS Code holds the server's live tool list.
    await vscode.commands.executeCommand('workbench.mcp.startServer', '*', { waitForLiveTools: true });

    await toolListUpdate();
    const after = toolNames();
    testLog(`    vscode.lm.tools: ${after.length} (${ourNamed(after).join(', ')})`);
    const checkLmTools = () => {
      assert.deepEqual(
        ourNamed(after),
        OUR_TOOLS,
        `each of our tools once in vscode.lm.tools, none from the MCP server: ${after.join(', ')}`,
      );
      assert.deepEqual(after, before, 'the MCP server added no tool to vscode.lm.tools');
    };

    // A chat request's own tool list: @recall's handler with the scripted model (the model records the tools it is sent).
    const extras = JSON.parse(process.env.TOR_TEST_EXTRA_EXTENSIONS || '[]') as string[];
    const ext = vscode.extensions.getExtension<TestModel>(FIXTURE.id);
    if (!ext || !extras.some((d) => d.endsWith(FIXTURE.dir))) {
      checkLmTools();
      return skipBecause(this, `the scripted test model is not loaded: run with --extra-extension test/fixtures/${FIXTURE.dir}`);
    }
    const testModel = await ext.activate();
    const [model] = await vscode.lm.selectChatModels({ vendor: testModel.vendor });
    assert.ok(model, `no model of vendor ${testModel.vendor}`);
    const participant = await participantOnApi();
    const request = chatRequest('Which tools do you have?', model);
    const stream = { markdown() {}, progress() {}, button() {} } as unknown as vscode.ChatResponseStream;
    const sent = testModel.requests.length;
    await participant.handler(request, { history: [] }, stream, new vscode.CancellationTokenSource().token);
    const requests = testModel.requests.slice(sent);
    assert.ok(requests.length >= 1, 'the chat request reached the model');
    const tools = [...requests[0].tools].sort();
    testLog(`    the chat request's tools: ${tools.length} (${ourNamed(tools).join(', ')})`);
    checkLmTools();
    assert.deepEqual(ourNamed(tools), OUR_TOOLS, `the chat request offers each of our tools once: ${tools.join(', ')}`);
  });
});
