/**
 * A session store that lives on a worker thread, so the caller's thread (the VS Code extension
 * host, shared by every extension) never blocks on sql.js: inserting 8 MiB, exporting a 50 MiB
 * database or running a regex over an 8 MiB copy all happen on the workers (workers/entry.ts).
 *
 * `WorkerStore` implements `RecallStore` with the same methods and semantics as `SessionStore`,
 * all async, each made from its entry in the operation table (storeOps.ts); errors from the worker
 * are re-thrown as real `RecallError`s with the same code, message and details.
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
import { toBuffer } from '../bytes';
import type { OpenReport, RecallStore, RetainMeta, SearchOptions, SearchResult } from '../types';
import type { CallOptions } from '../worker/host';
import { defaultWorkerPath } from '../worker/script';
import type { OpenStoreOptions } from '../store/storeOptions';
import {
  STORE_OPS,
  type ArgsOf,
  type OpenedStore,
  type ResultOf,
  type StoreOp,
  type StoreOpSpec,
  type StoreOps,
  type WorkerOpenOptions,
} from '../store/storeOps';
import { encodeContent } from './workerContent';
import { StoreWorkerHost, type StoreLink } from './workerHost';

export { DEFAULT_SEARCH_TIMEOUT_MS };

export interface WorkerStoreOptions extends OpenStoreOptions {
  /**
   * The worker script. Default: `storeWorker.js` beside this module (the bundles in dist/); when
   * running from sources (tsx), `workers/entry.ts`.
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

/** The operations that are methods of `WorkerStore`: every one of the table but `open`'s kind (`method: false`). */
type MethodOp = { [K in StoreOp]: StoreOps[K] extends { method: false } ? never : K }[StoreOp];
const METHOD_OPS = (Object.keys(STORE_OPS) as StoreOp[]).filter((op): op is MethodOp => !('method' in STORE_OPS[op]));
type KindOp<Kind> = { [K in StoreOp]: StoreOps[K] extends Kind ? K : never }[StoreOp];

/** Bytes that come back alone come back as a Buffer over them (no copy on this thread). */
type Received<R> = R extends Uint8Array ? Buffer : R;

/** A method as its entry makes it (see the client's side in storeOps.ts). */
type Method<K extends MethodOp> = StoreOps[K] extends { lane: 'search' }
  ? (outputId: string, pattern: string, options?: WorkerSearchOptions) => Promise<SearchResult>
  : StoreOps[K] extends { content: true }
    ? (content: string | Uint8Array, meta?: RetainMeta, options?: WorkerRetainOptions) => Promise<ResultOf<K>>
    : StoreOps[K] extends { opens: true }
      ? (...args: ArgsOf<K>) => Promise<WorkerStore>
      : (...args: ArgsOf<K>) => Promise<Received<ResultOf<K>>>;

/** `call` sends an operation of the table with its arguments; the methods are made from the table. */
abstract class StoreCalls {
  /** @internal sends `op` for this store (STORE_CLOSED once it is closed). */
  abstract call<K extends StoreOp>(op: K, args: ArgsOf<K>, options?: CallOptions): Promise<ResultOf<K>>;
}
const WithMethods = StoreCalls as abstract new () => StoreCalls & { [K in MethodOp]: Method<K> };

export class WorkerStore extends WithMethods implements RecallStore {
  static {
    for (const op of METHOD_OPS)
      Object.defineProperty(WorkerStore.prototype, op, { value: WorkerStore.methodOf(op), writable: true, configurable: true });
  }

  /** How the method of `op` sends it, as its entry says; a new operation of an existing kind needs no code here. */
  private static methodOf(op: MethodOp): (this: WorkerStore, ...args: never[]) => Promise<unknown> {
    const spec: StoreOpSpec = STORE_OPS[op];
    if (spec.lane === 'search')
      return function (this: WorkerStore, outputId: string, pattern: string, options?: WorkerSearchOptions) {
        return this.searchOnLane(outputId, pattern, options);
      };
    if (spec.content)
      return function (this: WorkerStore, content: string | Uint8Array, meta?: RetainMeta, options?: WorkerRetainOptions) {
        return this.sendContent(op as KindOp<{ content: true }>, content, meta, options);
      };
    if (spec.opens)
      return function (this: WorkerStore, ...args: unknown[]) {
        return this.opened(op as KindOp<{ opens: true }>, args);
      };
    const ends = spec.ends;
    if (ends)
      return function (this: WorkerStore) {
        return this.end(op, ends === 'deletes');
      };
    const check = spec.check as ((...args: unknown[]) => unknown[]) | undefined;
    return async function (this: WorkerStore, ...args: unknown[]) {
      this.ensureOpen();
      const result: unknown = await this.call(op, (check ? check(...args) : args) as ArgsOf<MethodOp>);
      return result instanceof Uint8Array ? toBuffer(result) : result;
    };
  }

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

