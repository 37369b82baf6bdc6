import assert from 'node:assert/strict';
import { duplicateInHarness, fromAgentHost, inCopilotHarness, startedThroughLauncher } from '../../src/core/agents/harness';

describe("VS Code's Copilot harness, told apart", () => {
  it("a tool call from an Agent Host session (its session resource's scheme), not from the Local harness's", () => {
    const token = (scheme: string) => ({ sessionResource: { scheme, path: '/s' } });
    for (const scheme of ['agent-host-copilotcli', 'agent-host-claude', 'agent-host-codex'])
      assert.equal(fromAgentHost(token(scheme)), true, scheme);
    for (const value of [token('vscode-chat-session'), token('local'), null, {}, { sessionResource: 'agent-host-copilotcli:/s' }, 42])
      assert.equal(fromAgentHost(value), false, JSON.stringify(value));
  });

  it('a call that names no chat and gives no token budget: how the Agent Host calls a client tool for a request the window did not render', () => {
    assert.equal(fromAgentHost(undefined), true);
    assert.equal(fromAgentHost(undefined, undefined), true);
    // The Local harness sends its request's token and a budget; a caller with a budget sized its own answer.
    assert.equal(fromAgentHost(undefined, 20_000), false);
    assert.equal(fromAgentHost({ sessionResource: { scheme: 'vscode-chat-session', path: '/s' } }, undefined), false);
    assert.equal(fromAgentHost({ sessionResource: { scheme: 'agent-host-copilotcli', path: '/s' } }, 20_000), true);
  });

  it("a server the harness's runtime started (its environment) through the extension's launcher (beside its record)", () => {
    const exists = (file: string) => file === '/home/u/.local/share/recall/tool-output-recall-mcp.json';
    assert.equal(startedThroughLauncher('/home/u/.local/share/recall/tool-output-recall-mcp.js', exists), true);
    assert.equal(startedThroughLauncher('/home/u/other/tool-output-recall-mcp.js', exists), false, 'no record beside it');
    assert.equal(
      startedThroughLauncher('/repo/dist/mcp.js', () => true),
      false,
      'not the launcher',
    );
    assert.equal(startedThroughLauncher(undefined), false);
    assert.equal(inCopilotHarness({ AI_AGENT: 'github_copilot_vscode_agent' }), true);
    assert.equal(inCopilotHarness({ AI_AGENT: 'other' }), false);
    assert.equal(duplicateInHarness({}, '/repo/dist/mcp.js'), false);
  });
});
