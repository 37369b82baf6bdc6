/**
 * The content of copies journalled since the last checkpoint. It is not kept in memory: a retain's
 * record is read back from its journal file when a page is asked for, and by the checkpoint that
 * writes it into segments. So the store holds no copy for longer than the retain and the checkpoint
 * that handle it, however many arrive between checkpoints. (Copies replayed at open are in memory
 * already, as the journal was read whole, and stay there until their checkpoint.)
 */
import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';

/** Bytes of one pending copy. */
export interface PendingContent {
  readonly length: number;
  /** Bytes [from, to), clamped to the content. */
  read(from: number, to: number): Buffer;
}

export const inMemory = (bytes: Buffer): PendingContent => ({
  length: bytes.length,
  read: (from, to) => bytes.subarray(from, to),
});

/** One journal file, open for reading (the descriptor follows it through its rotation's rename). */
interface JournalFile {
  fd: number | undefined;
  path: string;
}

/** Descriptors of the journal files that hold pending copies' content. */
export class JournalSpans {
  private current: JournalFile | undefined;
  private readonly open = new Set<JournalFile>();

  constructor(private readonly journalPath: string) {}

  /** The content of a record just appended to the current journal, `offset` bytes into the file. */
  span(offset: number, length: number): PendingContent {
    const file = this.currentFile();
    const content: PendingContent = {
      length,
      read: (from, to) => {
        const end = Math.min(to, length);
        const bytes = Buffer.allocUnsafe(Math.max(0, end - from));
        if (file.fd === undefined) throw new Error(`the journal ${file.path} holding this copy was closed`);
        let done = 0;
        while (done < bytes.length) {
          const got = readSync(file.fd, bytes, done, bytes.length - done, offset + from + done);
          if (got === 0) throw new Error(`the journal ${file.path} ends before this copy's content`);
          done += got;
        }
        return bytes;
      },
    };
    SPAN_FILES.set(content, file);
    return content;
  }

  /** The current journal was renamed away (a rotation): the next record starts a new file. */
  rotated(): void {
    this.current = undefined;
  }

  /** Closes the rotated journals no pending copy reads from any more. */
  release(stillNeeded: Iterable<PendingContent>): void {
    const needed = new Set<JournalFile>();
    for (const content of stillNeeded) {
      const file = SPAN_FILES.get(content);
      if (file) needed.add(file);
    }
    for (const file of this.open) {
      if (file === this.current || needed.has(file)) continue;
      this.close(file);
    }
  }

  closeAll(): void {
    for (const file of this.open) this.close(file);
    this.current = undefined;
  }

  private close(file: JournalFile): void {
    if (file.fd !== undefined) closeSync(file.fd);
    file.fd = undefined;
    this.open.delete(file);
  }

  private currentFile(): JournalFile {
    // The writer starts a new file when the path stopped naming its own (removed or replaced): follow it.
    if (this.current?.fd !== undefined && fstatSync(this.current.fd).ino !== statSync(this.journalPath).ino) this.current = undefined;
    if (!this.current) {
      this.current = { fd: openSync(this.journalPath, 'r'), path: this.journalPath };
      this.open.add(this.current);
    }
    return this.current;
  }
}

/** Which journal file a span reads (for release). */
const SPAN_FILES = new WeakMap<PendingContent, JournalFile>();
