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
export const AGENT_IDS: readonly AgentId[] = ['claude-code', 'codex', 'cursor'];

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
        name: 'Claude Code',
        file: path.join(launch.workspace, '.mcp.json'),
        format: 'json',
        scope: 'workspace',
        entry: { command: launch.node, args },
      };
    case 'cursor':
      // Cursor expands ${workspaceFolder} itself, so the entry names no path of this machine's but the launcher.
      return {
        id,
        name: 'Cursor',
        file: path.join(launch.workspace, '.cursor', 'mcp.json'),
        format: 'json',
        scope: 'workspace',
        entry: { command: launch.node, args: [launch.launcher, '--workspace', '${workspaceFolder}'] },
      };
    case 'codex':
      // One file for every project: the entry names the workspace.
      return {
        id,
        name: 'Codex',
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

/** A connected client's name as people know it: MCP `clientInfo` names are the clients' own. */
export function agentDisplayName(client: { name: string; title?: string }): string {
  const name = client.name.toLowerCase();
  if (name === 'claude-code' || name.startsWith('claude')) return 'Claude Code';
  if (name.startsWith('codex')) return 'Codex';
  if (name.startsWith('cursor')) return 'Cursor';
  return client.title || client.name;
}
