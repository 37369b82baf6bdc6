/**
 * How `WorkerStore.retain` content crosses to the store worker without blocking the caller's
 * thread: small content as is, large content in transferred parts, one per event-loop turn.
 */
export interface Encoded {
  content: string | Uint8Array | Uint8Array[];
  transfer?: ArrayBuffer[];
}

/** Content up to this size crosses in one piece. */
const INLINE_BYTES = 256 * 1024;
/** Larger content crosses in parts of this many bytes (or UTF-16 units of a string). */
const PART_BYTES = 1024 * 1024;
const PART_CHARS = 512 * 1024;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Turns retain content into what crosses to the worker cheaply. Structured-cloning a large string
 * or array costs this thread tens of ms at 8 MiB; so large content is encoded (strings, to UTF-8)
 * or copied (arrays; the caller keeps theirs) into fresh 1 MiB buffers, one per event-loop turn,
 * and those are transferred. Small content is sent as is (a string) or as an exact copy (an array
 * may be a view of a larger buffer, e.g. Node's Buffer pool, which cloning would copy whole).
 */
export async function encodeContent(content: string | Uint8Array): Promise<Encoded> {
  if (typeof content === 'string') {
    if (content.length <= INLINE_BYTES / 2) return { content };
    const parts: Uint8Array[] = [];
    for (let at = 0; at < content.length;) {
      let end = Math.min(content.length, at + PART_CHARS);
      const last = content.charCodeAt(end - 1);
      if (end < content.length && last >= 0xd800 && last <= 0xdbff) end--; // keep a surrogate pair together
      parts.push(Buffer.from(content.slice(at, end), 'utf8'));
      at = end;
      if (at < content.length) await nextTurn();
    }
    return packParts(parts);
  }
  // new Uint8Array(view) copies; a Node Buffer's slice() would be a view of the caller's memory (or
  // of Node's shared pool), and transferring its buffer would detach the caller's bytes.
  if (content.byteLength <= INLINE_BYTES) {
    const copy = new Uint8Array(content);
    return { content: copy, transfer: [copy.buffer] };
  }
  const parts: Uint8Array[] = [];
  for (let at = 0; at < content.byteLength; at += PART_BYTES) {
    parts.push(new Uint8Array(content.subarray(at, Math.min(content.byteLength, at + PART_BYTES))));
    if (at + PART_BYTES < content.byteLength) await nextTurn();
  }
  return packParts(parts);
}

/** Parts whose buffers can be transferred: Buffer.from may hand back a view of a larger buffer. */
function packParts(parts: Uint8Array[]): Encoded {
  const exact = parts.map((part) =>
    part.byteOffset === 0 && part.byteLength === part.buffer.byteLength && part.buffer instanceof ArrayBuffer ? part : new Uint8Array(part),
  );
  return { content: exact, transfer: exact.map((part) => part.buffer as ArrayBuffer) };
}
