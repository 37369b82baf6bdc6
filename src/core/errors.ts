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
  | 'CANCELLED'
  /** Something failed that no other code describes (the system ran out of a resource, or a bug); the message is the cause. */
  | 'INTERNAL';

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

/** How much of an input a message repeats: enough to recognise it, never the whole of a huge one. */
export const ECHO_CHARS = 200;

/**
 * `text` as a message may repeat it: whole when short, else its first `max` characters and how many
 * more there were. Inputs echoed in errors go through this, so a 1 MB argument never comes back as a
 * 1 MB error.
 */
export function clipEcho(text: string, max: number = ECHO_CHARS): string {
  if (text.length <= max) return text;
  // Never end on the first half of a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(text[max - 1]) ? max - 1 : max;
  return `${text.slice(0, end)}… (${text.length - end} more characters)`;
}
