/**
 * The store's operation table: one entry per operation a store has across the worker boundary, which
 * says the lane it runs on, how the worker runs it and how the client sends it. Everything else
 * follows from it: the store worker dispatches by it (serveStores.ts), `WorkerStore` has a method per
 * operation from it (workers/workerClient.ts), the read-only view refuses its changes by it, and each
 * operation's arguments and result are its `SessionStore` method's (or its `run`'s) — there is no
 * second list of them.
 *
 * The worker's side:
 * - `lane`: `store`, the store worker, which owns the sql.js database; `search`, the search worker
 *   (search/lane.ts), where `WorkerStore.search` runs each search on a copy it fetches from the store
 *   worker in slices.
 * - `now`: on the store lane, starts the moment it arrives (a short read an interactive reader waits
 *   on). Without it the operation waits in the store worker's queue and starts in turn (worker/serve.ts).
 * - `run`: how the store worker runs it; without one, the `SessionStore` method of the same name, with
 *   the call's arguments.
 * - `changes`: it changes the session, so the read-only view of another process's session
 *   (readOnlySession.ts) refuses it with REFUSED, in these words ("VS Code does not retain outputs in it").
 *
 * The client's side (`WorkerStore`, which sends the call as it is unless the entry says otherwise;
 * bytes that come back alone come back as a Buffer over them):
 * - `method: false`: no method of a store (`openWorkerStore` sends it).
 * - `content`: the first argument is content, which crosses in transferred parts when large
 *   (workers/workerContent.ts); the method takes a last `WorkerRetainOptions`.
 * - `check`: the arguments as the client checks them before sending, once the store is known open.
 * - `opens`: answers a new store in the same worker, which the client wraps as a `WorkerStore`.
 * - `ends`: closes the store (`closes`), or deletes its files too (`deletes`), once, for every caller.
 *
 * A request is `{ id, op, handle?, args }` (worker/serve.ts): `handle` names one of several stores in
 * the worker (the current session, a fork, another session being looked at), handed out by `open` and
 * `fork`, never reused within a worker and meaningless in another. Bytes travel as transferred
 * ArrayBuffers where possible (`retain` content, `slice` and `readAll` results); everything else is
 * plain structured-clone data.
 */
import * as path from 'node:path';
import { RecallError } from '../errors';
import type { OpenReport, RetainMeta } from '../types';
import { collectGarbageInWorker } from '../worker/collectGarbage';
import type { Outcome } from '../worker/serve';
import { checkAnnotation } from './outputRows';
import type { CopyEngines } from './rowReads';
import { handOver, openSessionStore, type SessionStore } from './sessionStore';

/** A store inside one worker. */
export type StoreHandle = number;

/** What the worker needs to open (or create) a session. `sessionId` is always set by the client. */
export interface WorkerOpenOptions {
  dir: string;
  sessionId: string;
  quotaBytes?: number;
  copyBytes?: number;
  journalLimitBytes?: number;
  forkedFrom?: string;
}

/** Content as it crosses to the worker: a string, a Uint8Array, or large content as parts the worker joins. */
export type RetainContent = string | Uint8Array | Uint8Array[];

/** Describes an opened store (reply to `open` and `fork`). */
export interface OpenedStore {
  handle: StoreHandle;
  sessionId: string;
  file: string;
  openReport: OpenReport;
  resumed: boolean;
  copyBytes: number;
  quotaBytes: number;
  journalLimitBytes: number;
}

/** The stores of one worker, as a request's run sees them. */
export interface StoreDesk {
  /** What the worker's stores use of the rooms above the store (see CopyEngines). */
  readonly engines: CopyEngines;
  /** The store the request names by its handle; STORE_CLOSED when there is none. */
  store(): SessionStore;
  /** Gives `store` a handle. */
  register(store: SessionStore): OpenedStore;
  /** Frees the request's handle, handing back its store if it had one. */
  release(): SessionStore | undefined;
}

export interface StoreOpSpec {
  lane: 'store' | 'search';
  now?: true;
  changes?: string;
  run?: (desk: StoreDesk, ...args: never[]) => Promise<Outcome>;
  method?: false;
  content?: true;
  check?: (...args: never[]) => unknown[];
  opens?: true;
  ends?: 'closes' | 'deletes';
}

