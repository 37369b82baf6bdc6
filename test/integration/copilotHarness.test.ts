// A call from VS Code's Copilot harness (its Agent Host) names its chat session by a resource of scheme
// `agent-host-copilotcli` (src/core/agents/harness.ts). That harness saves any result over 8 KiB to a
// temp file behind a short preview, so run_command's result is sized to stay under it, every part in
// it; so is a call that names no chat and gives no budget (how the Agent Host calls a client tool for a
// request the window did not render: copilotHarnessTurn.test.ts); a call from the Local harness keeps the full preview.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RecallStore } from '../../src/core/types';
import { openWorkerStore } from '../../src/core/workers/workerClient';
import { readSettings } from '../../src/extension/config';
import { RecallTool } from '../../src/extension/tools/recallTool';
import { OUTPUT_ID, recallApi, scratchDir, testChannel } from './helpers/host';

const COMMAND =
  'i=1; while [ $i -le 4000 ]; do echo "harness line $i"; if [ $i -eq 2000 ]; then echo "ERROR: quota exceeded in the middle"; fi; i=$((i+1)); done; echo "SUMMARY: 4000 lines"';

describe("VS Code's Copilot harness", function () {
  this.timeout(120_000);
  let dir: string;
  let store: RecallStore & { close(): Promise<void> };
  before(async () => {
    await recallApi();
    dir = scratchDir('copilot-harness');
    // The extension's own tool with a real session store: VS Code answers a call naming a chat session it
    // does not know with "Tool called for unknown chat session", so the Agent Host's call is made here as
    // it reaches the tool (its options), not through vscode.lm.invokeTool.
    const root = vscode.extensions.getExtension('tool-output-recall.tool-output-recall')!.extensionPath;
    store = await openWorkerStore({ dir, workerPath: path.join(root, 'dist', 'storeWorker.js') });
  });
  after(async () => {
    await store?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function runCommandFrom(
    sessionResource: vscode.Uri | undefined,
    tokenizationOptions?: vscode.LanguageModelToolTokenizationOptions,
  ): Promise<string> {
    const tool = new RecallTool('run_command', {
      store: async () => store,
      settings: readSettings,
      isTrusted: () => true,
      onRetained: () => undefined,
      log: testChannel(),
    });
    // The token is opaque in the API (`never`); at run time it is the session's context object.
    const toolInvocationToken = (sessionResource ? { sessionResource } : undefined) as unknown as vscode.ChatParticipantToolToken;
    const result = await tool.invoke(
      { input: { command: COMMAND }, toolInvocationToken, tokenizationOptions },
      new vscode.CancellationTokenSource().token,
    );
    return result.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join('');
  }

  it('gets a run_command result its 8 KiB limit keeps whole: the outputId, the marker, the error from the middle and the tail', async () => {
    const text = await runCommandFrom(vscode.Uri.from({ scheme: 'agent-host-copilotcli', path: '/session-1' }));
    const bytes = Buffer.byteLength(text);
    assert.ok(bytes <= 8 * 1024, `the result is ${bytes} bytes`);
    assert.match(text, OUTPUT_ID);
    assert.match(text, /omitted/i, 'the omission marker');
    assert.match(text, /ERROR: quota exceeded in the middle/, 'the notable line of the omitted part');
    assert.match(text, /SUMMARY: 4000 lines/, 'the last line');
  });

  it('a call from the Local harness (its chat session, a token budget) keeps the full preview', async () => {
    const text = await runCommandFrom(vscode.Uri.from({ scheme: 'vscode-chat-session', path: '/session-2' }), {
      tokenBudget: 100_000,
      countTokens: async (value) => Math.ceil((typeof value === 'string' ? value.length : 0) / 4),
    });
    assert.ok(Buffer.byteLength(text) > 16 * 1024, `the result is ${Buffer.byteLength(text)} bytes`);
  });

  it("a call naming no chat and no budget, as the Agent Host calls a client tool for a request it did not render, is sized for the harness's 8 KiB", async () => {
    const text = await runCommandFrom(undefined);
    assert.ok(Buffer.byteLength(text) <= 8 * 1024, `the result is ${Buffer.byteLength(text)} bytes`);
    assert.match(text, /ERROR: quota exceeded in the middle/, 'the notable line of the omitted part');
    assert.match(text, /SUMMARY: 4000 lines/, 'the last line');
  });
});
