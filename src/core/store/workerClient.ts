/**
 * A session store that lives on a worker thread, so the caller's thread (the VS Code extension
 * host, shared by every extension) never blocks on sql.js: inserting 8 MiB, exporting a 50 MiB
 * database or running a regex over an 8 MiB copy all happen in `worker.ts`.
 *
 * `WorkerStore` implements `RecallStore` with the same methods and semantics as `SessionStore`,
 * all async; errors from the worker are re-thrown as real `RecallError`s with the same code,
 * message and details.
 *
 * One worker serves several stores (the current session, a fork, an old session being looked at):
 * it is shared per worker script, reference-counted, and terminated when its last store closes.
 *
 * Failure handling:
 * - The worker crashes or exits: every pending and later call of its stores rejects with
 *   `STORE_UNAVAILABLE` (closing still works, deleting removes the file). Opening a store again
 *   starts a fresh worker.
 * - A search runs longer than its time limit (a regex that backtracks catastrophically cannot be
 *   interrupted any other way): the worker is terminated, that search rejects with
 *   `INVALID_ARGUMENT`, and a fresh worker reopens the same sessions from disk (every acknowledged
 *   change is durable there) and replays the other calls that were in flight. Replay is safe
 *   because new session IDs are chosen here, not in the worker (an interrupted open or fork reopens
 *   the same file), a replayed `remove` that finds the output already gone succeeds, and a `retain`
 *   is re-encoded from the caller's content (one made with `{ transfer: true }` cannot be: it
 *   rejects with `STORE_UNAVAILABLE`). At worst an interrupted retain left an unreferenced copy.
 *
 * Main-thread cost: small replies are structured-cloned; `readAll` bytes arrive transferred;
 * large retain content is encoded into 1 MiB transferred parts, one per event-loop turn (cloning an
 * 8 MiB string costs this thread 30-150 ms). A rope string (built with `+`/`repeat`) is flattened
 * by V8 on first read, an O(n) copy no caller-side code can avoid.
 */
import { existsSync, promises as fs } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { RecallError, describeError } from '../errors';
import { newSessionId } from '../ids';
import type { OpenReport, OutputInfo, ReadResult, RecallStore, RetainMeta, RetainResult, SearchOptions, SearchResult } from '../types';
import type { OpenStoreOptions } from './sessionStore';
import type { OpenedStore, ResultOf, SerializedError, StoreStats, WorkerOp, WorkerOpenOptions, WorkerReply, WorkerRequest } from './workerProtocol';
import { isReply } from './workerProtocol';

/** Default time limit of one search (see `callTimeoutMs`). */
export const DEFAULT_SEARCH_TIMEOUT_MS = 10_000;

export interface WorkerStoreOptions extends OpenStoreOptions {
  /**
   * The worker script. Default: `storeWorker.js` beside this module (the bundles in dist/); when
   * running from sources (tsx), `worker.ts` beside this module.
   */
  workerPath?: string;
  /**
   * Node options for the worker. Default: none for a `.js` worker; for a `.ts` worker,
   * `['--require', <resolved tsx/cjs>]` (what works with tsx 4 on Node 20: `--import tsx` and
   * plain `new Worker('x.ts')` fail with "Unknown file extension .ts").
   */
  execArgv?: string[];
  /**
   * Time limit of one search call in ms, counted from when it is sent (default 10 000). A search
   * that takes longer is stopped by restarting the worker. 0 or Infinity: no limit.
   */
  callTimeoutMs?: number;
}

export interface WorkerRetainOptions {
  /**
   * Hand the content's ArrayBuffer to the worker instead of copying it (zero copy). The caller's
   * Uint8Array is detached (length 0) afterwards. Only done when the array spans its whole
   * ArrayBuffer (never for pooled small Buffers); otherwise the content is copied as usual. A
   * transferred retain cannot be replayed if the worker has to be restarted while it runs.
   */
  transfer?: boolean;
}

