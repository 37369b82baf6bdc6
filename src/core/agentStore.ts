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
import { promises as fs } from 'node:fs';
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

/**
 * Where VS Code keeps this workspace's sessions, for the MCP servers of the same workspace to find
 * them (a search across every session's outputs): VS Code's workspace storage is named by a hash
 * only VS Code knows, so each window says where it is, in the agents' folder.
 */
export const VSCODE_SESSIONS_FILE = 'vscode-sessions.json';

/** VS Code installs (stable, Insiders, code-server…) that may each keep sessions of one workspace. */
const MAX_ANNOUNCED = 4;

/** Adds `sessionsDir` to the folders announced in `agentDir` (the most recent first). */
export async function announceVsCodeSessions(agentDir: string, sessionsDir: string): Promise<void> {
  const known = (await announcedVsCodeSessions(agentDir)).filter((dir) => dir !== sessionsDir);
  const file = path.join(agentDir, VSCODE_SESSIONS_FILE);
  const temporary = `${file}.${process.pid}.tmp`;
  await fs.writeFile(temporary, `${JSON.stringify({ dirs: [sessionsDir, ...known].slice(0, MAX_ANNOUNCED) })}\n`, { mode: 0o600 });
  await fs.rename(temporary, file);
}

/**
 * The folders VS Code announced in `agentDir`; none when there is no announcement or it is not this
 * user's (any process could write one: a folder is only ever read, read-only, for session files).
 */
export async function announcedVsCodeSessions(agentDir: string): Promise<string[]> {
  const file = path.join(agentDir, VSCODE_SESSIONS_FILE);
  try {
    const stat = await fs.lstat(file);
    if (!stat.isFile() || (typeof process.getuid === 'function' && stat.uid !== process.getuid())) return [];
    const { dirs } = JSON.parse(await fs.readFile(file, 'utf8')) as { dirs?: unknown };
    return Array.isArray(dirs)
      ? dirs.filter((dir): dir is string => typeof dir === 'string' && path.isAbsolute(dir)).slice(0, MAX_ANNOUNCED)
      : [];
  } catch {
    return [];
  }
}
