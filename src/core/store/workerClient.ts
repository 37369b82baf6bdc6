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
 * Failure handling: the worker crashes or exits: every pending and later call of its stores
 * rejects with `STORE_UNAVAILABLE` (closing still works, deleting removes the file). Opening a store
 * again starts a fresh worker.
 *
 * Searches run on the search lane (search/lane.ts), a worker of their own: the copy is fetched from
 * the store worker in 1 MiB slices (reads get through between them) and searched there, so a slow
 * search never holds up this store; it stops at its time limit or when its signal aborts.
 *
 * Main-thread cost: small replies are structured-cloned; `readAll` bytes arrive transferred;
 * large retain content is encoded into 1 MiB transferred parts, one per event-loop turn (cloning an
 * 8 MiB string costs this thread 30-150 ms). A rope string (built with `+`/`repeat`) is flattened
 * by V8 on first read, an O(n) copy no caller-side code can avoid.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { RecallError, describeError } from '../errors';
import { newSessionId } from '../ids';
import { checkSearchRequest } from '../search';
import { DEFAULT_SEARCH_TIMEOUT_MS } from '../search/lane';
import type { OpenReport, RecallStore, RetainMeta, RetainResult, SearchOptions, SearchResult } from '../types';
import type { CallOptions } from '../worker/host';
import { defaultWorkerPath } from '../worker/script';
import type { OpenStoreOptions } from './storeOptions';
import { checkAnnotation } from './outputRows';
import { PLAIN_OPS, type ArgsOf, type OpenedStore, type PlainOp, type ResultOf, type StoreOp, type WorkerOpenOptions } from './storeOps';
import { encodeContent } from './workerContent';
import { StoreWorkerHost, type StoreLink } from './workerHost';

export { DEFAULT_SEARCH_TIMEOUT_MS };

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
   * Time limit of one search in ms, counted from when it starts running (not while it waits behind
   * other searches; default 10 000). A search that takes longer is stopped with TIMEOUT. 0 or
   * Infinity: no limit.
   */
  callTimeoutMs?: number;
}

export interface WorkerSearchOptions extends SearchOptions {
  /** Overrides the store's `callTimeoutMs` for this search (0: no limit). */
  timeoutMs?: number;
}

/** A copy crosses from the store worker to the search worker in slices of this size. */
const SLICE_BYTES = 1024 * 1024;

function checkTimeout(name: string, value: unknown): void {
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
    throw new RecallError(
      'INVALID_ARGUMENT',
      `${name} must be a non-negative number of milliseconds (0 for no limit); got ${JSON.stringify(value)}.`,
    );
  }
}

export interface WorkerRetainOptions {
  /**
   * Hand the content's ArrayBuffer to the worker instead of copying it (zero copy). The caller's
   * Uint8Array is detached (length 0) afterwards. Only done when the array spans its whole
   * ArrayBuffer (never for pooled small Buffers); otherwise the content is copied as usual.
   */
  transfer?: boolean;
}

/** Opens (or resumes, or creates) a session in a store worker. */
export async function openWorkerStore(options: WorkerStoreOptions): Promise<WorkerStore> {
  const { workerPath, execArgv, callTimeoutMs, ...storeOptions } = options;
  const timeoutMs = callTimeoutMs ?? DEFAULT_SEARCH_TIMEOUT_MS;
  checkTimeout('callTimeoutMs', timeoutMs);
  let host: StoreWorkerHost;
  try {
    host = StoreWorkerHost.acquire(path.resolve(workerPath ?? defaultWorkerPath()), execArgv);
  } catch (error) {
    throw new RecallError(
      'STORE_UNAVAILABLE',
      `The session store worker could not be started (${describeError(error)}); outputs cannot be retained until that is fixed.`,
    );
  }
  const openOptions: WorkerOpenOptions = {
    dir: storeOptions.dir,
    sessionId: storeOptions.sessionId ?? newSessionId(),
    quotaBytes: storeOptions.quotaBytes,
    copyBytes: storeOptions.copyBytes,
    journalLimitBytes: storeOptions.journalLimitBytes,
    forkedFrom: storeOptions.forkedFrom,
  };
  try {
    const opened = await host.call('open', undefined, [openOptions]);
    return new WorkerStore(host, opened, timeoutMs);
  } catch (error) {
    host.release();
    throw error;
  }
}