/** Opens (or resumes, or creates) a session in a store worker. */
export async function openWorkerStore(options: WorkerStoreOptions): Promise<WorkerStore> {
  const { workerPath, execArgv, callTimeoutMs, ...storeOptions } = options;
  const timeoutMs = callTimeoutMs ?? DEFAULT_SEARCH_TIMEOUT_MS;
  if (typeof timeoutMs !== 'number' || Number.isNaN(timeoutMs) || timeoutMs < 0) {
    throw new RecallError('INVALID_ARGUMENT', `callTimeoutMs must be a non-negative number of milliseconds (0 for no limit); got ${JSON.stringify(callTimeoutMs)}.`);
  }
  let host: WorkerHost;
  try {
    host = WorkerHost.acquire(path.resolve(workerPath ?? defaultWorkerPath()), execArgv);
  } catch (error) {
    throw new RecallError('STORE_UNAVAILABLE', `The session store worker could not be started (${describeError(error)}); outputs cannot be retained until that is fixed.`);
  }
  const openOptions: WorkerOpenOptions = {
    dir: storeOptions.dir,
    sessionId: storeOptions.sessionId ?? newSessionId(),
    quotaBytes: storeOptions.quotaBytes,
    copyBytes: storeOptions.copyBytes,
    forkedFrom: storeOptions.forkedFrom,
  };
  try {
    const opened = await host.call('open', undefined, { options: openOptions });
    return new WorkerStore(host, opened, timeoutMs);
  } catch (error) {
    host.release();
    throw error;
  }
}

/** The worker's end of a store: its current handle, and how to reopen it in a fresh worker. */
interface StoreLink {
  handle: number | undefined;
  readonly reopen: WorkerOpenOptions;
  /** Set when the store could not be reopened after a restart. */
  failure?: RecallError;
}

export class WorkerStore implements RecallStore {
  readonly sessionId: string;
  readonly file: string;
  /** What happened on open (a file moved aside), for the caller to show. */
  readonly openReport: OpenReport;
  /** Whether an existing session was resumed. */
  readonly resumed: boolean;
  readonly copyBytes: number;
  readonly quotaBytes: number;
  private state: 'open' | 'closing' | 'closed' | 'deleted' = 'open';
  private closing: Promise<void> | undefined;
  private deleting: Promise<void> | undefined;
  private readonly link: StoreLink;

  /** @internal use openWorkerStore or fork */
  constructor(
    private readonly host: WorkerHost,
    opened: OpenedStore,
    /** Time limit of one search (0: none). */
    readonly callTimeoutMs: number,
  ) {
    this.sessionId = opened.sessionId;
    this.file = opened.file;
    this.openReport = opened.openReport;
    this.resumed = opened.resumed;
    this.copyBytes = opened.copyBytes;
    this.quotaBytes = opened.quotaBytes;
    this.link = {
      handle: opened.handle,
      reopen: { dir: path.dirname(opened.file), sessionId: opened.sessionId, quotaBytes: opened.quotaBytes, copyBytes: opened.copyBytes },
    };
    host.attach(this.link);
  }

  /** Set once the worker behind this store has failed: every call then rejects with this error. */
  get unavailable(): RecallError | undefined {
    return this.host.failure ?? this.link.failure;
  }

  /**
   * Like `SessionStore.retain`. The content is handed to the worker without blocking this thread:
   * large content is encoded and copied in parts (with a turn of the event loop between them) and
   * the parts are transferred, not cloned. Do not modify a Uint8Array until the call settles.
   */
  retain(content: string | Uint8Array, meta?: RetainMeta, options: WorkerRetainOptions = {}): Promise<RetainResult> {
    if (options.transfer && content instanceof Uint8Array && content.buffer instanceof ArrayBuffer
      && content.byteOffset === 0 && content.byteLength === content.buffer.byteLength) {
      return this.call('retain', { content, meta }, { transfer: [content.buffer] });
    }
    if (typeof content !== 'string' && !(content instanceof Uint8Array)) return this.call('retain', { content, meta });
    return this.call('retain', { content: [] /* set by encode */, meta }, { encode: () => encodeContent(content) });
  }

  read(outputId: string, offset?: number, maxBytes?: number): Promise<ReadResult> {
    return this.call('read', { outputId, offset, maxBytes });
  }

  /** `timeoutMs` overrides the store's `callTimeoutMs` for this search (0: no limit). */
  search(outputId: string, pattern: string, options: SearchOptions & { timeoutMs?: number } = {}): Promise<SearchResult> {
    const { timeoutMs = this.callTimeoutMs, ...searchOptions } = options ?? {};
    return this.call('search', { outputId, pattern, options: searchOptions }, { timeoutMs });
  }

