/**
 * The agents outside VS Code that the "Connect Other Agents…" command configures, where each keeps
 * its MCP servers, and the entry each gets: the same server, started with plain Node from the stable
 * launcher the extension installs, pinned to the workspace.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { KILO_HOOK_ARGS, OPENCODE_HOOK_ARGS, PLUGIN_FILE, openCodePluginSource } from './openCodePlugin';
import { CLAUDE_HOOK_ARGS, type HookPlace, claudeHookCommand, claudeHookEntry, hookCommand } from './claudeHook';

/** The key the server is listed under in every agent's configuration. */
export const CONFIG_KEY = 'tool-output-recall';

export type AgentId = 'claude-code' | 'codex' | 'cursor' | 'gemini-cli' | 'qwen-code' | 'copilot-cli' | 'opencode' | 'kilo-code' | 'cline';

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
  /**
   * For a client whose clientInfo name ends in something of the person's (Qwen Code appends the
   * server's key in its settings): a name that starts exactly so is this client, for the MCP server too.
   */
  clientNamePrefix?: string;
  /** A request `_meta` key only this client sends: it names the client where no handshake did (stateless HTTP). */
  metaKey?: string;
  /** For a client that cuts large results: the preview bytes that keep a whole result (header, preview, stderr section) under its cut. */
  previewBytes?: number;
  /**
   * For a client that cuts a result by lines (OpenCode and Kilo Code keep its first 2,000): the lines
   * each preview in a result may take (a failure's result holds two, the output's and stderr's), so
   * the whole result, header and last line included, stays under the cut whatever the line length.
   */
  previewLines?: number;
  /** How Connect Other Agents tells the agent is on this machine: its commands on PATH, and its folders in the home folder. */
  found: { commands: readonly string[]; homeFolders: readonly string[] };
}

export const AGENTS: { readonly [id in AgentId]: AgentFacts } = {
  // claude-code 2.1.332 names itself in the `_meta` envelope of server/discover (test/clients/REPORT.md).
  'claude-code': {
    name: 'Claude Code',
    clientName: 'claude-code',
    clientPrefix: 'claude',
    found: { commands: ['claude'], homeFolders: ['.claude'] },
  },
  // codex-mcp-client 0.171.0, in `initialize`. Its cut, measured: a 10,940-byte run_command result
  // (preview 10 KiB) passed whole; a 12,946-byte one (preview 12 KiB) lost its middle. 10 KiB leaves
  // the header and the stderr section their room.
  codex: {
    name: 'Codex',
    clientName: 'codex-mcp-client',
    clientPrefix: 'codex',
    metaKey: 'x-codex-turn-metadata',
    previewBytes: 10 * 1024,
    found: { commands: ['codex'], homeFolders: ['.codex'] },
  },
  // Cursor is not among the CLIs test/clients runs: cursor-vscode is the name its client is seen to send elsewhere.
  cursor: {
    name: 'Cursor',
    clientName: 'cursor-vscode',
    clientPrefix: 'cursor',
    found: { commands: ['cursor', 'cursor-agent'], homeFolders: ['.cursor'] },
  },
  // Gemini CLI 0.61.0: `new Client({ name: "gemini-cli-mcp-client", version })` in its bundle. It cuts
  // a result only past 40,000 characters, more than the default preview comes to.
  'gemini-cli': {
    name: 'Gemini CLI',
    clientName: 'gemini-cli-mcp-client',
    clientPrefix: 'gemini',
    found: { commands: ['gemini'], homeFolders: ['.gemini'] },
  },
  // Qwen Code 0.24.4: `qwen-cli-mcp-client-${serverName}`, the server's key in its settings.
  'qwen-code': {
    name: 'Qwen Code',
    clientName: `qwen-cli-mcp-client-${CONFIG_KEY}`,
    clientPrefix: 'qwen',
    clientNamePrefix: 'qwen-cli-mcp-client-',
    found: { commands: ['qwen'], homeFolders: ['.qwen'] },
  },
  // Copilot CLI 1.0.102 names itself copilot-cli (in the 2026-07-28 `_meta` envelope, then in
  // `initialize`), and replaces a result over 20,480 bytes with a 500-character preview and a file it
  // deletes at exit. A 16 KiB preview gives results of about 17.2-17.4 KB with header, tail and
  // stderr section (test/system/mcpClients.test.ts, through the real server).
  'copilot-cli': {
    name: 'GitHub Copilot CLI',
    clientName: 'copilot-cli',
    clientPrefix: 'copilot-cli',
    previewBytes: 16 * 1024,
    found: { commands: ['copilot'], homeFolders: ['.copilot'] },
  },
  // OpenCode 1.18.33 (opencode-ai) names itself opencode, and keeps the first 2,000 lines or 51,200
  // bytes of a result (the rest goes to a file): the default 24 KiB is under the bytes, and 900 lines
  // a preview keep a failure's result (two previews, header, last line) under the lines, however
  // short they are (`seq 1 300000`; test/system/mcpClients.test.ts).
  opencode: {
    name: 'OpenCode',
    clientName: 'opencode',
    clientPrefix: 'opencode',
    previewLines: 900,
    found: { commands: ['opencode'], homeFolders: ['.config/opencode'] },
  },
  // Kilo Code's CLI (@kilocode/cli 7.7.9), an OpenCode fork: clientInfo kilo, the same cut.
  'kilo-code': {
    name: 'Kilo Code',
    clientName: 'kilo',
    clientPrefix: 'kilo',
    previewLines: 900,
    found: { commands: ['kilo', 'kilocode'], homeFolders: ['.config/kilo'] },
  },
  // Cline 3.0.65 (@cline/core) cuts the JSON-encoded result to about 4,000 characters at each end
  // (8,000 in all; a line break counts 2, as "\n"), so the whole result must stay under that: a 3 KiB
  // preview makes results of about 4.1 KB, 4,100-4,700 JSON characters, 6,618 for empty lines (each
  // 2 characters), under 7,500 (test/system/mcpClients.test.ts). Output dense in control characters
  // (6 each, as \u001b) can still go over.
  cline: {
    name: 'Cline',
    clientName: '@cline/core',
    clientPrefix: '@cline',
    previewBytes: 3 * 1024,
    found: { commands: ['cline'], homeFolders: ['.cline'] },
  },
};

