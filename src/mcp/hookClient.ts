/**
 * A hook's way to its agent's MCP server (hookListener.ts): of the servers announced in the run
 * folder, the one whose ancestors meet the hook's own nearest — the agent process that started
 * both. A server of another agent under the same shell meets the hook only further up, so it loses
 * to the hook's own agent's server; with no server of its own agent the hook goes without one.
 */
import { promises as fs } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { ancestorsOf } from './ancestry';
import { checkRunDir, hookRunDir, type ServerAnnouncement } from './hookRunDir';
import type { HookAnswer, HookRequest } from './hookListener';

/** How far up (from the hook, and from the server) the shared ancestor may be: hook ← shell ← agent, server ← npx ← shell ← agent. */
const MAX_HOPS = 4;

export interface FoundServer {
  socketPath: string;
  announcement: ServerAnnouncement;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** The server of the agent running this hook, or undefined (none, or not on this platform). */
export async function findAgentServer(ancestors: number[] = ancestorsOf()): Promise<FoundServer | undefined> {
  const dir = hookRunDir();
  if (!dir || ancestors.length === 0) return undefined;
  try {
    await checkRunDir(dir);
  } catch {
    return undefined;
  }
  let best: { found: FoundServer; hookHops: number; serverHops: number } | undefined;
  for (const name of await fs.readdir(dir).catch(() => [] as string[])) {
    if (!/^\d+\.json$/.test(name)) continue;
    let announcement: ServerAnnouncement;
    try {
      announcement = JSON.parse(await fs.readFile(path.join(dir, name), 'utf8')) as ServerAnnouncement;
    } catch {
      continue;
    }
    if (!Array.isArray(announcement.ancestors) || !alive(announcement.pid)) continue;
    for (let hookHops = 0; hookHops < Math.min(ancestors.length, MAX_HOPS); hookHops++) {
      const serverHops = announcement.ancestors.indexOf(ancestors[hookHops]);
      if (serverHops < 0 || serverHops >= MAX_HOPS) continue;
      const nearer = !best || hookHops < best.hookHops || (hookHops === best.hookHops && serverHops < best.serverHops);
      if (nearer) best = { found: { socketPath: path.join(dir, `${announcement.pid}.sock`), announcement }, hookHops, serverHops };
      break;
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
