/**
 * The agents outside VS Code that the "Connect Other Agents…" command configures, where each keeps
 * its MCP servers, and the entry each gets: the same server, started with plain Node from the stable
 * launcher the extension installs, pinned to the workspace.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { claudeHookCommand, claudeHookEntry } from './claudeHook';

/** The key the server is listed under in every agent's configuration. */
export const CONFIG_KEY = 'tool-output-recall';

export type AgentId = 'claude-code' | 'codex' | 'cursor';

/**
 * What is known of an agent, as one row for every part that meets it: "Connect Other Agents…"
 * (the files below), the inspector's session groups (agentDisplayName) and the MCP server
 * (src/mcp/clients.ts: who calls, and what its client cuts). A new agent is its id in AgentId and
 * its row here; the compiler then asks for its entry in agentTarget.
 */
export interface AgentFacts {
  /** The product's name, as people know it. */
  name: string;
  /** The name its MCP client sends in clientInfo (`initialize`, or a 2026-era request's `_meta` envelope). */
  clientName: string;
  /** A clientInfo name that starts so (any case) is this agent: other builds and versions name themselves alike. */
  clientPrefix: string;
  /** A request `_meta` key only this client sends: it names the client where no handshake did (stateless HTTP). */
  metaKey?: string;
  /** For a client that cuts large results: the preview bytes that keep a whole result (header, preview, stderr section) under its cut. */
  previewBytes?: number;
}

export const AGENTS: { readonly [id in AgentId]: AgentFacts } = {
  // claude-code 2.1.332 names itself in the `_meta` envelope of server/discover (test/clients/REPORT.md).
  'claude-code': { name: 'Claude Code', clientName: 'claude-code', clientPrefix: 'claude' },
  // codex-mcp-client 0.171.0, in `initialize`. Its cut, measured: a 10,940-byte run_command result
  // (preview 10 KiB) passed whole; a 12,946-byte one (preview 12 KiB) lost its middle. 10 KiB leaves
  // the header and the stderr section their room.
  codex: {
    name: 'Codex',
    clientName: 'codex-mcp-client',
    clientPrefix: 'codex',
    metaKey: 'x-codex-turn-metadata',
    previewBytes: 10 * 1024,
  },
  // Cursor is not among the CLIs test/clients runs: cursor-vscode is the name its client is seen to send elsewhere.
  cursor: { name: 'Cursor', clientName: 'cursor-vscode', clientPrefix: 'cursor' },
};

/** The agents "Connect Other Agents…" offers, in the table's order. */
export const AGENT_IDS = Object.keys(AGENTS) as readonly AgentId[];

/** Codex's `tool_timeout_sec`: run_command waits up to its timeout (600 s by default). */
export const CODEX_TOOL_TIMEOUT_SEC = 600;

export interface ServerLaunch {
  /** The Node.js to start the server with (`node` from PATH, or a path). */
  node: string;
  /** The stable launcher script (installServer). */
  launcher: string;
  /** The workspace folder (its real path). */
  workspace: string;
}

export interface AgentTarget {
  id: AgentId;
  /** The product's name, as people know it. */
  name: string;
  /** The file the entry goes in. */
  file: string;
  /** json: `{ "mcpServers": … }`; toml: Codex's `[mcp_servers.…]`; claude-hook: Claude Code's settings.json hooks (claudeHook.ts). */
  format: 'json' | 'toml' | 'claude-hook';
  /** Whether the file belongs to the workspace (and may be committed) or to the user. */
  scope: 'workspace' | 'user';
  entry: Record<string, unknown>;
}

/** Where Codex keeps its configuration: `$CODEX_HOME`, else `~/.codex`. */
export function codexHome(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.CODEX_HOME;
  if (home && path.isAbsolute(home)) return home;
  return path.join(env.HOME || os.homedir(), '.codex');
}

export function agentTarget(id: AgentId, launch: ServerLaunch, env: NodeJS.ProcessEnv = process.env): AgentTarget {
  const args = [launch.launcher, '--workspace', launch.workspace];
  switch (id) {
    case 'claude-code':
      // Project scope: `claude mcp add --scope project` writes the same entry.
      return {
        id,
        name: AGENTS[id].name,
        file: path.join(launch.workspace, '.mcp.json'),
        format: 'json',
        scope: 'workspace',
        entry: { command: launch.node, args },
      };
    case 'cursor':
      // Cursor expands ${workspaceFolder} itself, so the entry names no path of this machine's but the launcher.
      return {
        id,
        name: AGENTS[id].name,
        file: path.join(launch.workspace, '.cursor', 'mcp.json'),
        format: 'json',
        scope: 'workspace',
        entry: { command: launch.node, args: [launch.launcher, '--workspace', '${workspaceFolder}'] },
      };
    case 'codex':
      // One file for every project: the entry names the workspace.
      return {
        id,
        name: AGENTS[id].name,
        file: path.join(codexHome(env), 'config.toml'),
        format: 'toml',
        scope: 'user',
        entry: { command: launch.node, args, tool_timeout_sec: CODEX_TOOL_TIMEOUT_SEC },
      };
  }
}

/**
 * Every file "Connect Other Agents…" writes for `id`: the server's entry, and for Claude Code also
 * the PostToolUse hook that points its model at the file its Bash saved a big output to (claudeHook.ts).
 */
export function agentTargets(id: AgentId, launch: ServerLaunch, env: NodeJS.ProcessEnv = process.env): AgentTarget[] {
  const server = agentTarget(id, launch, env);
  if (id !== 'claude-code') return [server];
  return [
    server,
    {
      ...server,
      file: path.join(launch.workspace, '.claude', 'settings.json'),
      format: 'claude-hook',
      entry: claudeHookEntry(claudeHookCommand(launch.node, launch.launcher)),
    },
  ];
}

/** The agent a connected MCP client is, by the start of its clientInfo name; undefined for any other client. */
export function agentOfClient(clientName: string): AgentId | undefined {
  const name = clientName.toLowerCase();
  return AGENT_IDS.find((id) => name.startsWith(AGENTS[id].clientPrefix));
}

/** A connected client's name as people know it: MCP `clientInfo` names are the clients' own. */
export function agentDisplayName(client: { name: string; title?: string }): string {
  const id = agentOfClient(client.name);
  return id ? AGENTS[id].name : client.title || client.name;
}
