// A minimal MCP server over stdio for measuring a client's cut: one tool, `emit`, returns one text block
// of exactly `bytes` UTF-8 bytes made of `char` (one character repeated; a multi-byte one tells bytes
// from characters). It answers both handshakes (2026-07-28's server/discover, older initialize) in the
// shape dist/mcp.js uses, so a client treats it like ours. Run by the client from its MCP config.
import { createInterface } from 'node:readline';
import { probeText as text } from './script.mjs';

const TOOL = {
  name: 'emit',
  description: 'Returns a text of exactly `bytes` UTF-8 bytes made of `char` repeated.',
  inputSchema: {
    type: 'object',
    properties: { bytes: { type: 'integer', minimum: 1 }, char: { type: 'string' } },
    required: ['bytes'],
  },
};
const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);

createInterface({ input: process.stdin }).on('line', (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    return;
  }
  if (msg.id === undefined) return; // notifications
  const requested = msg.params?._meta?.['io.modelcontextprotocol/protocolVersion'] ?? msg.params?.protocolVersion;
  const serverInfo = { name: 'size-probe', version: '1.0.0' };
  if (msg.method === 'server/discover')
    return send({
      id: msg.id,
      result: {
        supportedVersions: ['2026-07-28'],
        capabilities: { tools: {} },
        _meta: { 'io.modelcontextprotocol/serverInfo': serverInfo },
      },
    });
  if (msg.method === 'initialize')
    return send({ id: msg.id, result: { protocolVersion: requested ?? '2025-11-25', capabilities: { tools: {} }, serverInfo } });
  if (msg.method === 'tools/list') return send({ id: msg.id, result: { tools: [TOOL] } });
  if (msg.method === 'tools/call' && msg.params?.name === 'emit') {
    const { bytes, char } = msg.params.arguments ?? {};
    return send({
      id: msg.id,
      result: { content: [{ type: 'text', text: text(Number(bytes), typeof char === 'string' && char ? char : 'a') }] },
    });
  }
  if (msg.method === 'ping') return send({ id: msg.id, result: {} });
  send({ id: msg.id, error: { code: -32601, message: `no method ${msg.method}` } });
});
