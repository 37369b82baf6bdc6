/**
 * The environment a command runs with: the environment of the process that runs it (the extension
 * host, the MCP server), less what belongs to that process alone, with the caller's variables over it.
 */

/**
 * Variables that are the running process's own secrets, never a command's: the MCP server's bearer
 * token (TOKEN_ENV in mcp/token.ts, named again here because the engine does not import the server).
 * Whoever has the token can run commands through the HTTP server, so a command that printed its
 * environment (`env`, a crash report, a CI log) would hand it on, and its output is kept in the
 * session besides. The server's other token sources are not variables: --token and --token-file are
 * arguments, and the default token file is a path derived from XDG_STATE_HOME, which commands need.
 */
export const SERVER_ONLY_ENV: readonly string[] = ['TOOL_OUTPUT_RECALL_MCP_TOKEN'];

/**
 * `inherited` without SERVER_ONLY_ENV (compared without case on Windows, whose variable names are
 * case-insensitive), then `extra` over it: what a caller passes explicitly is its own choice.
 */
export function commandEnv(
  inherited: NodeJS.ProcessEnv,
  extra: Record<string, string> = {},
  platform = process.platform,
): NodeJS.ProcessEnv {
  const fold = (name: string): string => (platform === 'win32' ? name.toUpperCase() : name);
  const dropped = new Set(SERVER_ONLY_ENV.map(fold));
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(inherited)) if (!dropped.has(fold(name))) env[name] = value;
  return { ...env, ...extra };
}
