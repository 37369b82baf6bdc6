/**
 * VS Code as an MCP client of this server. VS Code runs the extension's own language-model tools,
 * and it also starts MCP servers it finds in files other agents read (a root `.mcp.json`, which
 * Connect Other Agents writes for Claude Code, is discovered by VS Code's chat too). Serving our
 * tools there would offer every tool twice under the same names, and outputIds of one copy would
 * not resolve in the other: so a VS Code client (its names: src/core/agents/vscodeClients.ts) gets
 * no tools from this server.
 */
export { isVsCodeClient } from '../core/agents/vscodeClients';

/** What VS Code's chat is told instead of a tool list (the server's log says it too). */
export const VSCODE_NOTE =
  'VS Code runs the Tool Output Recall extension’s own tools; this MCP server offers none to VS Code, so no tool is offered twice.';
