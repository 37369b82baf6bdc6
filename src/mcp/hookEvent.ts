/**
 * Reading the JSON a hook is handed (an agent's event on stdin) or the door is sent (a request line):
 * bounded in bytes, and in nesting depth before JSON.parse sees it. JSON.parse recurses once per
 * level, so a 5,000,000-deep `[[[…` cost a hook 23 s and 584 MB; one pass over the bytes refuses it
 * at once. No event or request an agent sends comes near the cap.
 */
import { formatBytes } from '../core/limits';

/** The deepest nesting accepted: agents' events nest 4 to 6 levels (tool_response.returnDisplay…), a door request 1. */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Whether the JSON text in `bytes` nests deeper than `cap` (arrays and objects), brackets inside
 * strings not counted. One pass; inside a string it jumps from quote to quote (Buffer.indexOf), a
 * quote after an odd run of backslashes being part of the string. Text that is not JSON is left to
 * JSON.parse to refuse.
 */
export function nestedDeeperThan(bytes: Buffer, cap: number): boolean {
  let depth = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (byte === QUOTE) {
      // The string's end: the next quote not escaped. A backslash run before a quote never reaches
      // back past `from - 1`, which is a quote.
      let from = i + 1;
      for (;;) {
        const quote = bytes.indexOf(QUOTE, from);
        if (quote < 0) return false;
        let backslashes = 0;
        while (quote - backslashes - 1 >= from && bytes[quote - backslashes - 1] === BACKSLASH) backslashes++;
        from = quote + 1;
        if (backslashes % 2 === 0) break;
      }
      i = from - 1;
    } else if (byte === 0x5b || byte === 0x7b) {
      if (++depth > cap) return true;
    } else if (byte === 0x5d || byte === 0x7d) {
      depth--;
    }
  }
  return false;
}

/**
 * The event on `stdin` as an object: refused past `limit` bytes (reading stops there), past
 * MAX_JSON_DEPTH levels (before parsing), and when it is not a JSON object.
 */
export async function readHookEvent(stdin: NodeJS.ReadableStream, limit: number): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of stdin) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array);
    chunks.push(bytes);
    length += bytes.length;
    if (length > limit) throw new Error(`the event on stdin is over ${formatBytes(limit)}; ignored`);
  }
  const bytes = Buffer.concat(chunks);
  if (nestedDeeperThan(bytes, MAX_JSON_DEPTH)) throw new Error(`the event is nested deeper than ${MAX_JSON_DEPTH} levels; ignored`);
  const event: unknown = JSON.parse(bytes.toString('utf8'));
  if (typeof event !== 'object' || event === null || Array.isArray(event)) throw new Error('the event is not a JSON object; ignored');
  return event as Record<string, unknown>;
}
