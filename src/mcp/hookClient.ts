/**
 * A hook's way to its agent's MCP server (hookListener.ts). Of the servers announced in the run
 * folders, only one started by the very agent process that runs this hook (ancestry.ts `agentOf`:
 * the hook's parent, or grandparent through its shell; the server's parent, or grandparent through
 * npx or a shell), and only for the workspace the hook runs in. Sharing a more distant ancestor is
 * not enough (issue 37): two agents in two panes of one terminal or tmux share one, and the output of
 * an agent with no server of its own went into the other project's session. With no server of its
 * own agent the hook goes without one.
 */
import { promises as fs } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { agentOf, ancestorsOf, isAlive, processName } from './ancestry';
import { findRunDirs, type ServerAnnouncement } from './hookRunDir';
import type { HookAnswer, HookRequest } from './hookListener';

export interface FoundServer {
  socketPath: string;
  announcement: ServerAnnouncement;
}

const realOr = (folder: string): Promise<string> => fs.realpath(folder).catch(() => path.resolve(folder));
const within = (folder: string, root: string): boolean =>
  folder === root || folder.startsWith(root.endsWith(path.sep) ? root : root + path.sep);

/**
 * The server of the agent running this hook, for a workspace holding one of `folders` (the hook's
 * working folder, the event's), or undefined (none, or not on this platform).
 */
export async function findAgentServer(
  folders: readonly string[],
  ancestors: number[] = ancestorsOf(),
  nameOf: (pid: number) => string | undefined = processName,
): Promise<FoundServer | undefined> {
  const agent = agentOf(ancestors, nameOf);
  if (agent === undefined) return undefined;
  const places = await Promise.all(folders.map(realOr));
  let best: { found: FoundServer; hops: number } | undefined;
  for (const dir of await findRunDirs()) {
    for (const name of await fs.readdir(dir).catch(() => [] as string[])) {
      if (!/^\d+\.json$/.test(name)) continue;
      let announcement: ServerAnnouncement;
      try {
        announcement = JSON.parse(await fs.readFile(path.join(dir, name), 'utf8')) as ServerAnnouncement;
      } catch {
        continue;
      }
      if (!Array.isArray(announcement.ancestors) || typeof announcement.workspace !== 'string' || !isAlive(announcement.pid)) continue;
      if (agentOf(announcement.ancestors, nameOf) !== agent) continue;
      const workspace = await realOr(announcement.workspace);
      if (!places.some((place) => within(place, workspace))) continue;
      // One agent with two servers for this workspace: the one it started most directly.
      const hops = announcement.ancestors.indexOf(agent);
      if (!best || hops < best.hops) best = { found: { socketPath: path.join(dir, `${announcement.pid}.sock`), announcement }, hops };
    }
  }
  return best?.found;
}

/** Sends one request and reads the answer; rejects when the server cannot be reached or fails within `timeoutMs`. */
export function retainThroughServer(server: FoundServer, request: HookRequest, timeoutMs: number): Promise<HookAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(server.socketPath);
    let reply = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server (pid ${server.announcement.pid}) did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('data', (chunk: Buffer) => (reply += chunk.toString('utf8')));
    socket.on('end', () => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(reply) as HookAnswer);
      } catch {
        reject(new Error(`the server (pid ${server.announcement.pid}) answered ${JSON.stringify(reply.slice(0, 200))}`));
      }
    });
    socket.end(`${JSON.stringify(request)}\n`);
  });
}
