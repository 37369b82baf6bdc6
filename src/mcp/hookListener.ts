/**
 * A stdio server's door for hooks: the agent that started this server runs its own shell tool, and
 * a hook of that agent (hookClient.ts) hands the whole output here, so it is retained in this
 * server's session and the model can read it with read_tool_output under an outputId. The server
 * listens on `<run dir>/<pid>.sock` and announces its ancestors beside it (hookRunDir.ts).
 *
 * A request is one line of JSON, `{agent, tool, command?, text, complete?, droppedBytes?}`; the
 * answer one line, `{outputId, totalBytes, complete, droppedBytes}` or `{error, code}`.
 *
 * Only this user reaches the door (a 0700 folder, a 0600 socket), but a stuck or buggy client must
 * not hold it: a request must keep arriving (idleMs) and be whole within requestMs, at most
 * maxConnections are served at once, and every field is checked before anything is retained.
 */
import { promises as fs } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { describeError, isRecallError } from '../core/errors';
import type { HookDoorStatus } from '../core/store/sessionAgent';
import type { RecallStore } from '../core/types';
import { ancestorsOf, isAlive } from './ancestry';
import { MAX_JSON_DEPTH, nestedDeeperThan } from './hookEvent';
import { openRunDir, type ServerAnnouncement } from './hookRunDir';
import type { Log } from './log';

/** The most a request may hold: a whole output at the copy cap, JSON-escaped (control bytes grow sixfold), and room for the rest. */
export const MAX_HOOK_REQUEST_BYTES = 64 * 1024 * 1024;
/** A connection that sends nothing for this long is answered TIMEOUT and closed: a hook writes its request at once. */
export const HOOK_IDLE_MS = 10_000;
/** The whole request must arrive within this (64 MiB over a local socket takes well under a second). */
export const HOOK_REQUEST_MS = 30_000;
/** Connections served at once; more are refused. Agents run a few tools in parallel at most. */
export const MAX_HOOK_CONNECTIONS = 16;
/** `agent` and `tool` are names (`gemini-cli`, `run_shell_command`). */
export const MAX_HOOK_NAME_CHARS = 200;
/** A shell command is one argument of `sh -c`, and Linux allows 128 KiB for one (MAX_ARG_STRLEN). */
export const MAX_HOOK_COMMAND_CHARS = 128 * 1024;
/** 1 PiB: no output comes near it, and sums of many stay exact integers. */
export const MAX_HOOK_DROPPED_BYTES = 2 ** 50;

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

export type HookAnswer =
  | { outputId: string; totalBytes: number; complete: boolean; droppedBytes: number }
  /** `code`: INVALID_ARGUMENT, TIMEOUT, REFUSED (too many connections), or the store's own. */
  | { error: string; code?: string };

export interface HookDoor {
  status: HookDoorStatus;
  /** The announcement and the socket (none when there is no door): a server that stops removes them at once, synchronously. */
  files: readonly string[];
  /** Stops listening, ends the connections and removes the files (a server that stops ends faster: it removes `files` and exits). */
  close(): Promise<void>;
}

export interface HookDoorOptions {
  store: () => Promise<RecallStore>;
  sessionId: string;
  workspace: string;
  log: Log;
  /**
   * The process the agent started, which the door is named by and whose ancestors it announces: this
   * one unless given (a stdio server runs in a child of that process, front.ts).
   */
  pid?: number;
  /** Told the door's files before they are made: a process that stops meanwhile removes them too. */
  files?(files: readonly string[]): void;
  /** HOOK_IDLE_MS unless given (tests shorten it). */
  idleMs?: number;
  /** HOOK_REQUEST_MS unless given. */
  requestMs?: number;
  /** MAX_HOOK_CONNECTIONS unless given. */
  maxConnections?: number;
}

const text = (value: unknown, field: string, min: number, max: number): string => {
  if (typeof value !== 'string' || value.length < min || value.length > max)
    throw new Error(`${field} must be a string of ${min} to ${max} characters`);
  return value;
};

