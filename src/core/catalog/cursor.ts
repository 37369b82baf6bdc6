/**
 * A page's cursor: where the newest-first order (workers/listedOutput.ts) continues, as an opaque
 * token the model passes back unchanged. Decoding checks every field: a token is the model's input.
 */
import { RecallError } from '../errors';
import { isOutputIdShape, isSessionIdShape } from '../ids';
import type { OutputKey } from '../search/protocol';

export function encodeCursor(key: OutputKey): string {
  const fields = [key.createdAt, key.sessionId, key.outputId, ...(key.from === undefined ? [] : [key.from])];
  return Buffer.from(JSON.stringify(fields)).toString('base64url');
}

/** The key `cursor` names; INVALID_ARGUMENT, saying what to do, when it is no cursor this tool gave. */
export function decodeCursor(cursor: string, tool: string): OutputKey {
  let fields: unknown;
  try {
    fields = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    fields = undefined;
  }
  // A fourth field, a byte offset, continues within that output (a page that filled up inside it).
  if (Array.isArray(fields) && (fields.length === 3 || fields.length === 4)) {
    const [createdAt, sessionId, outputId, from] = fields as unknown[];
    if (
      typeof createdAt === 'number' &&
      Number.isFinite(createdAt) &&
      typeof sessionId === 'string' &&
      isSessionIdShape(sessionId) &&
      typeof outputId === 'string' &&
      isOutputIdShape(outputId) &&
      (from === undefined || (typeof from === 'number' && Number.isSafeInteger(from) && from > 0))
    ) {
      return { createdAt, sessionId, outputId, ...(typeof from === 'number' ? { from } : {}) };
    }
  }
  throw new RecallError(
    'INVALID_ARGUMENT',
    `cursor ${JSON.stringify(cursor.slice(0, 80))} is not one ${tool} gave: pass the "nextCursor" of its last result unchanged, or omit it to start from the newest output.`,
  );
}
