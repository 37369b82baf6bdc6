/**
 * Who is calling, and what that client does to a tool result before its model sees it. Measured
 * with the real CLIs (test/clients, REPORT.md there): Claude Code 2.1.332 passes a 25 KB result
 * through whole; Codex 0.171.0, with its default tool-output limit, keeps about 12,000 bytes of a
 * result and cuts the rest from the middle, so the omission marker and the tail of a 24 KiB
 * preview never reach its model. The server sizes its previews for such a client, never the
 * other way round: the marker, the outputId and the tail must survive the client's cut. Each
 * client's facts (its clientInfo name, its `_meta` key, the preview its cut lets through) are its
 * row in AGENTS (src/core/agents/agents.ts), the table "Connect Other Agents…" configures from.
 */
import { VSCODE_COPILOT_HARNESS, inCopilotHarness } from '../core/agents/harness';
import { CLIENT_INFO_META_KEY, type Implementation } from '@modelcontextprotocol/server';
import { AGENTS, AGENT_IDS, type AgentId } from '../core/agents/agents';

/**
 * The agent a client is, by the exact clientInfo name its CLI sends, or the exact start of it where
 * the CLI adds a name of the person's (Qwen Code's `qwen-cli-mcp-client-<server key>`): AGENTS, the
 * one table of the agents we know, shared with "Connect Other Agents…"; undefined for any other client.
 */
export function knownClient(client: Pick<Implementation, 'name'> | undefined): AgentId | undefined {
  if (!client) return undefined;
  return AGENT_IDS.find((id) => {
    const { clientName, clientNamePrefix } = AGENTS[id];
    return clientName === client.name || (clientNamePrefix !== undefined && client.name.startsWith(clientNamePrefix));
  });
}

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
    meta && typeof meta === 'object'
      ? AGENT_IDS.find((id) => {
          const key = AGENTS[id].metaKey;
          return key !== undefined && key in meta;
        })
      : undefined;
  return known ? { name: AGENTS[known].clientName, version: '' } : undefined;
}

/**
 * The preview size for a client: the configured one, or less where the client would cut it. A size
 * the user set (`set`) is used as given: they may have raised the client's limit (Codex's
 * `tool_output_token_limit`), which this server cannot see. `env`: this server's environment, which
 * tells VS Code's Copilot harness from the Copilot CLI.
 */
export function previewBytesFor(
  client: Implementation | undefined,
  configured: { bytes: number; set: boolean },
  env: NodeJS.ProcessEnv = process.env,
): number {
  const id = configured.set ? undefined : knownClient(client);
  // VS Code's Copilot harness runs the Copilot CLI's runtime, which names itself `copilot-cli` there too but cuts at 8 KiB (harness.ts).
  const harness = id === 'copilot-cli' && inCopilotHarness(env);
  const cut = harness ? VSCODE_COPILOT_HARNESS.previewBytes : id && AGENTS[id].previewBytes;
  return cut !== undefined ? Math.min(configured.bytes, cut) : configured.bytes;
}

/**
 * The lines each preview may take for a client that cuts results by lines (OpenCode and Kilo Code:
 * their first 2,000), or undefined. Unlike bytes, a line budget the user cannot set: it holds even
 * with `--preview-bytes`, since the client's cut does not move with it.
 */
export function previewLinesFor(client: Implementation | undefined): number | undefined {
  const id = knownClient(client);
  return id && AGENTS[id].previewLines;
}
