// VS Code's Copilot harness starts our MCP server from a root .mcp.json (AI_AGENT=github_copilot_vscode_agent
// in its environment) while it also offers the extension's own tools: a server started there through the
// launcher the extension installs offers no tools, so the harness's model never sees each tool twice in two
// sessions (src/core/agents/harness.ts). Started any other way, or outside the harness, it serves as usual.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { installServer } from '../../src/core/agents/install';
import { PACKAGE_VERSION } from '../../src/core/manifest';
import { MCP_BUNDLE, connectStdio, ensureBuilt } from '../unit/helpers/mcpServer';
import { useTempDirs } from '../unit/helpers/tempDirs';

const HARNESS = { AI_AGENT: 'github_copilot_vscode_agent' };

describe("the MCP server in VS Code's Copilot harness", function () {
  this.timeout(120_000);
  const dirs = useTempDirs('mcp-harness');
  let launcher: string;
  before(async () => {
    await ensureBuilt();
    launcher = (await installServer(path.dirname(MCP_BUNDLE), dirs.make(), PACKAGE_VERSION)).launcher;
  });

  async function toolsSeen(env: Record<string, string>, script?: string, era: 'legacy' | 'modern' = 'legacy') {
    const server = await connectStdio(['--workspace', dirs.make(), '--store', dirs.make()], era, env, script);
    try {
      const listed = (await server.client.listTools()).tools.map((tool) => tool.name);
      const call = await server.client.callTool({ name: 'list_tool_outputs', arguments: {} });
      return { listed, callError: call.isError === true, stderr: server.stderr() };
    } finally {
      await server.close();
    }
  }

  for (const era of ['legacy', 'modern'] as const) {
    it(`started there through the extension's launcher: no tools, and a call says why (${era} handshake)`, async () => {
      const seen = await toolsSeen(HARNESS, launcher, era);
      assert.deepEqual(seen.listed, []);
      assert.equal(seen.callError, true);
      assert.match(seen.stderr, /started by VS Code's Copilot harness/);
    });
  }

  it('started there without the launcher (no extension to offer its tools), or through it outside the harness: every tool', async () => {
    for (const [env, script] of [
      [HARNESS, undefined],
      [{}, launcher],
    ] as const) {
      const seen = await toolsSeen(env, script);
      assert.ok(seen.listed.includes('run_command') && seen.listed.includes('list_tool_outputs'), JSON.stringify(seen.listed));
      assert.equal(seen.callError, false);
    }
  });
});
