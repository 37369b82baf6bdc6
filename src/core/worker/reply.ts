/**
 * The reply envelope both worker lanes use (the store's, worker/serve.ts, and the search's,
 * search/protocol.ts): every request gets exactly one reply with its \`id\`, a result or an error.
 */
import type { RecallErrorCode } from '../errors';

/**
 * An error as it crosses the thread boundary. `code` is set for a `RecallError` (the client
 * rebuilds a real `RecallError` with the same code, message and details); without it the error
 * was unexpected and is rebuilt as a plain `Error` with the same name and message.
 */
export interface SerializedError {
  code?: RecallErrorCode;
  name: string;
  message: string;
  details?: Record<string, unknown>;
  /** A system error's own code (`ENOENT`, `EACCES`, …), so the caller maps it without reading the message. */
  errno?: string;
  /** The worker-side stack, for logs. */
  stack?: string;
}

export interface OkReply {
  id: number;
  ok: true;
  result: unknown;
}

export interface ErrorReply {
  id: number;
  ok: false;
  error: SerializedError;
}

export type WorkerReply = OkReply | ErrorReply;

export const isReply = (message: unknown): message is WorkerReply =>
  typeof message === 'object' &&
  message !== null &&
  typeof (message as WorkerReply).id === 'number' &&
  typeof (message as WorkerReply).ok === 'boolean';
