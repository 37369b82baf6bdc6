/**
 * The MCP surface: a low-level SDK `Server` with `tools/list` and `tools/call` only. Low-level on
 * purpose: `McpServer.registerTool` validates inputs itself (answering with its own wording) and
 * wants schema objects; here the manifest's JSON Schemas are listed as they are and every failure
 * is an `isError` result with the engine's message. Results are text blocks of at most 8,000 bytes
 * and never `structuredContent` (Claude Code and Codex show only that when it is present).
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  SUPPORTED_PROTOCOL_VERSIONS,
  Server,
  type Implementation,
  type McpServerFactory,
} from '@modelcontextprotocol/server';
import { PACKAGE_VERSION } from '../core/manifest';
import { READ_TOOL_OUTPUT_TOOL, RUN_COMMAND_TOOL, SEARCH_TOOL_OUTPUT_TOOL } from '../core/toolNames';
import { splitIntoParts, unknownToolText } from '../core/tools/parts';
import { clientOfRequest, previewBytesFor, previewLinesFor } from './clients';
import type { HandshakeData } from './handshake';
import { listTools, type AgentTools } from './tools';
import { VSCODE_NOTE, isVsCodeClient } from './vscodeClient';

export const SERVER_NAME = 'tool-output-recall';
const SERVER_INFO = { name: SERVER_NAME, title: 'Tool Output Recall', version: PACKAGE_VERSION };
const CAPABILITIES = { tools: { listChanged: false } };
/** The 2026-era revision the SDK serves over stdio (its `server/discover` lists it; test/unit/mcpHandshake.test.ts checks). */
const MODERN_VERSIONS = ['2026-07-28'];

/** What clients put in the model's instructions about this server. */
const INSTRUCTIONS =
  `Tool Output Recall keeps the whole output of large tool results. ${RUN_COMMAND_TOOL} shows a head+tail preview and retains the rest under an outputId; ` +
  `use ${SEARCH_TOOL_OUTPUT_TOOL} and ${READ_TOOL_OUTPUT_TOOL} with that outputId to find what the preview omits instead of re-running anything.`;

/**
 * A fresh `Server` per serving unit (the SDK asks for one per stdio connection and per stateless
 * HTTP request); they all share the process's one session through `tools`. `previewBytes` is the
 * configured preview size: when it is the default, made smaller per call for a client that would cut it (clients.ts).
 */
export function serverFactory(
  tools: AgentTools,
  previewBytes: { bytes: number; set: boolean },
  onClient?: (client: Implementation) => void,
  /** No tools for anyone: started by VS Code's Copilot harness beside the extension's own tools (harness.ts). */
  offersNone = false,
): McpServerFactory {
  const noTools = (client: Implementation | undefined) => offersNone || isVsCodeClient(client?.name);
  return () => {
    const server = new Server(SERVER_INFO, { capabilities: CAPABILITIES, instructions: INSTRUCTIONS });
    // Who connected (Claude Code, Codex, Cursor…), for the session's agent record (sessionAgent.ts):
    // from `initialize`, or from the request itself where the client never initialized this Server.
    server.oninitialized = () => {
      const client = server.getClientVersion();
      if (client) onClient?.(client);
    };
    const clientOf = (params: unknown, envelope: unknown) => {
      const client = clientOfRequest(server.getClientVersion(), envelope, params);
      if (client) onClient?.(client);
      return client;
    };
    server.setRequestHandler('tools/list', (request, ctx) => {
      const client = clientOf(request.params, ctx.mcpReq.envelope);
      if (noTools(client)) return { tools: [] };
      // A client lists the tools for its model: the search across outputs gets ready before the model's first call
      // (an agent's new session is when ids are lost; its first call may be that search). About 35 MiB while warm.
      tools.warm();
      return { tools: listTools() };
    });
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const { name, arguments: input } = request.params;
      // An unknown tool is a protocol error (the spec's "Unknown tools"), not a tool result.
      if (!tools.has(name)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, unknownToolText(name, tools.names()));
      const client = clientOf(request.params, ctx.mcpReq.envelope);
      if (noTools(client)) return { content: [{ type: 'text' as const, text: VSCODE_NOTE }], isError: true };
      // Its previews sized for what the client keeps: bytes, and lines for a client that cuts by lines.
      const run = await tools.call(name, input ?? {}, ctx.mcpReq.signal, {
        previewBytes: previewBytesFor(client, previewBytes),
        previewLines: previewLinesFor(client),
      });
      return {
        content: splitIntoParts(run.text).map((text) => ({ type: 'text' as const, text })),
        ...(run.isError ? { isError: true } : {}),
      };
    });
    return server;
  };
}

/** What the entry answers the handshake with while this server loads (handshake.ts; scripts/build.mjs writes it to dist/handshake.json). */
export function handshakeData(): HandshakeData {
  return {
    serverInfo: SERVER_INFO,
    instructions: INSTRUCTIONS,
    capabilities: CAPABILITIES,
    tools: listTools(),
    legacyVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
    modernVersions: MODERN_VERSIONS,
  };
}
