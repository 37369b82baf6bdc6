/**
 * The store worker: runs session stores (sql.js, synchronous) on a `worker_threads` thread so the
 * caller's thread never waits on the database. Bundled as `dist/storeWorker.js`; started by
 * `workerClient.ts`. From sources it runs under tsx: `new Worker('…/worker.ts', { execArgv:
 * ['--require', require.resolve('tsx/cjs')] })`.
 *
 * It holds any number of stores, each under a handle (see `workerProtocol.ts`), and answers every
 * request with exactly one reply. Requests run concurrently, as they would on a `SessionStore`
 * shared by several callers; the store itself orders its writes.
 *
 * Two lanes, so a page read never waits behind long work: reads and lookups (`read`, `info`,
 * `list`, `stats`, `open`) start the moment they arrive; everything else (retains, copy slices for
 * searches, whole copies, flushes, removals, annotations, forks, closes) waits in one queue, in
 * order, and starts one per turn of the event loop, so reads that arrive meanwhile go first. The same
 * script, started with `workerData.role` "search", is the search worker instead (search/service.ts).
 */
import * as path from 'node:path';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { RecallError } from '../errors';
import { scanFile } from '../files/fileSearch';
import { serveSearches } from '../search/service';
import { collectGarbageInWorker } from '../worker/collectGarbage';
import { handOver, openStore, type SessionStore } from './sessionStore';
import { serializeError } from '../worker/errors';
import type { OpenedStore, RequestOf, StoreHandle, WorkerOp, WorkerReply, WorkerRequest } from './workerProtocol';

type Port = Pick<MessagePort, 'on' | 'postMessage'>;

interface Outcome {
  result: unknown;
  transfer?: ArrayBuffer[];
}