  /** The whole copy, as a Buffer over the bytes the worker transferred (no copy on this thread). */
  async readAll(outputId: string): Promise<Buffer> {
    const bytes = await this.call('readAll', { outputId });
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  info(outputId: string): Promise<OutputInfo> {
    return this.call('info', { outputId });
  }

  list(): Promise<OutputInfo[]> {
    return this.call('list', {});
  }

  stats(): Promise<StoreStats> {
    return this.call('stats', {});
  }

  remove(outputId: string): Promise<void> {
    return this.call('remove', { outputId });
  }

  /** Waits until every change so far is durable in the session file. */
  flush(): Promise<void> {
    return this.call('flush', {});
  }

  /** A new session in the same folder, worker and limits that shares no copies with this one. */
  async fork(): Promise<WorkerStore> {
    this.host.retainRef();
    try {
      const opened = await this.call('fork', { sessionId: newSessionId() });
      return new WorkerStore(this.host, opened, this.callTimeoutMs);
    } catch (error) {
      this.host.release();
      throw error;
    }
  }

  close(): Promise<void> {
    if (this.state !== 'open') return this.closing ?? this.deleting ?? Promise.resolve();
    this.state = 'closing';
    this.closing = this.finish('close').then(() => {
      this.state = 'closed';
    });
    return this.closing;
  }

  /** Deletes the session file; this store is closed and its IDs resolve nowhere. */
  delete(): Promise<void> {
    if (this.state === 'deleted') return Promise.resolve();
    if (this.deleting) return this.deleting;
    if (this.state === 'open') {
      this.state = 'closing';
      this.deleting = this.finish('delete');
    } else {
      // Already closed (or closing): the worker no longer holds it; the file is all that is left.
      this.deleting = (this.closing ?? Promise.resolve()).catch(() => undefined).then(() => fs.rm(this.file, { force: true }));
    }
    this.deleting = this.deleting.then(() => {
      this.state = 'deleted';
    });
    return this.deleting;
  }

  /** @internal test hook: make the worker die the way a crash would (`exit`: process.exit; `throw`: an uncaught exception). */
  debugCrashWorker(how: 'exit' | 'throw' = 'exit'): Promise<void> {
    return this.host.call('debugCrash', undefined, { how });
  }

  /** @internal the worker's thread id (changes when the worker is restarted). */
  get debugWorkerThreadId(): number {
    return this.host.threadId;
  }

  /** Closes or deletes in the worker; a failed worker has nothing left to close. */
  private async finish(op: 'close' | 'delete'): Promise<void> {
    try {
      if (this.unavailable) {
        if (op === 'delete') await fs.rm(this.file, { force: true });
        return;
      }
      try {
        await this.host.call(op, this.link, {});
      } catch (error) {
        if (!this.unavailable) throw error;
        if (op === 'delete') await fs.rm(this.file, { force: true });
      }
    } finally {
      this.host.detach(this.link);
      this.host.release();
    }
  }

  private call<K extends Exclude<WorkerOp, 'open' | 'debugCrash' | 'close' | 'delete'>>(
    op: K,
    args: Omit<Extract<WorkerRequest, { op: K }>, 'id' | 'op' | 'handle'>,
    options: CallOptions = {},
  ): Promise<ResultOf<K>> {
    if (this.state !== 'open') {
      const state = this.state === 'deleted' ? 'deleted' : 'closed';
      return Promise.reject(new RecallError('STORE_CLOSED', `Session ${this.sessionId} is ${state}; its outputs can no longer be read. Use the current session.`));
    }
    return this.host.call(op, this.link, args, options);
  }
}

interface Encoded {
  args: Record<string, unknown>;
  transfer?: ArrayBuffer[];
}

interface CallOptions {
  transfer?: ArrayBuffer[];
  /** ms; 0 or Infinity: none. */
  timeoutMs?: number;
  /**
   * Builds (more of) the arguments asynchronously before the call is sent, and again if it must be
   * replayed after its transferred buffers are gone.
   */
  encode?: () => Promise<Encoded>;
}

interface Call {
  id: number;
  op: WorkerOp;
  link: StoreLink | undefined;
  args: Record<string, unknown>;
  transfer?: ArrayBuffer[];
  /** The transferred content is gone from this thread: the call cannot be sent again without `encode`. */
  consumed: boolean;
  encode?: () => Promise<Encoded>;
  replayed: boolean;
  timeoutMs: number;
  timer?: NodeJS.Timeout;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** One worker thread and the stores it serves. */
class WorkerHost {
  private static readonly shared = new Map<string, WorkerHost>();

  /** A live host for this script (creating it if needed), with one more reference. */
  static acquire(workerPath: string, execArgv?: string[]): WorkerHost {
    const argv = execArgv ?? defaultExecArgv(workerPath);
    const key = `${workerPath}\0${JSON.stringify(argv)}`;
    let host = WorkerHost.shared.get(key);
    if (!host || host.state === 'failed' || host.state === 'stopped') {
      host = new WorkerHost(key, workerPath, argv);
      WorkerHost.shared.set(key, host);
    }
    host.retainRef();
    return host;
  }

