/**
 * A file an agent saved an oversized result to, read for a retained copy: VS Code's terminal tool
 * (vscodeSpillFiles.ts: kept in the session, the output outlives the chat), Copilot CLI's and
 * Claude Code's saved results (the hooks, src/mcp/hook.ts).
 *
 * The file opens under the read tools' policy (readablePath.ts: no link out, no FIFO, no hard link,
 * nothing sensitive, a saved result owned by this user). Past the copy cap only its head and tail are
 * read, the bytes between counted as dropped where they were, as a capture keeps a command's output:
 * the store never holds more than its cap, and a 200 MB file is never read whole into memory.
 *
 * The copy is masked (secretShapes.ts) before anyone sees it: read_file_page masks the same file, so
 * a copy of it read back raw by outputId would be a way around that. docs/security.md ("Which text is masked") has the table
 * of which copies are masked and which are raw.
 */
import type { promises as fs } from 'node:fs';
import { lastCompleteBoundary } from '../utf8';
import type { RetainMeta } from '../types';
import { openReadableFile, type ReadPolicy } from './readablePath';
import { SecretStream } from './secretStream';
import { ENCODING_SNIFF_BYTES, maskText, sniffEncoding } from './textEncoding';

declare const maskedBrand: unique symbol;
/** Bytes that went through `maskCopy` or `streamMasked`: what a hook may send to a server or show a model. */
export type MaskedCopy = Buffer & { readonly [maskedBrand]: true };

export interface SpillCopy {
  /** The bytes to retain, masked: the whole file, or its head and tail joined at `meta.gapOffset`. */
  content: MaskedCopy;
  meta: Pick<RetainMeta, 'complete' | 'droppedBytes' | 'gapOffset'>;
  /** The file's size when read. */
  fileBytes: number;
  /** Secret-shaped values masked in it. */
  masked: number;
}

/**
 * Masks `content` in place, as the read tools mask a file of its encoding (UTF-8 or UTF-16, from its
 * first bytes): the head before `gapOffset` as text from its start, the tail after it as text whose
 * start is not known (a key block cut by the gap is masked up to its END line), lying at `tailOffset`
 * in the file (which decides where its UTF-16 units begin).
 */
export function maskCopy(content: Buffer, gapOffset?: number, tailOffset = gapOffset): { content: MaskedCopy; masked: number } {
  const encoding = sniffEncoding(content.subarray(0, ENCODING_SNIFF_BYTES));
  const gap = gapOffset ?? content.length;
  let masked = maskText(content.subarray(0, gap), false, encoding, 0).length;
  if (gap < content.length) masked += maskText(content.subarray(gap), 'unknown', encoding, tailOffset ?? gap).length;
  return { content: content as MaskedCopy, masked };
}

/** Reads `file` (an absolute path) for a masked copy of at most `copyBytes` bytes; throws the read tools' RecallError for a file they refuse. */
export async function readSpillForCopy(file: string, policy: ReadPolicy, copyBytes: number, tool: string): Promise<SpillCopy> {
  const opened = await openReadableFile(file, policy, tool);
  try {
    const size = opened.stats.size;
    if (size <= copyBytes) {
      const whole = await readAt(opened.handle, 0, size);
      return { ...maskCopy(whole), meta: {}, fileBytes: size };
    }
    const half = Math.floor(copyBytes / 2);
    const head = await readAt(opened.handle, 0, half);
    const tail = await readAt(opened.handle, size - half, half);
    // Whole characters only: the head ends and the tail starts on a character's first byte.
    const headEnd = lastCompleteBoundary(head, head.length);
    let tailStart = 0;
    while (tailStart < Math.min(3, tail.length) && (tail[tailStart] & 0xc0) === 0x80) tailStart++;
    const joined = Buffer.concat([head.subarray(0, headEnd), tail.subarray(tailStart)]);
    return {
      ...maskCopy(joined, headEnd, size - half + tailStart),
      meta: { complete: false, droppedBytes: size - joined.length, gapOffset: headEnd },
      fileBytes: size,
    };
  } finally {
    await opened.handle.close();
  }
}

/**
 * The whole file behind `handle`, masked as it streams past (secretStream.ts: the same bytes as one
 * pass), handed to `each` `chunkBytes` at a time, for a file of any size. Returns the values masked.
 */
export async function streamMasked(handle: fs.FileHandle, chunkBytes: number, each: (masked: MaskedCopy) => void): Promise<number> {
  const secrets = new SecretStream();
  const buffer = Buffer.allocUnsafe(chunkBytes);
  for (let position = 0; ;) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) break;
    each(secrets.push(buffer.subarray(0, bytesRead)) as MaskedCopy);
    position += bytesRead;
  }
  each(secrets.end() as MaskedCopy);
  return secrets.masked;
}

async function readAt(handle: fs.FileHandle, position: number, length: number): Promise<Buffer> {
  const bytes = Buffer.alloc(length);
  const { bytesRead } = await handle.read(bytes, 0, length, position);
  return bytes.subarray(0, bytesRead);
}