  /** @internal the worker's thread id (changes when the worker is restarted). */
  get debugWorkerThreadId(): number {
    return this.host.threadId;
  }

  /** @internal sends `op` for this store (see StoreCalls). */
  async call<K extends StoreOp>(op: K, args: ArgsOf<K>, options: CallOptions = {}): Promise<ResultOf<K>> {
    this.ensureOpen();
    return this.host.call(op, this.link.handle, args, options);
  }

  /**
   * `content`: like `SessionStore.retain`. The content is handed to the worker without blocking this
   * thread: large content is encoded and copied in parts (with a turn of the event loop between them)
   * and the parts are transferred, not cloned. Do not modify a Uint8Array until the call settles.
   */
  private sendContent(
    op: KindOp<{ content: true }>,
    content: string | Uint8Array,
    meta?: RetainMeta,
    options: WorkerRetainOptions = {},
  ): Promise<ResultOf<typeof op>> {
    if (
      options.transfer &&
      content instanceof Uint8Array &&
      content.buffer instanceof ArrayBuffer &&
      content.byteOffset === 0 &&
      content.byteLength === content.buffer.byteLength
    ) {
      return this.call(op, [content, meta], { transfer: [content.buffer] });
    }
    if (typeof content !== 'string' && !(content instanceof Uint8Array)) return this.call(op, [content, meta]);
    const encode = async (): Promise<{ args: unknown[]; transfer?: ArrayBuffer[] }> => {
      const { content: parts, transfer } = await encodeContent(content);
      return { args: [parts, meta], transfer };
    };
    return this.call(op, [[] /* set by encode */, meta], { encode });
  }

  /**
   * The search lane: like `SessionStore.search`, on the search worker. `timeoutMs` overrides the
   * store's `callTimeoutMs` for this search (0: no limit); `signal` cancels it (CANCELLED).
   */
  private async searchOnLane(outputId: string, pattern: string, options: WorkerSearchOptions = {}): Promise<SearchResult> {
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

  /** `opens`: a store the worker opened beside this one (a fork), in the same worker and with the same limits. */
  private async opened(op: KindOp<{ opens: true }>, args: unknown[]): Promise<WorkerStore> {
    this.host.retainRef();
    try {
      const opened = await this.call(op, args as ArgsOf<typeof op>);
      return new WorkerStore(this.host, opened, this.callTimeoutMs);
    } catch (error) {
      this.host.release();
      throw error;
    }
  }

  /**
   * `ends`: closes the store once, for every caller (`removes`: and deletes its files). A delete
   * after a close removes the files itself: the worker no longer holds the store.
   */
  private end(op: StoreOp, removes: boolean): Promise<void> {
    const pending = removes ? this.deleting : (this.closing ?? this.deleting);
    if (pending) return pending;
    let ended: Promise<void>;
    if (this.state === 'open') {
      this.state = 'closing';
      ended = this.finish(op, removes);
    } else {
      ended = (this.closing ?? Promise.resolve()).catch(() => undefined).then(() => fs.rm(this.file, { force: true }));
    }
    const settled = ended.then(() => {
      this.state = removes ? 'deleted' : 'closed';
    });
    if (removes) this.deleting = settled;
    else this.closing = settled;
    return settled;
  }

  /** Ends the store in the worker; a failed worker has nothing left to end. */
  private async finish(op: StoreOp, removes: boolean): Promise<void> {
    try {
      if (this.unavailable) {
        if (removes) await fs.rm(this.file, { force: true });
        return;
      }
      try {
        await this.host.call(op, this.link.handle, [] as ArgsOf<typeof op>);
      } catch (error) {
        if (!this.unavailable) throw error;
        if (removes) await fs.rm(this.file, { force: true });
      }
    } finally {
      this.host.detach(this.link);
      this.host.release();
    }
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