  failure: RecallError | undefined;
  private worker: Worker;
  private state: 'running' | 'restarting' | 'failed' | 'stopped' = 'running';
  private refs = 0;
  private nextId = 1;
  private readonly pending = new Map<number, Call>();
  /** Calls made while restarting, sent once the stores are reopened. */
  private queued: Call[] = [];
  private readonly links = new Set<StoreLink>();
  /** Whether the current worker has answered anything yet (for the failure message). */
  private started = false;

  private constructor(
    private readonly key: string,
    private readonly workerPath: string,
    private readonly execArgv: string[],
  ) {
    this.worker = this.spawn();
  }

  get threadId(): number {
    return this.worker.threadId;
  }

  retainRef(): void {
    this.refs++;
  }

  release(): void {
    this.refs = Math.max(0, this.refs - 1);
    this.maybeStop();
  }

  attach(link: StoreLink): void {
    this.links.add(link);
  }

  detach(link: StoreLink): void {
    this.links.delete(link);
  }

  call<K extends WorkerOp>(op: K, link: StoreLink | undefined, args: object, options: CallOptions = {}): Promise<ResultOf<K>> {
    return new Promise<ResultOf<K>>((resolve, reject) => {
      const timeoutMs = options.timeoutMs ?? 0;
      if (typeof timeoutMs !== 'number' || Number.isNaN(timeoutMs) || timeoutMs < 0) {
        reject(new RecallError('INVALID_ARGUMENT', `timeoutMs must be a non-negative number of milliseconds (0 for no limit); got ${JSON.stringify(timeoutMs)}.`));
        return;
      }
      const call: Call = {
        id: 0, op, link, args: args as Record<string, unknown>, transfer: options.transfer, consumed: false, replayed: false, timeoutMs,
        encode: options.encode, resolve: resolve as (value: unknown) => void, reject,
      };
      if (!call.encode) {
        this.send(call);
        return;
      }
      this.reencode(call).then(() => this.send(call), reject);
    });
  }

  private send(call: Call): void {
    if (this.state === 'restarting') this.queued.push(call);
    else this.post(call);
  }

  private async reencode(call: Call): Promise<void> {
    if (!call.encode) return;
    const encoded = await call.encode();
    call.args = { ...call.args, ...encoded.args };
    call.transfer = encoded.transfer;
    call.consumed = false;
  }

  private spawn(): Worker {
    const worker = new Worker(this.workerPath, { execArgv: this.execArgv });
    worker.on('message', (message: unknown) => {
      if (worker === this.worker && isReply(message)) this.onReply(message);
    });
    worker.on('error', (error) => {
      if (worker === this.worker) this.fail(`it ${this.started ? 'crashed' : 'could not start'}: ${describeError(error)}`);
    });
    worker.on('exit', (code) => {
      if (worker === this.worker) this.fail(`it exited with code ${code}`);
    });
    this.started = false;
    worker.unref();
    return worker;
  }

  private post(call: Call): void {
    if (this.state === 'failed' || this.state === 'stopped') {
      call.reject(this.unavailableError());
      return;
    }
    if (call.link?.failure) {
      call.reject(call.link.failure);
      return;
    }
    if (call.consumed) {
      call.reject(new RecallError(
        'STORE_UNAVAILABLE',
        'The store worker was restarted (a search ran past its time limit) while this retain was in flight, and its content had been transferred, so it could not be sent again. The output was not retained; only the preview is available.',
      ));
      return;
    }
    call.id = this.nextId++;
    const message = { ...call.args, id: call.id, op: call.op, ...(call.link ? { handle: call.link.handle } : {}) };
    try {
      try {
        this.worker.postMessage(message, call.transfer);
      } catch (error) {
        if (!call.transfer) throw error;
        call.transfer = undefined; // e.g. an untransferable buffer: copy it instead
        this.worker.postMessage(message);
      }
    } catch (error) {
      call.reject(new RecallError('INVALID_ARGUMENT', `The ${call.op} arguments cannot be sent to the store worker (${describeError(error)}); pass strings, numbers, Uint8Arrays and JSON-like objects.`));
      return;
    }
    if (call.transfer) call.consumed = true;
    this.pending.set(call.id, call);
    if (call.timeoutMs > 0 && Number.isFinite(call.timeoutMs)) {
      call.timer = setTimeout(() => this.onTimeout(call), call.timeoutMs);
      call.timer.unref();
    }
    this.updateRef();
  }

