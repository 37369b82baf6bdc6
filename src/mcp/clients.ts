/**
 * Who is calling, and what that client does to a tool result before its model sees it. Measured
 * with the real CLIs (test/clients, REPORT.md there): Claude Code 2.1.332 passes a 25 KB result
 * through whole; Codex 0.171.0, with its default tool-output limit, keeps about 12,000 bytes of a
 * result and cuts the rest from the middle, so the omission marker and the tail of a 24 KiB
 * preview never reach its model. The server sizes its previews for such a client, never the
 * other way round: the marker, the outputId and the tail must survive the client's cut.
 */
import { CLIENT_INFO_META_KEY, type Implementation } from '@modelcontextprotocol/server';

/** A client we know by the name in its clientInfo, and the largest result it passes whole. */
interface KnownClient {
  /** The clientInfo name it sends. */
  name: string;
  /** A request `_meta` key only this client sends: it names the client where no handshake did (stateless HTTP). */
  metaKey?: string;
  /** The preview bytes that keep the whole result (header, preview, stderr section) under its cut. */
  previewBytes: number;
}

/**
 * Codex's cut, measured: a 10,940-byte run_command result (preview 10 KiB) passed whole; a 12,946-byte
 * one (preview 12 KiB) lost its middle. 10 KiB leaves the header and the stderr section their room.
 */
const KNOWN: readonly KnownClient[] = [{ name: 'codex-mcp-client', metaKey: 'x-codex-turn-metadata', previewBytes: 10 * 1024 }];

/**
 * The client behind a request: the one that initialized (2025-era), the one a 2026-era request names
 * in its `_meta` envelope (the SDK lifts it into `envelope`; Claude Code, which discovers with
 * `server/discover` and never sends `initialize`, is named this way), or a known client recognised
 * by a `_meta` key of its own (Codex over stateless HTTP, where no handshake reaches the request).
 */
export function clientOfRequest(initialized: Implementation | undefined, envelope: unknown, params: unknown): Implementation | undefined {
  if (initialized) return initialized;
  const info = (envelope as Record<string, unknown> | undefined)?.[CLIENT_INFO_META_KEY] as Partial<Implementation> | undefined;
  if (info && typeof info.name === 'string') return { name: info.name, version: typeof info.version === 'string' ? info.version : '' };
  const meta = (params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  const known =
    meta && typeof meta === 'object' ? KNOWN.find((client) => client.metaKey !== undefined && client.metaKey in meta) : undefined;
  return known ? { name: known.name, version: '' } : undefined;
}

/**
 * The preview size for a client: the configured one, or less where the client would cut it. A size
 * the user set (`set`) is used as given: they may have raised the client's limit (Codex's
 * `tool_output_token_limit`), which this server cannot see.
 */
export function previewBytesFor(client: Implementation | undefined, configured: { bytes: number; set: boolean }): number {
  const known = !configured.set && client && KNOWN.find((candidate) => candidate.name === client.name);
  return known ? Math.min(configured.bytes, known.previewBytes) : configured.bytes;
}
