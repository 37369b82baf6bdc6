/**
 * The session folders of this workspace, for the output catalog (list and search across outputs):
 * this window's (VS Code's workspace storage) first, then each workspace folder's agents' folder,
 * where every MCP server of the workspace keeps its sessions. Each agents' folder is told where
 * VS Code's sessions are (agentStore.ts), so the agents' servers can search them too.
 */
import * as vscode from 'vscode';
import { promises as fs } from 'node:fs';
import { announceVsCodeSessions, defaultStoreDir } from '../../core/agentStore';
import type { SessionFolder } from '../../core/catalog/outputCatalog';
import { describeError } from '../../core/errors';

/** The agents' folder of each workspace folder on disk (by its real path, as the servers compute it). */
async function agentFolders(): Promise<string[]> {
  const dirs: string[] = [];
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    if (folder.uri.scheme !== 'file') continue;
    const real = await fs.realpath(folder.uri.fsPath).catch(() => undefined);
    if (real) dirs.push(defaultStoreDir(real));
  }
  return dirs;
}

/** Who this window's session folder is (the catalog names its sessions so; other agents' name themselves). */
export const VS_CODE_OWNER = 'VS Code';

export function catalogFolders(sessionsDir: string): () => Promise<SessionFolder[]> {
  return async () => [{ dir: sessionsDir, owner: VS_CODE_OWNER }, ...(await agentFolders()).map((dir) => ({ dir }))];
}

/**
 * Says where this window's sessions are in each agents' folder that exists (an agent's server has
 * run in this workspace: no folder is made for a workspace no agent uses); a failure is logged (the
 * agents then search their own sessions only).
 */
export async function announceSessions(sessionsDir: string, log: vscode.LogOutputChannel): Promise<void> {
  for (const dir of await agentFolders()) {
    if (!(await fs.stat(dir).catch(() => undefined))?.isDirectory()) continue;
    await announceVsCodeSessions(dir, sessionsDir).catch((error: unknown) =>
      log.warn(`telling the agents' servers in ${dir} where this window's sessions are: ${describeError(error)}`),
    );
  }
}