  private onReply(reply: WorkerReply): void {
    this.started = true;
    const call = this.pending.get(reply.id);
    if (!call) return;
    this.pending.delete(reply.id);
    clearTimeout(call.timer);
    if (reply.ok) call.resolve(reply.result);
    else if (call.replayed && call.op === 'remove' && reply.error.code === 'NOT_FOUND') call.resolve(undefined); // the interrupted attempt removed it
    else call.reject(toError(reply.error));
    this.updateRef();
    this.maybeStop();
  }

  private onTimeout(call: Call): void {
    if (this.state !== 'running' || this.pending.get(call.id) !== call) return;
    this.pending.delete(call.id);
    const seconds = Number((call.timeoutMs / 1000).toFixed(3));
    call.reject(new RecallError(
      'INVALID_ARGUMENT',
      `The search took longer than ${seconds} s and was stopped: this pattern makes the regular expression backtrack too much on this output (nested quantifiers such as "(a+)+" do). Use a simpler pattern or regex:false for a literal search.`,
      { timeoutMs: call.timeoutMs },
    ));
    this.restart().catch((error: unknown) => this.fail(`it could not be restarted: ${describeError(error)}`));
  }

  /** Replaces a stuck worker: reopens every live store in a fresh one, then replays what was in flight. */
  private async restart(): Promise<void> {
    this.state = 'restarting';
    const interrupted = [...this.pending.values()].sort((a, b) => a.id - b.id);
    this.pending.clear();
    for (const call of interrupted) clearTimeout(call.timer);
    const stuck = this.worker;
    try {
      this.worker = this.spawn();
    } catch (error) {
      this.worker = stuck;
      this.state = 'running';
      this.fail(`it could not be restarted: ${describeError(error)}`);
      return;
    }
    void stuck.terminate();
    this.updateRef();
    const links = [...this.links];
    for (const link of links) link.handle = undefined;
    const reopened = links.map((link) => new Promise<void>((resolve) => {
      const call: Call = {
        id: 0, op: 'open', link: undefined, args: { options: link.reopen }, consumed: false, replayed: false, timeoutMs: 0,
        resolve: (opened) => {
          link.handle = (opened as OpenedStore).handle;
          resolve();
        },
        reject: (error) => {
          link.failure = new RecallError(
            'STORE_UNAVAILABLE',
            `Session ${link.reopen.sessionId} could not be reopened after the store worker was restarted (${error.message}); outputs cannot be retained or read in it until a new session is opened.`,
          );
          resolve();
        },
      };
      this.post(call);
    }));
    await Promise.all(reopened);
    for (const call of interrupted) {
      if (call.consumed && call.encode) await this.reencode(call).catch(() => undefined);
    }
    if (this.state !== 'restarting') {
      for (const call of interrupted) call.reject(this.unavailableError());
      return; // failed meanwhile: everything else was rejected
    }
    this.state = 'running';
    const queued = this.queued;
    this.queued = [];
    for (const call of interrupted) {
      call.replayed = true;
      this.post(call);
    }
    for (const call of queued) this.post(call);
    this.updateRef();
    this.maybeStop();
  }

  private fail(what: string): void {
    if (this.state === 'failed' || this.state === 'stopped') return;
    this.state = 'failed';
    const sessions = [...this.links].map((link) => link.reopen.sessionId);
    this.failure = new RecallError(
      'STORE_UNAVAILABLE',
      `The session store worker stopped unexpectedly (${what}). Outputs cannot be retained or read${sessions.length > 0 ? ` in session ${sessions.join(', ')}` : ''} until a new session is opened.`,
      { reason: what },
    );
    if (WorkerHost.shared.get(this.key) === this) WorkerHost.shared.delete(this.key);
    const calls = [...this.pending.values(), ...this.queued];
    this.pending.clear();
    this.queued = [];
    for (const call of calls) {
      clearTimeout(call.timer);
      call.reject(this.unavailableError());
    }
    void this.worker.terminate();
  }

  /** A fresh error per rejection (stacks and identity are per call). */
  private unavailableError(): RecallError {
    const failure = this.failure ?? new RecallError('STORE_UNAVAILABLE', 'The session store worker was stopped. Open a new session.');
    return new RecallError(failure.code, failure.message, failure.details);
  }