/**
 * The store's calls: `call` sends an operation of the table (storeOps.ts) with its arguments, and
 * every plain operation there is a method that does just that (`read`, `info`, `list`, `stats`,
 * `remove`, `flush`, …), made from the table here, so a new one needs no code in this file.
 */
abstract class StoreCalls {
  /** @internal sends `op` for this store (STORE_CLOSED once it is closed). */
  abstract call<K extends StoreOp>(op: K, args: ArgsOf<K>, options?: CallOptions): Promise<ResultOf<K>>;
}
for (const op of PLAIN_OPS) {
  Object.defineProperty(StoreCalls.prototype, op, {
    value(this: StoreCalls, ...args: unknown[]) {
      return this.call(op, args as ArgsOf<typeof op>);
    },
    writable: true,
    configurable: true,
  });
}
type PlainCalls = { [K in PlainOp]: (...args: ArgsOf<K>) => Promise<ResultOf<K>> };
const WithPlainCalls = StoreCalls as abstract new () => StoreCalls & PlainCalls;

export class WorkerStore extends WithPlainCalls implements RecallStore {
  readonly sessionId: string;
  readonly file: string;
  /** What happened on open (a file moved aside), for the caller to show. */
  readonly openReport: OpenReport;
  /** Whether an existing session was resumed. */
  readonly resumed: boolean;
  readonly copyBytes: number;
  readonly quotaBytes: number;
  readonly journalLimitBytes: number;
  private state: 'open' | 'closing' | 'closed' | 'deleted' = 'open';
  private closing: Promise<void> | undefined;
  private deleting: Promise<void> | undefined;
  private readonly link: StoreLink;

  /** @internal use openWorkerStore or fork */
  constructor(
    private readonly host: StoreWorkerHost,
    opened: OpenedStore,
    /** Time limit of one search (0: none). */
    readonly callTimeoutMs: number,
  ) {
    super();
    this.sessionId = opened.sessionId;
    this.file = opened.file;
    this.openReport = opened.openReport;
    this.resumed = opened.resumed;
    this.copyBytes = opened.copyBytes;
    this.quotaBytes = opened.quotaBytes;
    this.journalLimitBytes = opened.journalLimitBytes;
    this.link = { handle: opened.handle, sessionId: opened.sessionId };
    host.attach(this.link);
  }

  /** Set once the worker behind this store has failed: every call then rejects with this error. */
  get unavailable(): RecallError | undefined {
    return this.host.failure;
  }

  /**
   * Like `SessionStore.retain`. The content is handed to the worker without blocking this thread:
   * large content is encoded and copied in parts (with a turn of the event loop between them) and
   * the parts are transferred, not cloned. Do not modify a Uint8Array until the call settles.
   */
  retain(content: string | Uint8Array, meta?: RetainMeta, options: WorkerRetainOptions = {}): Promise<RetainResult> {
    if (
      options.transfer &&
      content instanceof Uint8Array &&
      content.buffer instanceof ArrayBuffer &&
      content.byteOffset === 0 &&
      content.byteLength === content.buffer.byteLength
    ) {
      return this.call('retain', [content, meta], { transfer: [content.buffer] });
    }
    if (typeof content !== 'string' && !(content instanceof Uint8Array)) return this.call('retain', [content, meta]);
    const encode = async (): Promise<{ args: unknown[]; transfer?: ArrayBuffer[] }> => {
      const { content: parts, transfer } = await encodeContent(content);
      return { args: [parts, meta], transfer };
    };
    return this.call('retain', [[] /* set by encode */, meta], { encode });
  }

