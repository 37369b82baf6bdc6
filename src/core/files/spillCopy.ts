/**
 * A file VS Code saved an oversized result to, read for a retained copy. VS Code's terminal tool
 * writes the whole output of a command over 20,000 characters to such a file and deletes it when the
 * chat session ends (vscodeSpillFiles.ts): kept in the session, the output outlives the chat, shows in
 * the inspector, and reads by outputId like any other.
 *
 * The file opens under the read tools' policy (readablePath.ts: no link out, no FIFO, no hard link,
 * nothing sensitive). Past the copy cap only its head and tail are read, the bytes between counted as
 * dropped where they were, as a capture keeps a command's output: the store never holds more than
 * its cap, and a 200 MB file is never read whole into memory.
 */
import type { promises as fs } from 'node:fs';
import { lastCompleteBoundary } from '../utf8';
import type { RetainMeta } from '../types';
import { openReadableFile, type ReadPolicy } from './readablePath';

export interface SpillCopy {
  /** The bytes to retain: the whole file, or its head and tail joined at `meta.gapOffset`. */
  content: Buffer;
  meta: Pick<RetainMeta, 'complete' | 'droppedBytes' | 'gapOffset'>;
  /** The file's size when read. */
  fileBytes: number;
}

/** Reads `file` (an absolute path) for a copy of at most `copyBytes` bytes; throws the read tools' RecallError for a file they refuse. */
export async function readSpillForCopy(file: string, policy: ReadPolicy, copyBytes: number, tool: string): Promise<SpillCopy> {
  const opened = await openReadableFile(file, policy, tool);
  try {
    const size = opened.stats.size;
    if (size <= copyBytes) {
      const content = Buffer.alloc(size);
      const { bytesRead } = await opened.handle.read(content, 0, size, 0);
      return { content: content.subarray(0, bytesRead), meta: {}, fileBytes: size };
    }
    const half = Math.floor(copyBytes / 2);
    const head = await readAt(opened.handle, 0, half);
    const tail = await readAt(opened.handle, size - half, half);
    // Whole characters only: the head ends and the tail starts on a character's first byte.
    const headEnd = lastCompleteBoundary(head, head.length);
    let tailStart = 0;
    while (tailStart < Math.min(3, tail.length) && (tail[tailStart] & 0xc0) === 0x80) tailStart++;
    const content = Buffer.concat([head.subarray(0, headEnd), tail.subarray(tailStart)]);
    return { content, meta: { complete: false, droppedBytes: size - content.length, gapOffset: headEnd }, fileBytes: size };
  } finally {
    await opened.handle.close();
  }
}

async function readAt(handle: fs.FileHandle, position: number, length: number): Promise<Buffer> {
  const bytes = Buffer.alloc(length);
  const { bytesRead } = await handle.read(bytes, 0, length, position);
  return bytes.subarray(0, bytesRead);
}
