/** Errors as they cross a worker thread boundary, either way (see `SerializedError`). */
import { RecallError, describeError } from '../errors';
import type { SerializedError } from './reply';

export function serializeError(error: unknown): SerializedError {
  if (error instanceof RecallError) {
    return { code: error.code, name: error.name, message: error.message, details: error.details, stack: error.stack };
  }
  if (error instanceof Error) {
    const errno = (error as NodeJS.ErrnoException).code;
    return { name: error.name, message: describeError(error), stack: error.stack, ...(typeof errno === 'string' ? { errno } : {}) };
  }
  return { name: 'Error', message: describeError(error) };
}

/** A real RecallError again (same code, message and details), or a plain Error with the worker's stack appended. */
export function toError(serialized: SerializedError): Error {
  if (serialized.code) return new RecallError(serialized.code, serialized.message, serialized.details ?? {});
  const error = new Error(serialized.message);
  error.name = serialized.name;
  if (serialized.errno) (error as NodeJS.ErrnoException).code = serialized.errno;
  if (serialized.stack) error.stack = `${error.stack}\n    --- in the worker ---\n${serialized.stack}`;
  return error;
}