/** The request in `bytes`, each field checked; throws (the answer's code is INVALID_ARGUMENT). */
function parseRequest(bytes: Buffer): HookRequest {
  if (nestedDeeperThan(bytes, MAX_JSON_DEPTH)) throw new Error(`a hook request is nested deeper than ${MAX_JSON_DEPTH} levels`);
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new Error(`a hook request is one line of JSON: ${describeError(error)}`, { cause: error });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('a hook request is a JSON object');
  const fields = value as Record<string, unknown>;
  const request: HookRequest = {
    agent: text(fields.agent, 'agent', 1, MAX_HOOK_NAME_CHARS),
    tool: text(fields.tool, 'tool', 1, MAX_HOOK_NAME_CHARS),
    text: typeof fields.text === 'string' ? fields.text : '',
  };
  if (typeof fields.text !== 'string') throw new Error('text must be a string');
  if (fields.command !== undefined) request.command = text(fields.command, 'command', 0, MAX_HOOK_COMMAND_CHARS);
  if (fields.complete !== undefined) {
    if (typeof fields.complete !== 'boolean') throw new Error('complete must be true or false');
    request.complete = fields.complete;
  }
  if (fields.droppedBytes !== undefined) {
    const dropped = fields.droppedBytes;
    if (typeof dropped !== 'number' || !Number.isSafeInteger(dropped) || dropped < 0 || dropped > MAX_HOOK_DROPPED_BYTES)
      throw new Error(`droppedBytes must be an integer from 0 to ${MAX_HOOK_DROPPED_BYTES}`);
    request.droppedBytes = dropped;
  }
  return request;
}

/** Opens the door, or says why there is none; never throws. The log says which, and where. */
export async function listenForHooks(options: HookDoorOptions): Promise<HookDoor> {
  const { log } = options;
  try {
    const { dir, how } = await openRunDir();
    const { files, close } = await listenIn(dir, options);
    log.info(`hooks: listening in ${dir} (${how})`);
    return { status: { listening: true, dir, how }, files, close };
  } catch (error) {
    const why = describeError(error);
    // On Windows there is never a door: said once, not warned of.
    if (process.platform === 'win32') log.info(`hooks: no door for hooks: ${why}`);
    else log.warn(`hooks cannot reach this server: ${why}`);
    return { status: { listening: false, why }, files: [], close: () => Promise.resolve() };
  }
}