  /**
   * Like `SessionStore.search`, on the search lane. `timeoutMs` overrides the store's
   * `callTimeoutMs` for this search (0: no limit); `signal` cancels it (CANCELLED).
   */
  async search(outputId: string, pattern: string, options: WorkerSearchOptions = {}): Promise<SearchResult> {
    const { timeoutMs = this.callTimeoutMs, signal, ...searchOptions } = options ?? {};
    checkSearchRequest(outputId, pattern, searchOptions);
    checkTimeout('timeoutMs', timeoutMs);
    this.ensureOpen();
    let copy: { totalBytes: number; complete: boolean } = { totalBytes: 0, complete: true };
    const found = await this.host.lane.search({
      pattern,
      options: searchOptions,
      subject: outputId,
      timeoutMs,
      signal,
      source: async () => {
        const { parts, ...facts } = await this.fetchCopy(outputId);
        copy = facts;
        return { source: { kind: 'bytes', parts }, transfer: parts.map((part) => part.buffer as ArrayBuffer) };
      },
    });
    return { matches: found.matches, truncated: found.truncated, ...copy };
  }

  /**
   * A copy's bytes, a slice per call, so the store worker answers reads between them. After the
   * first, each call carries one buffer of the whole copy to the store worker, which writes its slice
   * into it and sends it back; the search worker then searches it as it is. (A new buffer per slice,
   * joined there, held the copy twice in the search worker and left 8 MiB of garbage here.)
   */
  private async fetchCopy(outputId: string): Promise<{ parts: Uint8Array[]; totalBytes: number; complete: boolean }> {
    const first = await this.call('slice', [outputId, 0, SLICE_BYTES]);
    let { totalBytes, complete } = first;
    if (totalBytes <= first.bytes.length) return { parts: [first.bytes], totalBytes, complete };
    let copy: Uint8Array = new Uint8Array(totalBytes);
    copy.set(first.bytes);
    for (let from = SLICE_BYTES; from < totalBytes; from += SLICE_BYTES) {
      const slice = await this.call('slice', [outputId, from, from + SLICE_BYTES, copy], { transfer: [copy.buffer as ArrayBuffer] });
      ({ totalBytes, complete } = slice);
      copy = slice.bytes;
    }
    return { parts: [copy], totalBytes, complete };
  }

  /** The whole copy, as a Buffer over the bytes the worker transferred (no copy on this thread). */
  async readAll(outputId: string): Promise<Buffer> {
    const bytes = await this.call('readAll', [outputId]);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /**
   * Like `SessionStore.annotate`. `extra` is checked here, and its JSON form sent, so what the
   * worker merges is what the caller passed (a structured clone would turn a class instance plain).
   */
  async annotate(outputId: string, extra: Record<string, unknown>): Promise<void> {
    this.ensureOpen();
    return this.call('annotate', [outputId, checkAnnotation(extra)]);
  }

  /** A new session in the same folder, worker and limits that shares no copies with this one. */
  async fork(): Promise<WorkerStore> {
    this.host.retainRef();
    try {
      const opened = await this.call('fork', [newSessionId()]);
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
    return this.host.call('debugCrash', undefined, [how]);
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
        await this.host.call(op, this.link.handle, []);
      } catch (error) {
        if (!this.unavailable) throw error;
        if (op === 'delete') await fs.rm(this.file, { force: true });
      }
    } finally {
      this.host.detach(this.link);
      this.host.release();
    }
  }

  /** @internal sends `op` for this store (see StoreCalls); `open`, `close`, `delete` go through their own methods. */
  async call<K extends StoreOp>(op: K, args: ArgsOf<K>, options: CallOptions = {}): Promise<ResultOf<K>> {
    this.ensureOpen();
    return this.host.call(op, this.link.handle, args, options);
  }

  private ensureOpen(): void {
    if (this.state === 'open') return;
    const state = this.state === 'deleted' ? 'deleted' : 'closed';
    throw new RecallError(
      'STORE_CLOSED',
      `Session ${this.sessionId} is ${state}; its outputs can no longer be read. Use the current session.`,
    );
  }
}
