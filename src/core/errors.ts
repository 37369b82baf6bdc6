/**
 * The one error class the engine throws. `code` is stable (callers and tests switch on it);
 * `message` is written for a language model: what went wrong and the call that would work.
 */
export type RecallErrorCode =
  | 'NOT_FOUND'
  | 'EVICTED'
  | 'MID_CHARACTER_OFFSET'
  | 'OFFSET_OUT_OF_RANGE'
  | 'INVALID_ARGUMENT'
  | 'STORE_UNAVAILABLE'
  | 'STORE_CLOSED'
  | 'COMMAND_FAILED'
  /** Well formed, but policy refuses it: a sensitive file, a path outside the workspace, an untrusted workspace, a feature turned off. */
  | 'REFUSED'
  /** The work ran out of its time limit and was stopped (e.g. a regular expression that backtracks without end). */
  | 'TIMEOUT'
  /** The caller cancelled the work (a cancelled tool call, an aborted signal) before it finished. */
  | 'CANCELLED';

export class RecallError extends Error {
  override readonly name = 'RecallError';

  constructor(
    readonly code: RecallErrorCode,
    message: string,
    /** Machine-readable facts behind the message (e.g. the nearest boundaries). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export function isRecallError(value: unknown, code?: RecallErrorCode): value is RecallError {
  return value instanceof RecallError && (code === undefined || value.code === code);
}

/** A short, single-line description of any thrown value, for messages and logs. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}