export const STORE_OPS = {
  open: {
    lane: 'store',
    now: true,
    method: false,
    run: async (desk: StoreDesk, options: WorkerOpenOptions) => ({ result: desk.register(await openSessionStore(options, desk.engines)) }),
  },
  read: { lane: 'store', now: true },
  info: { lane: 'store', now: true },
  list: { lane: 'store', now: true },
  stats: { lane: 'store', now: true },
  retain: { lane: 'store', changes: 'retain outputs in', run: retainJoined, content: true },
  /**
   * Bytes [from, to) of a copy (clamped to it) with its size and completeness: how a search fetches a
   * copy for the search worker, a slice per turn, so reads get through between slices. With `into`
   * (the whole copy's buffer, transferred), the slice is written into it at `from` and it comes back
   * as `bytes`: one buffer travels back and forth instead of a new one per slice.
   */
  slice: { lane: 'store', run: sliceInto },
  /** The bytes come back as a transferred Uint8Array that spans its whole buffer. */
  /** Counts a copy without recorded facts, so it waits its turn like `readAll`. */
  lineFacts: { lane: 'store' },
  /** Scans a whole copy (the inspector's overview), so it waits its turn like `readAll`. */
  notableMarks: { lane: 'store' },
  readAll: {
    lane: 'store',
    run: async (desk: StoreDesk, outputId: string) => {
      // A fresh buffer of exactly these bytes: the store's may be a view shared with its cache.
      const copy = new Uint8Array(await desk.store().readAll(outputId));
      return { result: copy, transfer: [copy.buffer] };
    },
  },
  remove: { lane: 'store', changes: 'remove outputs from' },
  /**
   * `extra` checked and sent in its JSON form, so what the worker merges is what the caller passed (a
   * structured clone would turn a class instance plain); the store checks it again.
   */
  annotate: {
    lane: 'store',
    changes: 'annotate outputs in',
    check: (outputId: string, extra: Record<string, unknown>) => [outputId, checkAnnotation(extra)],
  },
  flush: { lane: 'store' },
  /** A new, empty session in the parent's folder with its limits, under a new session id. */
  fork: {
    lane: 'store',
    opens: true,
    run: async (desk: StoreDesk) => {
      const parent = desk.store();
      const fork = await openSessionStore(
        {
          dir: path.dirname(parent.file),
          quotaBytes: parent.quotaBytes,
          copyBytes: parent.copyBytes,
          journalLimitBytes: parent.journalLimitBytes,
          forkedFrom: parent.sessionId,
        },
        desk.engines,
      );
      return { result: desk.register(fork) };
    },
  },
  /** Closes the store and frees its handle. */
  close: {
    lane: 'store',
    ends: 'closes',
    run: async (desk: StoreDesk) => {
      await desk.release()?.close();
      return { result: undefined };
    },
  },
  /** Deletes the session's files, closes the store and frees its handle. */
  delete: {
    lane: 'store',
    changes: 'delete',
    ends: 'deletes',
    run: async (desk: StoreDesk) => {
      const store = desk.store();
      desk.release();
      await store.delete();
      return { result: undefined };
    },
  },
  search: { lane: 'search' },
  /** @internal test hook: make the worker die the way a crash would (`exit`: process.exit; `throw`: an uncaught exception). */
  debugCrashWorker: {
    lane: 'store',
    now: true,
    run: async (_desk: StoreDesk, how: 'exit' | 'throw' = 'exit') => {
      if (how === 'exit') process.exit(70);
      setImmediate(() => {
        throw new Error('store worker crashed on purpose (debugCrashWorker)');
      });
      return { result: undefined };
    },
  },
} satisfies Record<string, StoreOpSpec>;

export type StoreOps = typeof STORE_OPS;
export type StoreOp = keyof StoreOps;

