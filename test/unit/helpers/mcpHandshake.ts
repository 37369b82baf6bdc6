// JSON-RPC messages of an MCP handshake, shared by test/unit/mcpHandshake.test.ts and
// test/system/mcpHandshakeEntry.test.ts.

export type Message = Record<string, unknown>;

/** The _meta a modern (2026-07-28) client sends with each request. */
export const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'claude-code', version: '2.1.332' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
export const initialize = (id: number, protocolVersion: string): Message => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'codex-mcp-client', version: '0.171.0' } },
});
export const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };
export const request = (id: number | string, method: string, params?: Message): Message => ({
  jsonrpc: '2.0',
  id,
  method,
  ...(params ? { params } : {}),
});
