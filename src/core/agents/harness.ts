/**
 * VS Code's Copilot harness (VS Code 1.139.1: the Copilot SDK, the Copilot CLI's runtime, in VS Code's
 * Agent Host). Two things reach it from us, and both are told apart here:
 * - The extension's own language-model tools, offered to its model as client tools. It saves any tool
 *   result over 8 KiB (its `largeOutput.maxSizeBytes`) to a temp file and shows the model a short
 *   "Preview (first N chars)", so results meant for it get a 5 KiB preview (results of at most about
 *   7.8 KB, the largest header over it). A call from it names its chat session by a resource whose
 *   scheme is the session type, `agent-host-copilotcli` (its Claude and Codex harnesses `agent-host-…`
 *   too; the Agent Host invokes client tools with `context: { sessionResource }`, workbench.js
 *   `_executeClientTool`); the Local harness's sessions have other schemes.
 * - Our MCP server, which its runtime starts from a root `.mcp.json` (Connect writes one for Claude
 *   Code) with AI_AGENT=github_copilot_vscode_agent in its environment (agentHostMain.js). Serving tools
 *   there too would offer its model every tool twice, in two sessions whose outputIds do not resolve in
 *   each other; so a server started there through the extension's own launcher (the extension is
 *   installed, and its tools are offered) offers none.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { LAUNCHER, LAUNCHER_RECORD } from './install';

export const VSCODE_COPILOT_HARNESS = { variable: 'AI_AGENT', value: 'github_copilot_vscode_agent', previewBytes: 5 * 1024 } as const;

/** Whether this process was started by the Copilot harness's runtime (its environment says so). */
export const inCopilotHarness = (env: NodeJS.ProcessEnv = process.env): boolean =>
  env[VSCODE_COPILOT_HARNESS.variable] === VSCODE_COPILOT_HARNESS.value;

/** The scheme prefix of the Agent Host's chat sessions (`agent-host-copilotcli`, `-claude`, `-codex`). */
export const AGENT_HOST_SESSION_PREFIX = 'agent-host-';

/**
 * Whether a tool invocation may come from the Agent Host (the Copilot harness): its token names one of
 * its chat sessions, or the call names no chat and gives no token budget at all. The Agent Host passes
 * its session only for a request the window rendered (workbench.js `_executeClientTool`,
 * "withContext=false" in its log otherwise: seen in a real turn, test/integration/copilotHarnessTurn),
 * while the Local harness always sends its request's token and a budget. Other callers that send
 * neither (another extension's background call) get the smaller preview too: every part still there.
 */
export function fromAgentHost(toolInvocationToken: unknown, tokenBudget?: number): boolean {
  if (toolInvocationToken === undefined) return tokenBudget === undefined;
  const resource = (toolInvocationToken as { sessionResource?: { scheme?: unknown } } | undefined)?.sessionResource;
  return typeof resource?.scheme === 'string' && resource.scheme.startsWith(AGENT_HOST_SESSION_PREFIX);
}

/** Whether the server was started through the launcher the extension installs (LAUNCHER beside its record). */
export function startedThroughLauncher(script: string | undefined, exists: (file: string) => boolean = existsSync): boolean {
  return script !== undefined && path.basename(script) === LAUNCHER && exists(path.join(path.dirname(script), LAUNCHER_RECORD));
}

/** Whether this server offers no tools: the Copilot harness's runtime started it, and the extension's own tools are there. */
export const duplicateInHarness = (env: NodeJS.ProcessEnv = process.env, script: string | undefined = process.argv[1]): boolean =>
  inCopilotHarness(env) && startedThroughLauncher(script);