/** The agents "Connect Other Agents…" offers, in the table's order. */
export const AGENT_IDS = Object.keys(AGENTS) as readonly AgentId[];

/** Codex's `tool_timeout_sec`: run_command waits up to its timeout (600 s by default). */
export const CODEX_TOOL_TIMEOUT_SEC = 600;
/**
 * Cline's `timeout` (seconds), for every request to the server: without one, Cline 3.0.65 gave
 * `initialize` 3 s, then retried and started without the server; run_command waits up to its timeout.
 */
export const CLINE_TIMEOUT_SEC = 600;

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
  /**
   * json: `{ "mcpServers": … }` (OpenCode's and Kilo Code's `{ "mcp": … }`, `serversKey`); toml:
   * Codex's `[mcp_servers.…]`; claude-hook: Claude Code's settings.json hooks (claudeHook.ts); hook:
   * another agent's hooks file, in the place `hook` says; plugin: a whole file of ours, `entry.source`
   * (OpenCode's and Kilo Code's plugin, openCodePlugin.ts).
   */
  format: 'json' | 'toml' | 'claude-hook' | 'hook' | 'plugin';
  /** For json: the key of the object that holds the servers, when not `mcpServers`. */
  serversKey?: string;
  /** For claude-hook and hook: where in the file the entry goes, and how it is found again. */
  hook?: HookPlace;
  /** Whether the file belongs to the workspace (and may be committed) or to the user. */
  scope: 'workspace' | 'user';
  entry: Record<string, unknown>;
}

/** The hooks "Connect Other Agents…" writes besides Claude Code's (src/mcp/hookAgents.ts runs them). */
export const GEMINI_HOOK_ARGS = ['hook', 'gemini-cli-after-tool'] as const;
export const QWEN_HOOK_ARGS = ['hook', 'qwen-code-post-tool-use'] as const;
export const COPILOT_HOOK_ARGS = ['hook', 'copilot-cli-post-tool-use'] as const;
/** The name Gemini CLI and Qwen Code show for the hook (and take in their lists of disabled hooks). */
export const HOOK_NAME = 'tool-output-recall';
/** How long an agent waits for the hook: retaining a large output (up to the event's limit) takes seconds at most. */
export const HOOK_TIMEOUT_SEC = 60;

/** Where Copilot CLI keeps its configuration: `$COPILOT_HOME`, else `~/.copilot`. */
export function copilotHome(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.COPILOT_HOME;
  if (home && path.isAbsolute(home)) return home;
  return path.join(env.HOME || os.homedir(), '.copilot');
}

