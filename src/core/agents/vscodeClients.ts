/**
 * VS Code as an MCP client, by the name it sends: it names itself by its product's `nameLong`
 * (`clientInfo: {name: nameLong, version}` in its MCP client). The MCP server offers such a client no
 * tools (src/mcp/vscodeClient.ts), so a session whose only clients are VS Code never holds an output
 * of theirs, and the Retained Outputs tree leaves it out (src/extension/agents/agentSessions.ts).
 */
const VSCODE_CLIENT_NAMES = new Set([
  'Visual Studio Code',
  'Visual Studio Code - Insiders',
  'Visual Studio Code - Exploration',
  'code-server',
  'Code - OSS',
  'VSCodium',
  'VSCodium - Insiders',
]);

export const isVsCodeClient = (name: unknown): boolean => typeof name === 'string' && VSCODE_CLIENT_NAMES.has(name);
