/**
 * The messages between `workerClient.ts` (the caller's thread) and `worker.ts` (the store worker).
 *
 * Every request carries an `id`, unique per worker, and gets exactly one reply with that `id`: a
 * result or a serialized error. A store inside the worker is named by a `handle` (a small integer
 * the worker hands out on `open`/`fork`), so one worker can hold several stores (the current
 * session, a fork, an old session being inspected). Handles are not reused within a worker; they
 * are meaningless in another worker (after a restart the client reopens its stores and gets new
 * handles).
 *
 * Bytes travel as transferred ArrayBuffers where possible: `retain` content (when the caller
 * allows it), `readAll` and `slice` results. Everything else is plain structured-clone data.
 * Searches do not come here: they run on the search worker (search/protocol.ts).
 */
import type { OpenReport, OutputInfo, ReadResult, RetainMeta, RetainResult, StoreStats } from '../types';
import type { CopySlice } from './sessionStore';
import type { WorkerReply } from '../worker/reply';

export type { ErrorReply, OkReply, SerializedError, WorkerReply } from '../worker/reply';
export { isReply } from '../worker/reply';

export type { StoreStats };

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

/** Content as it crosses to the worker (see `retain`). */
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

/** Request bodies by operation, with the result each one replies with. */
export interface WorkerOps {
  open: { args: { options: WorkerOpenOptions }; result: OpenedStore };
  /**
   * `content` is a string, a Uint8Array, or (for large content) the bytes as a list of parts the
   * worker joins; arrays arrive with their buffers transferred.
   */
  retain: { args: { handle: StoreHandle; content: RetainContent; meta?: RetainMeta }; result: RetainResult };
  read: { args: { handle: StoreHandle; outputId: string; offset?: number; maxBytes?: number }; result: ReadResult };
  /**
   * Bytes [from, to) of a copy (clamped to it) with its size and completeness: how a search fetches
   * a copy for the search worker, a slice per turn, so reads get through between slices. With
   * `into` (the whole copy's buffer, transferred), the slice is written into it at `from` and it comes
   * back as `bytes`: one buffer travels back and forth instead of a new one per slice.
   */
  slice: { args: { handle: StoreHandle; outputId: string; from: number; to: number; into?: Uint8Array }; result: CopySlice };
  /** The bytes come back as a transferred Uint8Array that spans its whole buffer. */
  readAll: { args: { handle: StoreHandle; outputId: string }; result: Uint8Array };
  info: { args: { handle: StoreHandle; outputId: string }; result: OutputInfo };
  list: { args: { handle: StoreHandle }; result: OutputInfo[] };
  stats: { args: { handle: StoreHandle }; result: StoreStats };
  remove: { args: { handle: StoreHandle; outputId: string }; result: void };
  /** `extra` as checked and JSON-normalised by the client (the worker checks it again). */
  annotate: { args: { handle: StoreHandle; outputId: string; extra: Record<string, unknown> }; result: void };
  flush: { args: { handle: StoreHandle }; result: void };
  /** Closes the store and frees its handle. */
  close: { args: { handle: StoreHandle }; result: void };
  /** Deletes the session file, closes the store and frees its handle. */
  delete: { args: { handle: StoreHandle }; result: void };
  /** A new, empty session in the parent's folder with its limits; `sessionId` is chosen by the client. */
  fork: { args: { handle: StoreHandle; sessionId: string }; result: OpenedStore };
  /** @internal test hook: make the worker die the way a real failure would. */
  debugCrash: { args: { how: 'exit' | 'throw' }; result: void };
}

export type WorkerOp = keyof WorkerOps;

/** One request: `{ id, op, ...args }`. */
export type WorkerRequest = { [K in WorkerOp]: { id: number; op: K } & WorkerOps[K]['args'] }[WorkerOp];

export type RequestOf<K extends WorkerOp> = Extract<WorkerRequest, { op: K }>;
export type ResultOf<K extends WorkerOp> = WorkerOps[K]['result'];

/** Everything that crosses the boundary, either way. */
export type WorkerMessage = WorkerRequest | WorkerReply;