/** Where Cline (its CLI, @cline/core) keeps its MCP servers: `~/.cline/data/settings/cline_mcp_settings.json`. */
export function clineSettingsFile(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.HOME || os.homedir(), '.cline', 'data', 'settings', 'cline_mcp_settings.json');
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
        // alwaysLoad: Claude Code 2.1.332 connects a server beside its first turn unless its entry says so, and
        // then its first model request may go out without our tools (19 of 20 runs under load, test/clients).
        entry: { command: launch.node, args, alwaysLoad: true },
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
    case 'gemini-cli':
    case 'qwen-code': {
      // The project's settings (beside the user's, which each merges with it). Gemini's MCP calls wait
      // 10 minutes by default, as long as run_command's longest timeout.
      const folder = id === 'gemini-cli' ? '.gemini' : '.qwen';
      return {
        id,
        name: AGENTS[id].name,
        file: path.join(launch.workspace, folder, 'settings.json'),
        format: 'json',
        scope: 'workspace',
        entry: { command: launch.node, args },
      };
    }
    case 'copilot-cli':
      // One file for every project, as `copilot mcp add` writes it: the entry names the workspace.
      return {
        id,
        name: AGENTS[id].name,
        file: path.join(copilotHome(env), 'mcp-config.json'),
        format: 'json',
        scope: 'user',
        entry: { type: 'local', command: launch.node, args, tools: ['*'] },
      };
    case 'opencode':
    case 'kilo-code':
      // The project's opencode.json / kilo.json: servers under "mcp", each a command line as one array
      // (the "mcpServers" shape is ignored there).
      return {
        id,
        name: AGENTS[id].name,
        file: path.join(launch.workspace, id === 'opencode' ? 'opencode.json' : 'kilo.json'),
        format: 'json',
        serversKey: 'mcp',
        scope: 'workspace',
        entry: { type: 'local', command: [launch.node, ...args], enabled: true },
      };
    case 'cline':
      // One file for every project, as `cline mcp install` writes it: the entry names the workspace.
      return {
        id,
        name: AGENTS[id].name,
        file: clineSettingsFile(env),
        format: 'json',
        scope: 'user',
        entry: { command: launch.node, args, timeout: CLINE_TIMEOUT_SEC },
      };
  }
}

/**
 * The hook each agent gets beside its server entry, and where (src/mcp/hook.ts and hookAgents.ts
 * run them): each hands the server an output too large for the agent to show whole, or points the
 * model at the file the agent saved it to. Codex has none: its hook sees only the cut it shows.
 */
function hookTarget(server: AgentTarget, launch: ServerLaunch): AgentTarget | undefined {
  const { id, name } = server;
  const workspaceFile = (...parts: string[]) => path.join(launch.workspace, ...parts);
  const command = (args: readonly string[]) => hookCommand(launch.node, launch.launcher, args);
  const base = { id, name, format: 'hook' as const, scope: 'workspace' as const };
  switch (id) {
    case 'claude-code':
      return {
        ...server,
        file: workspaceFile('.claude', 'settings.json'),
        format: 'claude-hook',
        hook: { event: 'PostToolUse', tools: 'Bash', args: CLAUDE_HOOK_ARGS },
        entry: claudeHookEntry(claudeHookCommand(launch.node, launch.launcher)),
      };
    case 'gemini-cli':
      // Gemini's matcher is a regular expression, its timeout in milliseconds.
      return {
        ...base,
        file: workspaceFile('.gemini', 'settings.json'),
        hook: { event: 'AfterTool', tools: 'run_shell_command', args: GEMINI_HOOK_ARGS },
        entry: {
          matcher: 'run_shell_command',
          hooks: [{ type: 'command', command: command(GEMINI_HOOK_ARGS), name: HOOK_NAME, timeout: HOOK_TIMEOUT_SEC * 1000 }],
        },
      };
    case 'qwen-code':
      // Qwen's timeout is in seconds (it reads 1000 and more as milliseconds).
      return {
        ...base,
        file: workspaceFile('.qwen', 'settings.json'),
        hook: { event: 'PostToolUse', tools: '^run_shell_command$', args: QWEN_HOOK_ARGS },
        entry: {
          matcher: '^run_shell_command$',
          hooks: [{ type: 'command', command: command(QWEN_HOOK_ARGS), name: HOOK_NAME, timeout: HOOK_TIMEOUT_SEC }],
        },
      };
    case 'copilot-cli':
      // Copilot's own format, a file of ours in the repository's .github/hooks/: no matcher, so it
      // runs after every tool (the hook answers nothing for any but bash).
      return {
        ...base,
        file: workspaceFile('.github', 'hooks', `${CONFIG_KEY}.json`),
        hook: { event: 'postToolUse', tools: '*', args: COPILOT_HOOK_ARGS, start: { version: 1 } },
        entry: { type: 'command', bash: command(COPILOT_HOOK_ARGS), timeoutSec: HOOK_TIMEOUT_SEC },
      };
    case 'opencode':
    case 'kilo-code':
      // No hooks file: a plugin of ours in the project's plugins folder, loaded at start.
      return {
        ...base,
        file: workspaceFile(id === 'opencode' ? '.opencode' : '.kilo', 'plugins', PLUGIN_FILE),
        format: 'plugin',
        entry: { source: openCodePluginSource(launch.node, launch.launcher, id === 'opencode' ? OPENCODE_HOOK_ARGS : KILO_HOOK_ARGS) },
      };
    default:
      return undefined;
  }
}

/**
 * Every file "Connect Other Agents…" writes for `id`: the server's entry, and its hook (hookTarget;
 * Codex has none). Gemini CLI and Qwen Code keep both in one settings.json: two targets, one file,
 * merged one after the other (plan.ts).
 */
export function agentTargets(id: AgentId, launch: ServerLaunch, env: NodeJS.ProcessEnv = process.env): AgentTarget[] {
  const server = agentTarget(id, launch, env);
  const hook = hookTarget(server, launch);
  return hook ? [server, hook] : [server];
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