/** An operation's arguments: its `run`'s after the desk, else its `SessionStore` method's. */
export type ArgsOf<K extends StoreOp> = StoreOps[K] extends { run: (desk: StoreDesk, ...args: infer A) => unknown }
  ? A
  : K extends keyof SessionStore
    ? SessionStore[K] extends (...args: infer A) => unknown
      ? A
      : never
    : never;

/** An operation's result: its `run`'s, else its `SessionStore` method's. */
export type ResultOf<K extends StoreOp> = StoreOps[K] extends { run: (...args: never[]) => Promise<Outcome<infer R>> }
  ? R
  : K extends keyof SessionStore
    ? SessionStore[K] extends (...args: never[]) => Promise<infer R>
      ? R
      : never
    : never;

/**
 * Compile-time check: an entry without a `run` names a `SessionStore` method (else its arguments and
 * result would silently be `never`). The type names the entries that do not.
 */
export type EntriesWithoutMethod = NeverElse<
  { [K in StoreOp]: StoreOps[K] extends { run: unknown } ? never : K extends keyof SessionStore ? never : K }[StoreOp]
>;
type NeverElse<T extends never> = T;

/** Every operation's arguments and result, as the worker host carries them. */
export type StoreOpShapes = { [K in StoreOp]: { args: ArgsOf<K>; result: ResultOf<K> } };

/** The operations that change a session: a read-only view refuses them. */
export type ChangeOp = { [K in StoreOp]: StoreOps[K] extends { changes: string } ? K : never }[StoreOp];
export const CHANGE_OPS = (Object.keys(STORE_OPS) as StoreOp[]).filter((op): op is ChangeOp => 'changes' in STORE_OPS[op]);

/** How the store worker runs `op`, or undefined when it does not (not an operation, or another lane's). */
export function storeRun(op: string): { now: boolean; run: (desk: StoreDesk, args: unknown[]) => Promise<Outcome> } | undefined {
  if (!Object.hasOwn(STORE_OPS, op)) return undefined;
  const spec: StoreOpSpec = STORE_OPS[op as StoreOp];
  if (spec.lane !== 'store') return undefined;
  const run = spec.run as ((desk: StoreDesk, ...args: unknown[]) => Promise<Outcome>) | undefined;
  return {
    now: spec.now === true,
    run: run
      ? (desk, args) => run(desk, ...args)
      : async (desk, args) => {
          const store = desk.store() as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
          return { result: await store[op](...args) };
        },
  };
}

async function retainJoined(desk: StoreDesk, content: RetainContent, meta?: RetainMeta) {
  const store = desk.store();
  // Bytes that arrived by message are the worker's own (cloned or transferred), and parts are joined
  // into a buffer of its own: either is handed over, so the store need not copy it again.
  const whole =
    content instanceof Uint8Array
      ? handOver(content)
      : Array.isArray(content) && content.every((part) => part instanceof Uint8Array)
        ? handOver(Buffer.concat(content))
        : content;
  try {
    return { result: await store.retain(whole as string | Uint8Array, meta) };
  } finally {
    // The copy is in the journal now; its parts and the joined buffer are garbage V8 would keep for
    // a while. Counted once this request is answered: until then they are still referenced from here.
    if (Array.isArray(content) && whole instanceof Uint8Array) setImmediate(collectGarbageInWorker, 2 * whole.byteLength);
  }
}

async function sliceInto(desk: StoreDesk, outputId: string, from: number, to: number, into?: Uint8Array) {
  const slice = await desk.store().slice(outputId, from, to);
  if (into && (!(into instanceof Uint8Array) || into.length !== slice.totalBytes))
    throw new RecallError('INVALID_ARGUMENT', `slice: "into" must be a Uint8Array of the copy's ${slice.totalBytes} bytes.`);
  // Into the caller's buffer, or a fresh one of exactly these bytes: the store's may be a view of its cache.
  const bytes = into ?? new Uint8Array(slice.bytes.length);
  bytes.set(slice.bytes, into ? from : 0);
  // A slice leaves about twice its size of garbage (the chunks read, joined): collected every few
  // MiB, not left for V8 to take only under pressure.
  collectGarbageInWorker(2 * slice.bytes.length);
  return { result: { ...slice, bytes }, transfer: [bytes.buffer as ArrayBuffer] };
}
