/**
 * A stdio server's door for hooks: the agent that started this server runs its own shell tool, and
 * a hook of that agent (hookClient.ts) hands the whole output here, so it is retained in this
 * server's session and the model can read it with read_tool_output under an outputId. The server
 * listens on `<run dir>/<pid>.sock` and announces its ancestors beside it (hookRunDir.ts).
 *
 * A request is one line of JSON, `{agent, tool, command?, text, complete?, droppedBytes?}`; the
 * answer one line, `{outputId, totalBytes, complete, droppedBytes}` or `{error}`.
 */
import { promises as fs } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { describeError } from '../core/errors';
import type { RecallStore } from '../core/types';
import { ancestorsOf } from './ancestry';
import { ensureRunDir, hookRunDir, type ServerAnnouncement } from './hookRunDir';
import type { Log } from './log';

/** The most a request may hold: a whole output at the copy cap, JSON-escaped (control bytes grow sixfold), and room for the rest. */
export const MAX_HOOK_REQUEST_BYTES = 64 * 1024 * 1024;

export interface HookRequest {
  /** The agent (`gemini-cli`, `qwen-code`, `claude-code`, `copilot-cli`, `codex`). */
  agent: string;
  /** The agent's tool (`run_shell_command`, `Bash`, `bash`). */
  tool: string;
  command?: string;
  /** The output as the hook got it. */
  text: string;
  /** False when the agent already dropped part of it. */
  complete?: boolean;
  droppedBytes?: number;
}

export type HookAnswer = { outputId: string; totalBytes: number; complete: boolean; droppedBytes: number } | { error: string };

function parseRequest(line: string): HookRequest {
  const value = JSON.parse(line) as Partial<HookRequest>;
  if (typeof value.agent !== 'string' || typeof value.tool !== 'string' || typeof value.text !== 'string')
    throw new Error('a hook request needs agent, tool and text');
  return value as HookRequest;
}

export async function listenForHooks(options: {
  store: () => Promise<RecallStore>;
  sessionId: string;
  workspace: string;
  log: Log;
}): Promise<{ close(): Promise<void> } | undefined> {
  const dir = hookRunDir();
  if (!dir) return undefined;
  const { log } = options;
  try {
    await ensureRunDir(dir);
  } catch (error) {
    log.warn(`hooks cannot reach this server: ${describeError(error)}`);
    return undefined;
  }
  const socketPath = path.join(dir, `${process.pid}.sock`);
  const announcement = path.join(dir, `${process.pid}.json`);
  // A file of this name is a server of this pid that ended without cleaning up: no live process has it.
  await fs.rm(socketPath, { force: true });
  // allowHalfOpen: the hook ends its side once the request is written, and still reads the answer.
  const server = net.createServer({ allowHalfOpen: true }, (socket) => serveOne(socket, options));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  await fs.chmod(socketPath, 0o600);
  const note: ServerAnnouncement = {
    pid: process.pid,
    ancestors: ancestorsOf(),
    sessionId: options.sessionId,
    workspace: options.workspace,
  };
  await fs.writeFile(announcement, `${JSON.stringify(note)}\n`, { mode: 0o600 });
  return {
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await fs.rm(announcement, { force: true });
      await fs.rm(socketPath, { force: true });
    },
  };
}

function serveOne(socket: net.Socket, options: { store: () => Promise<RecallStore>; log: Log }): void {
  const chunks: Buffer[] = [];
  let length = 0;
  const answer = (value: HookAnswer) => socket.end(`${JSON.stringify(value)}\n`);
  socket.on('error', () => undefined);
  socket.on('data', (chunk: Buffer) => {
    length += chunk.length;
    if (length > MAX_HOOK_REQUEST_BYTES) {
      socket.removeAllListeners('data');
      answer({ error: `a hook request is limited to ${MAX_HOOK_REQUEST_BYTES} bytes` });
      return;
    }
    const end = chunk.indexOf(0x0a);
    chunks.push(end >= 0 ? chunk.subarray(0, end) : chunk);
    if (end < 0) return;
    socket.removeAllListeners('data');
    void retain(Buffer.concat(chunks).toString('utf8'), options).then(answer);
  });
}

async function retain(line: string, { store, log }: { store: () => Promise<RecallStore>; log: Log }): Promise<HookAnswer> {
  try {
    const request = parseRequest(line);
    const retained = await (
      await store()
    ).retain(request.text, {
      tool: `${request.agent} ${request.tool}`,
      ...(request.command ? { title: request.command } : {}),
      ...(request.complete === false ? { complete: false } : {}),
      ...(request.droppedBytes ? { droppedBytes: request.droppedBytes } : {}),
    });
    log.info(`hook: retained ${request.agent} ${request.tool} output as ${retained.outputId} (${retained.totalBytes} bytes)`);
    return retained;
  } catch (error) {
    log.warn(`hook: ${describeError(error)}`);
    return { error: describeError(error) };
  }
}
