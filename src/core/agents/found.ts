/**
 * Which agents are on this machine, for "Connect Other Agents…" to check them by default: an agent
 * is found by one of its commands on PATH or one of its folders in the home folder (AGENTS' `found`;
 * Codex's and Copilot CLI's folder follow `$CODEX_HOME` and `$COPILOT_HOME`).
 */
import { constants, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AGENTS, AGENT_IDS, codexHome, copilotHome, type AgentId } from './agents';

/** How an agent was found: the command on PATH, or the folder (its path). */
export type AgentFound = { command: string } | { folder: string };

/** The folders that tell `id` is here, in the order they are tried. */
export function agentFolders(id: AgentId, env: NodeJS.ProcessEnv = process.env): string[] {
  if (id === 'codex') return [codexHome(env)];
  if (id === 'copilot-cli') return [copilotHome(env)];
  const home = env.HOME || os.homedir();
  return AGENTS[id].found.homeFolders.map((folder) => path.join(home, ...folder.split('/')));
}

/** Whether `command` is an executable file in a folder of `PATH`. */
export async function onPath(command: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const names = process.platform === 'win32' ? [`${command}.exe`, `${command}.cmd`] : [command];
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    for (const name of names) {
      const file = path.join(dir, name);
      const ok = await fs.access(file, constants.X_OK).then(
        () => fs.stat(file).then((stat) => stat.isFile()),
        () => false,
      );
      if (ok) return true;
    }
  }
  return false;
}

/** Each agent found on this machine, and how; agents not found are absent. */
export async function findAgents(env: NodeJS.ProcessEnv = process.env): Promise<Map<AgentId, AgentFound>> {
  const found = new Map<AgentId, AgentFound>();
  await Promise.all(
    AGENT_IDS.map(async (id) => {
      for (const command of AGENTS[id].found.commands) {
        if (await onPath(command, env)) return void found.set(id, { command });
      }
      for (const folder of agentFolders(id, env)) {
        const stat = await fs.stat(folder).catch(() => undefined);
        if (stat?.isDirectory()) return void found.set(id, { folder });
      }
    }),
  );
  return found;
}
