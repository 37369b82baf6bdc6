/**
 * Line numbers for byte offsets of a retained copy, without keeping the copy in memory.
 *
 * The index keeps block starts and the newlines before each (two small arrays). The line at an
 * offset is then the count at its block plus the newlines in short reads from the block start,
 * which hit the store's chunk cache like the page read they go with. The counts are the copy's line
 * facts (`lineFacts`, blocks of 16 KiB): recorded with it at retain, or for an older copy counted by
 * the store where it runs, so this thread never reads a copy whole for them. (An index of every
 * 1000th newline would need an unbounded read when lines are long.)
 */
import { isRecallError } from '../../core/errors';
import { DEFAULT_LIMITS } from '../../core/limits';
import type { LineFacts, RecallStore } from '../../core/types';

export interface LineIndex {
  totalBytes: number;
  /** Lines in the copy: newlines, plus one for a last line without a newline. */
  totalLines: number;
  /** blockStart[k]: where block k starts (it may start inside a character); newlinesBefore[k]: '\n' bytes in [0, blockStart[k]). */
  blockStart: ArrayLike<number>;
  newlinesBefore: ArrayLike<number>;
}

export function lineIndexOf(facts: LineFacts): LineIndex {
  return {
    totalBytes: facts.totalBytes,
    totalLines: facts.lines,
    blockStart: Float64Array.from(facts.before, (_, k) => k * facts.blockBytes),
    newlinesBefore: Float64Array.from(facts.before),
  };
}

/** The block whose start is the greatest at or before `offset`. */
function blockOf(index: LineIndex, offset: number): number {
  let low = 0;
  let high = index.blockStart.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (index.blockStart[mid] <= offset) low = mid;
    else high = mid - 1;
  }
  return low;
}

/**
 * 1-based line that contains byte `offset` (a character boundary). At the very end of a copy that
 * ends with a newline, that is the last line, not a phantom empty one after it.
 */
export async function lineAt(index: LineIndex, store: RecallStore, outputId: string, offset: number): Promise<number> {
  if (index.totalBytes === 0 || index.blockStart.length === 0) return 1;
  const k = blockOf(index, offset);
  let newlines = index.newlinesBefore[k];
  for (let at = index.blockStart[k]; at < offset;) {
    let page;
    try {
      page = await store.read(outputId, at, Math.min(DEFAULT_LIMITS.pageBytes, offset - at));
    } catch (error) {
      // A recorded block may start inside a character, whose bytes hold no newline: count from its end.
      if (at !== index.blockStart[k] || !isRecallError(error, 'MID_CHARACTER_OFFSET')) throw error;
      at = Number(error.details.after);
      continue;
    }
    newlines += countChar(page.text, '\n');
    if (page.nextOffset <= at) break;
    at = page.nextOffset;
  }
  const line = newlines + 1;
  return Math.min(line, Math.max(1, index.totalLines));
}

export function countChar(text: string, char: string): number {
  let count = 0;
  for (let at = text.indexOf(char); at >= 0; at = text.indexOf(char, at + 1)) count++;
  return count;
}

/**
 * Keeps what was computed for the last few opened outputs (their line index, a rebuilt preview);
 * a computation runs once however many requests ask for it at the same time.
 */
export class PromiseCache<T> {
  private readonly entries = new Map<string, Promise<T>>();

  constructor(private readonly capacity = 8) {}

  get(key: string, build: () => Promise<T>): Promise<T> {
    let entry = this.entries.get(key);
    if (entry) {
      this.entries.delete(key);
    } else {
      const created = build();
      // A failed build (evicted meanwhile, store closed) must not stick.
      created.catch(() => {
        if (this.entries.get(key) === created) this.entries.delete(key);
      });
      entry = created;
    }
    this.entries.set(key, entry);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
    return entry;
  }

  forget(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
