/**
 * The handshake answered before the server is loaded. Loading the server (the MCP SDK's schemas
 * above all) takes longer than Node's own start, and a client gives up on a server that is slow to
 * answer: Codex starts its first turn after `mcp_optional_startup_grace_ms` (1 s), Claude Code
 * without waiting. So the entry (main.ts) answers `initialize`, `server/discover`, `tools/list` and
 * `ping` from this data while the server loads in its child process (front.ts), and drops the
 * server's own answers to those requests. The data is what the server itself answers with: scripts/build.mjs writes
 * dist/handshake.json from `handshakeData()` (serverInfo.ts) of the server bundle, and
 * test/unit/mcpHandshake.test.ts checks every answer here against the server's for the same request.
 *
 * Only requests whose answer is certain are answered: the era of the connection's first message,
 * a version the server speaks, a well-formed envelope. Anything else waits for the server.
 */

import { isVsCodeClient } from './vscodeClient';

export interface HandshakeData {
  serverInfo: { name: string; title: string; version: string };
  instructions: string;
  capabilities: Record<string, unknown>;
  tools: unknown[];
  /** 2025-era protocol versions the server negotiates, the latest first (the SDK's SUPPORTED_PROTOCOL_VERSIONS). */
  legacyVersions: string[];
  /** 2026-era revisions (per-request `_meta` envelope): what `server/discover` lists. */
  modernVersions: string[];
}

/** The `_meta` keys of the 2026-07-28 per-request envelope. */
const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const CLIENT_INFO_KEY = 'io.modelcontextprotocol/clientInfo';
const CLIENT_CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';

interface Request {
  jsonrpc: '2.0';
  id: string | number;
  method: string;
  params?: Record<string, unknown>;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function asRequest(message: unknown): Request | undefined {
  if (!isObject(message) || message.jsonrpc !== '2.0' || typeof message.method !== 'string') return undefined;
  if (typeof message.id !== 'string' && typeof message.id !== 'number') return undefined;
  if (message.params !== undefined && !isObject(message.params)) return undefined;
  return message as unknown as Request;
}

/** The envelope's revision when it is one the server speaks and complete; null without an envelope; undefined when unsure. */
function envelopeOf(params: Record<string, unknown> | undefined, data: HandshakeData): string | null | undefined {
  const meta = params?._meta;
  if (meta === undefined) return null;
  if (!isObject(meta)) return undefined;
  if (!(PROTOCOL_VERSION_KEY in meta)) return null;
  const version = meta[PROTOCOL_VERSION_KEY];
  const client = meta[CLIENT_INFO_KEY];
  const wellFormed =
    typeof version === 'string' &&
    data.modernVersions.includes(version) &&
    isObject(client) &&
    typeof client.name === 'string' &&
    typeof client.version === 'string' &&
    // VS Code gets no tools (vscodeClient.ts): the server answers it.
    !isVsCodeClient(client.name) &&
    isObject(meta[CLIENT_CAPABILITIES_KEY]);
  return wellFormed ? version : undefined;
}

/**
 * Answers the handshake of one connection. `answer(message)` returns the response to write, or
 * undefined when the server must answer (the message is passed on to it either way).
 */
export class EarlyAnswers {
  private era: 'legacy' | 'modern' | undefined;
  private initialized = false;
  /** Set after a message this class does not answer: the server's state may now differ from what it assumes. */
  private stopped = false;

  /** `answering` false: every message is left to the server. */
  constructor(
    private readonly data: HandshakeData,
    answering = true,
  ) {
    this.stopped = !answering;
  }

  answer(message: unknown): object | undefined {
    if (this.stopped) return undefined;
    const request = asRequest(message);
    if (!request) {
      // A notification (`notifications/initialized`) changes nothing answered here; anything else is left to the server.
      const notification = isObject(message) && typeof message.method === 'string' && message.id === undefined;
      return notification && this.era !== undefined ? undefined : this.unsure();
    }
    const envelope = envelopeOf(request.params, this.data);
    if (envelope === undefined) return this.unsure();
    const era = envelope === null ? 'legacy' : 'modern';
    if (this.era !== undefined && this.era !== era) return this.unsure();
    this.era = era;
    const result = era === 'legacy' ? this.legacy(request) : this.modern(request);
    return result && { jsonrpc: '2.0', id: request.id, result };
  }

  /** Leaves the rest of the connection to the server. */
  private unsure(): undefined {
    this.stopped = true;
    return undefined;
  }

  private legacy(request: Request): object | undefined {
    const { data } = this;
    if (request.method === 'initialize') {
      const asked = request.params?.protocolVersion;
      const client = request.params?.clientInfo;
      if (this.initialized || typeof asked !== 'string' || !isObject(client) || !isObject(request.params?.capabilities))
        return this.unsure();
      // VS Code gets no tools (vscodeClient.ts): the rest of its handshake is the server's.
      if (isVsCodeClient(client.name)) return this.unsure();
      this.initialized = true;
      const protocolVersion = data.legacyVersions.includes(asked) ? asked : data.legacyVersions[0];
      return { protocolVersion, capabilities: data.capabilities, serverInfo: data.serverInfo, instructions: data.instructions };
    }
    if (!this.initialized) return this.unsure();
    if (request.method === 'tools/list' && request.params?.cursor === undefined) return { tools: data.tools };
    if (request.method === 'ping') return {};
    return this.unsure();
  }

  private modern(request: Request): object | undefined {
    const { data } = this;
    const common = { resultType: 'complete', ttlMs: 0, cacheScope: 'private', _meta: { [SERVER_INFO_KEY]: data.serverInfo } };
    if (request.method === 'server/discover')
      return { supportedVersions: data.modernVersions, capabilities: data.capabilities, instructions: data.instructions, ...common };
    if (request.method === 'tools/list' && request.params?.cursor === undefined) return { tools: data.tools, ...common };
    return this.unsure();
  }
}