/** Serves store requests arriving on `port` (the worker's `parentPort`). */
export function serveStores(port: Port): void {
  const stores = new Map<StoreHandle, SessionStore>();
  let nextHandle = 1;

  const register = (store: SessionStore): OpenedStore => {
    const handle = nextHandle++;
    stores.set(handle, store);
    const { sessionId, file, openReport, resumed, copyBytes, quotaBytes, journalLimitBytes } = store;
    return { handle, sessionId, file, openReport, resumed, copyBytes, quotaBytes, journalLimitBytes };
  };

  const storeOf = (handle: StoreHandle): SessionStore => {
    const store = stores.get(handle);
    if (!store)
      throw new RecallError('STORE_CLOSED', 'This session store is closed; its outputs can no longer be read. Use the current session.');
    return store;
  };

  const handlers: { [K in WorkerOp]: (request: RequestOf<K>) => Promise<Outcome> } = {
    open: async ({ options }) => ({ result: register(await openStore(options)) }),
    retain: async ({ handle, content, meta }) => {
      const store = storeOf(handle);
      // Joined into a buffer of the worker's own, handed over: the store need not copy it again.
      const whole =
        Array.isArray(content) && content.every((part) => part instanceof Uint8Array) ? handOver(Buffer.concat(content)) : content;
      try {
        return { result: await store.retain(whole as string | Uint8Array, meta) };
      } finally {
        // The copy is in the journal now; its parts and the joined buffer are garbage V8 would keep for
        // a while. Counted once this request is answered: until then they are still referenced from here.
        if (Array.isArray(content) && whole instanceof Uint8Array) setImmediate(collectGarbageInWorker, 2 * whole.byteLength);
      }
    },
    read: async ({ handle, outputId, offset, maxBytes }) => ({ result: await storeOf(handle).read(outputId, offset, maxBytes) }),
    slice: async ({ handle, outputId, from, to, into }) => {
      const slice = await storeOf(handle).slice(outputId, from, to);
      if (into && (!(into instanceof Uint8Array) || into.length !== slice.totalBytes))
        throw new RecallError('INVALID_ARGUMENT', `slice: "into" must be a Uint8Array of the copy's ${slice.totalBytes} bytes.`);
      // Into the caller's buffer, or a fresh one of exactly these bytes: the store's may be a view of its cache.
      const bytes = into ?? new Uint8Array(slice.bytes.length);
      bytes.set(slice.bytes, into ? from : 0);
      // A slice leaves about twice its size of garbage (the chunks read, joined): collected every few
      // MiB, not left for V8 to take only under pressure.
      collectGarbageInWorker(2 * slice.bytes.length);
      return { result: { ...slice, bytes }, transfer: [bytes.buffer as ArrayBuffer] };
    },
    readAll: async ({ handle, outputId }) => {
      const bytes = await storeOf(handle).readAll(outputId);
      // A fresh buffer of exactly these bytes: the store's may be a view shared with its cache.
      const copy = new Uint8Array(bytes);
      return { result: copy, transfer: [copy.buffer] };
    },
    info: async ({ handle, outputId }) => ({ result: await storeOf(handle).info(outputId) }),
    list: async ({ handle }) => ({ result: await storeOf(handle).list() }),
    stats: async ({ handle }) => ({ result: await storeOf(handle).stats() }),
    remove: async ({ handle, outputId }) => ({ result: await storeOf(handle).remove(outputId) }),
    annotate: async ({ handle, outputId, extra }) => ({ result: await storeOf(handle).annotate(outputId, extra) }),
    flush: async ({ handle }) => ({ result: await storeOf(handle).flush() }),
    close: async ({ handle }) => {
      const store = stores.get(handle);
      stores.delete(handle);
      await store?.close();
      return { result: undefined };
    },
    delete: async ({ handle }) => {
      const store = storeOf(handle);
      stores.delete(handle);
      await store.delete();
      return { result: undefined };
    },
    fork: async ({ handle, sessionId }) => {
      const parent = storeOf(handle);
      const fork = await openStore({
        dir: path.dirname(parent.file),
        sessionId,
        quotaBytes: parent.quotaBytes,
        copyBytes: parent.copyBytes,
        journalLimitBytes: parent.journalLimitBytes,
        forkedFrom: parent.sessionId,
      });
      return { result: register(fork) };
    },
    debugCrash: async ({ how }) => {
      if (how === 'exit') process.exit(70);
      setImmediate(() => {
        throw new Error('store worker crashed on purpose (debugCrash)');
      });
      return { result: undefined };
    },
  };

  const reply = (message: WorkerReply, transfer?: ArrayBuffer[]): void => {
    try {
      port.postMessage(message, transfer);
    } catch (error) {
      // A result or details that cannot be cloned: answer with an error rather than never.
      port.postMessage({ id: message.id, ok: false, error: serializeError(error) } satisfies WorkerReply);
    }
  };

  port.on('message', (request: WorkerRequest) => {
    if (typeof request?.id !== 'number') return;
    const op = request.op;
    const handler =
      typeof op === 'string' && Object.hasOwn(handlers, op) ? (handlers[op] as (request: WorkerRequest) => Promise<Outcome>) : undefined;
    if (!handler) {
      reply({
        id: request.id,
        ok: false,
        error: serializeError(new RecallError('INVALID_ARGUMENT', `The store worker has no operation "${String(request.op)}".`)),
      });
      return;
    }
    const start = (): void => {
      handler(request).then(
        ({ result, transfer }) => reply({ id: request.id, ok: true, result }, transfer),
        (error: unknown) => reply({ id: request.id, ok: false, error: serializeError(error) }),
      );
    };
    if (IMMEDIATE.has(op)) start();
    else later(start);
  });

  /** The queue of long work: one start per turn of the event loop. */
  const queue: (() => void)[] = [];
  const later = (start: () => void): void => {
    queue.push(start);
    if (queue.length === 1) setImmediate(startNext);
  };
  const startNext = (): void => {
    (queue.shift() as () => void)();
    if (queue.length > 0) setImmediate(startNext);
  };
}

/** Operations that start as soon as they arrive: short, and what an interactive reader waits on. */
const IMMEDIATE = new Set<WorkerOp>(['read', 'info', 'list', 'stats', 'open', 'debugCrash']);

if (parentPort) {
  if ((workerData as { role?: string } | null)?.role === 'search') serveSearches(parentPort, scanFile);
  else serveStores(parentPort);
}