  private maybeStop(): void {
    if (this.refs > 0 || this.pending.size > 0 || this.queued.length > 0 || this.state === 'restarting') return;
    if (WorkerHost.shared.get(this.key) === this) WorkerHost.shared.delete(this.key);
    if (this.state === 'running') {
      this.state = 'stopped';
      void this.worker.terminate();
    }
  }

  /** The worker keeps the process alive only while calls are in flight, like an in-process store. */
  private updateRef(): void {
    if (this.state === 'failed' || this.state === 'stopped') return;
    if (this.pending.size > 0 || this.state === 'restarting') this.worker.ref();
    else this.worker.unref();
  }
}

/** Content up to this size crosses in one piece. */
const INLINE_BYTES = 256 * 1024;
/** Larger content crosses in parts of this many bytes (or UTF-16 units of a string). */
const PART_BYTES = 1024 * 1024;
const PART_CHARS = 512 * 1024;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Turns retain content into what crosses to the worker cheaply. Structured-cloning a large string
 * or array costs this thread tens of ms at 8 MiB; so large content is encoded (strings, to UTF-8)
 * or copied (arrays; the caller keeps theirs) into fresh 1 MiB buffers, one per event-loop turn,
 * and those are transferred. Small content is sent as is (a string) or as an exact copy (an array
 * may be a view of a larger buffer, e.g. Node's Buffer pool, which cloning would copy whole).
 */
async function encodeContent(content: string | Uint8Array): Promise<Encoded> {
  if (typeof content === 'string') {
    if (content.length <= INLINE_BYTES / 2) return { args: { content } };
    const parts: Uint8Array[] = [];
    for (let at = 0; at < content.length;) {
      let end = Math.min(content.length, at + PART_CHARS);
      const last = content.charCodeAt(end - 1);
      if (end < content.length && last >= 0xd800 && last <= 0xdbff) end--; // keep a surrogate pair together
      parts.push(Buffer.from(content.slice(at, end), 'utf8'));
      at = end;
      if (at < content.length) await nextTurn();
    }
    return packParts(parts);
  }
  // new Uint8Array(view) copies; a Node Buffer's slice() would be a view of the caller's memory (or
  // of Node's shared pool), and transferring its buffer would detach the caller's bytes.
  if (content.byteLength <= INLINE_BYTES) {
    const copy = new Uint8Array(content);
    return { args: { content: copy }, transfer: [copy.buffer as ArrayBuffer] };
  }
  const parts: Uint8Array[] = [];
  for (let at = 0; at < content.byteLength; at += PART_BYTES) {
    parts.push(new Uint8Array(content.subarray(at, Math.min(content.byteLength, at + PART_BYTES))));
    if (at + PART_BYTES < content.byteLength) await nextTurn();
  }
  return packParts(parts);
}

/** Parts whose buffers can be transferred: Buffer.from may hand back a view of a larger buffer. */
function packParts(parts: Uint8Array[]): Encoded {
  const exact = parts.map((part) => (part.byteOffset === 0 && part.byteLength === part.buffer.byteLength && part.buffer instanceof ArrayBuffer ? part : new Uint8Array(part)));
  return { args: { content: exact }, transfer: exact.map((part) => part.buffer as ArrayBuffer) };
}

function toError(serialized: SerializedError): Error {
  if (serialized.code) return new RecallError(serialized.code, serialized.message, serialized.details ?? {});
  const error = new Error(serialized.message);
  error.name = serialized.name;
  if (serialized.stack) error.stack = `${error.stack}\n    --- in the store worker ---\n${serialized.stack}`;
  return error;
}

let defaultPath: string | undefined;

/** `storeWorker.js` beside the bundle (dist/), else `worker.ts` beside this file (sources, tsx). */
function defaultWorkerPath(): string {
  if (defaultPath) return defaultPath;
  const bundled = path.join(__dirname, 'storeWorker.js');
  const source = path.join(__dirname, 'worker.ts');
  defaultPath = !existsSync(bundled) && existsSync(source) ? source : bundled;
  return defaultPath;
}

/**
 * A `.ts` worker runs under tsx's CommonJS hook (the path is resolved here so it does not depend on
 * the worker's cwd; createRequire keeps bundlers from pulling tsx in). Anything else gets no options,
 * rather than inheriting the parent's (e.g. the extension host's `--inspect`).
 */
function defaultExecArgv(workerPath: string): string[] {
  if (!/\.[cm]?ts$/.test(workerPath)) return [];
  return ['--require', createRequire(__filename).resolve('tsx/cjs')];
}
