/**
 * Where agents outside VS Code (the MCP server for Claude Code, Codex, Cursor) keep their sessions:
 * one folder per workspace under the user's state directory,
 *
 *   $XDG_STATE_HOME/tool-output-recall/workspaces/<name>-<hash>/      (XDG_STATE_HOME set and absolute)
 *   ~/.local/state/tool-output-recall/workspaces/<name>-<hash>/       (otherwise)
 *
 * where <hash> is the first 16 hex digits of the SHA-256 of the workspace's real path (symlinks
 * resolved, so two spellings of one folder share it) and <name> its last segment, for people
 * looking at the folder. The folder holds session files exactly like the extension's own
 * (`<id>.sqlite`, journals, `.lock` while a server holds it). The extension computes the same
 * folder from each workspace folder's real path to show those sessions.
 */
import { createHash } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';
import { RecallError } from './errors';

export const AGENT_STORE_APP = 'tool-output-recall';

/** The state directory: `$XDG_STATE_HOME` when set to an absolute path (the XDG rule), else `~/.local/state`. */
export function stateHome(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_STATE_HOME;
  if (xdg && path.isAbsolute(xdg)) return xdg;
  return path.join(env.HOME || os.homedir(), '.local', 'state');
}

/** The session folder of the workspace whose real path (fs.realpath) is `workspaceRealPath`. */
export function defaultStoreDir(workspaceRealPath: string, env: NodeJS.ProcessEnv = process.env): string {
  if (!path.isAbsolute(workspaceRealPath)) {
    throw new RecallError(
      'INVALID_ARGUMENT',
      `defaultStoreDir needs the workspace's real path (absolute); got ${JSON.stringify(workspaceRealPath)}.`,
    );
  }
  const hash = createHash('sha256').update(workspaceRealPath).digest('hex').slice(0, 16);
  const name =
    path
      .basename(workspaceRealPath)
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .slice(0, 40) || 'root';
  return path.join(stateHome(env), AGENT_STORE_APP, 'workspaces', `${name}-${hash}`);
}
