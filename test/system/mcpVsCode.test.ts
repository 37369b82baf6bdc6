// Issue 29 item 2: whatever file VS Code finds our server in (the `.mcp.json` Connect Other Agents
// writes for Claude Code is read by VS Code's chat too), a VS Code chat never gets our tools twice:
// the server offers VS Code (known by the clientInfo name its MCP client sends, its product's
// nameLong) no tools, in both eras, and the handshake answered before the server loads leaves
// VS Code to the server.
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { EarlyAnswers } from '../../src/mcp/handshake';
import { handshakeData } from '../../src/mcp/server';
import { useTempDirs } from '../unit/helpers/tempDirs';
import { MCP_BUNDLE, ensureBuilt } from '../unit/helpers/mcpServer';

async function toolsFor(name: string, args: string[], era: 'legacy' | 'modern'): Promise<{ tools: string[]; call: string }> {
  const client = new Client({ name, version: '1.139.1' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [MCP_BUNDLE, ...args], stderr: 'ignore' }));
  try {
    const { tools } = await client.listTools();
    const result = await client.callTool({ name: 'read_tool_output', arguments: { outputId: 'out_000000000000000000000000' } });
    const call = (result.content as { text: string }[]).map((block) => block.text).join('');
    return { tools: tools.map((tool) => tool.name), call };
  } finally {
    await client.close();
  }
}

describe('mcp server: VS Code gets no tools from it', function () {
  this.timeout(120_000);
  const dirs = useTempDirs('mcp-vscode');
  before(ensureBuilt);

  for (const [name, era] of [
    ['code-server', 'legacy'],
    ['Visual Studio Code', 'legacy'],
    ['Visual Studio Code - Insiders', 'modern'],
  ] as const) {
    it(`${name} (${era} era): tools/list is empty and a call says why; another client gets every tool`, async () => {
      const args = ['--workspace', dirs.make(), '--store', dirs.make()];
      const vscode = await toolsFor(name, args, era);
      assert.deepEqual(vscode.tools, []);
      assert.match(vscode.call, /VS Code runs the Tool Output Recall extension’s own tools; this MCP server offers none to VS Code/);
      const other = await toolsFor('claude-code', ['--workspace', dirs.make(), '--store', dirs.make()], era);
      assert.ok(other.tools.includes('read_tool_output'), other.tools.join());
    });
  }

  it('the handshake answered early leaves VS Code to the server, in both eras', () => {
    const legacy = new EarlyAnswers(handshakeData());
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'Visual Studio Code', version: '1.139.1' } },
    };
    assert.equal(legacy.answer(init), undefined);
    assert.equal(legacy.answer({ jsonrpc: '2.0', id: 2, method: 'tools/list' }), undefined);
    const modern = new EarlyAnswers(handshakeData());
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'code-server', version: '1.139.1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    assert.equal(modern.answer({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta } }), undefined);
  });
});