async function listenIn(dir: string, options: HookDoorOptions): Promise<Pick<HookDoor, 'files' | 'close'>> {
  const pid = options.pid ?? process.pid;
  const socketPath = path.join(dir, `${pid}.sock`);
  const announcement = path.join(dir, `${pid}.json`);
  options.files?.([announcement, socketPath]);
  // Files of servers that ended without cleaning up (killed, or a crash), this pid's among them.
  await sweepDead(dir, pid);
  const limits = {
    idleMs: options.idleMs ?? HOOK_IDLE_MS,
    requestMs: options.requestMs ?? HOOK_REQUEST_MS,
    maxConnections: options.maxConnections ?? MAX_HOOK_CONNECTIONS,
  };
  const open = new Set<net.Socket>();
  // allowHalfOpen: the hook ends its side once the request is written, and still reads the answer.
  const server = net.createServer({ allowHalfOpen: true }, (socket) => {
    socket.on('error', () => undefined);
    if (open.size >= limits.maxConnections) {
      const refusal: HookAnswer = {
        error: `the server already serves ${limits.maxConnections} hook connections; try again`,
        code: 'REFUSED',
      };
      socket.end(`${JSON.stringify(refusal)}\n`, () => socket.destroy());
      return;
    }
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    serveOne(socket, options, limits);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  await fs.chmod(socketPath, 0o600);
  const note: ServerAnnouncement = {
    pid,
    ancestors: ancestorsOf(pid),
    sessionId: options.sessionId,
    workspace: options.workspace,
  };
  await fs.writeFile(announcement, `${JSON.stringify(note)}\n`, { mode: 0o600 });
  return {
    // The announcement first: a hook that still finds the socket without it passes this server by.
    files: [announcement, socketPath],
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // The server is stopping: a request still arriving or retaining would only hold it up.
      for (const socket of open) socket.destroy();
      await closed;
      await fs.rm(announcement, { force: true });
      await fs.rm(socketPath, { force: true });
    },
  };
}

/**
 * Removes the socket and announcement of every server in `dir` whose process is gone: a server killed
 * with SIGKILL (Claude Code does that to a server slow to stop) leaves both behind, and nothing else
 * would ever remove them. A pid reused by another process keeps its files until that one ends too.
 */
export async function sweepDead(dir: string, own: number = process.pid): Promise<void> {
  for (const name of await fs.readdir(dir).catch(() => [] as string[])) {
    const pid = /^(\d+)\.(?:json|sock)$/.exec(name)?.[1];
    if (pid !== undefined && (Number(pid) === own || !isAlive(Number(pid)))) await fs.rm(path.join(dir, name), { force: true });
  }
}

/**
 * One connection: read the request line while it keeps coming, retain it, answer. Once answered,
 * the client has idleMs to close its side before the socket is destroyed.
 */
function serveOne(socket: net.Socket, options: HookDoorOptions, limits: { idleMs: number; requestMs: number }): void {
  let state: 'reading' | 'retaining' | 'answered' = 'reading';
  const chunks: Buffer[] = [];
  let length = 0;
  let linger: NodeJS.Timeout | undefined;
  const answer = (value: HookAnswer, close = false) => {
    if (state === 'answered') return;
    state = 'answered';
    clearTimeout(deadline);
    socket.setTimeout(0);
    socket.end(`${JSON.stringify(value)}\n`, () => close && socket.destroy());
    if (!socket.destroyed) linger = setTimeout(() => socket.destroy(), limits.idleMs).unref();
  };
  const expire = (why: string) => {
    if (state === 'reading') answer({ error: `${why}; closed`, code: 'TIMEOUT' }, true);
  };
  const deadline = setTimeout(() => expire(`a hook request must arrive whole within ${limits.requestMs} ms`), limits.requestMs).unref();
  socket.setTimeout(limits.idleMs, () => expire(`a hook request sent nothing for ${limits.idleMs} ms`));
  socket.once('close', () => {
    clearTimeout(deadline);
    clearTimeout(linger);
  });
  const take = () => {
    state = 'retaining';
    clearTimeout(deadline);
    socket.setTimeout(0);
    void retain(Buffer.concat(chunks), options).then((value) => answer(value));
  };
  socket.on('data', (chunk: Buffer) => {
    if (state !== 'reading') return; // read and dropped: the client may still be writing an over-long request
    const end = chunk.indexOf(0x0a);
    const part = end >= 0 ? chunk.subarray(0, end) : chunk;
    length += part.length;
    if (length > MAX_HOOK_REQUEST_BYTES) {
      answer({ error: `a hook request is limited to ${MAX_HOOK_REQUEST_BYTES} bytes`, code: 'INVALID_ARGUMENT' });
      return;
    }
    chunks.push(part);
    if (end >= 0) take();
  });
  // A client that ends its side without a line break sent its whole request.
  socket.on('end', () => state === 'reading' && take());
}

async function retain(bytes: Buffer, { store, log }: { store: () => Promise<RecallStore>; log: Log }): Promise<HookAnswer> {
  let request: HookRequest;
  try {
    request = parseRequest(bytes);
  } catch (error) {
    log.warn(`hook: ${describeError(error)}`);
    return { error: describeError(error), code: 'INVALID_ARGUMENT' };
  }
  try {
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
    return { error: describeError(error), ...(isRecallError(error) ? { code: error.code } : {}) };
  }
}
