/**
 * A bounded digest of notable lines: deduplicated (a repeated line counts, digits aside), and
 * bounded however many arrive — per class it keeps the first distinct lines for good and the most
 * recently seen others in a small LRU, and counts everything. The first and the last are what a
 * reader ranks first (see `rankNotable`), so they are what is kept.
 *
 * It runs once per notable line of a stream that may be a gigabyte of errors, so it allocates
 * nothing for a repeat: lines are told apart by a hash of their bytes, and an entry's text is
 * decoded only when the digest is finished.
 */
import type { NotableDigest, NotableLine } from '../types';
import { CLASS_RANK, type NotableClass } from './patterns';

/** Distinct lines kept per class: the first ones for good, and the most recent in an LRU. */
export const FIRST_KEPT = 16;
export const RECENT_KEPT = 16;

const CLASSES: readonly NotableClass[] = ['error', 'summary', 'warning'];

/**
 * What a scanner reports for one notable line (or one hit inside a long line): the text to show is
 * `source[start, end)`, undecoded (copied unless the digest was told its sources outlive it), and
 * `source[keyFrom, keyTo)` is what identifies the line among repeats.
 */
export interface NotableHit {
  class: NotableClass;
  line: number;
  offset: number;
  source: Buffer;
  start: number;
  end: number;
  keyFrom: number;
  keyTo: number;
}

interface Held {
  class: NotableClass;
  line: number;
  offset: number;
  bytes: Buffer;
  count: number;
  lastLine: number;
  lastOffset: number;
  /** Order of the latest occurrence, for the LRU. */
  seen: number;
  pinned: boolean;
  /** The key in `held` and a second hash that confirms it (see `hashKey`). */
  key: number;
  check: number;
}

export class DigestBuilder {
  private readonly held: Record<NotableClass, Map<number, Held>> = { error: new Map(), summary: new Map(), warning: new Map() };
  private readonly recent: Record<NotableClass, Held[]> = { error: [], summary: [], warning: [] };
  private readonly pinned: Record<NotableClass, number> = { error: 0, summary: 0, warning: 0 };
  private readonly counts: Record<NotableClass, number> = { error: 0, summary: 0, warning: 0 };
  private distinct = 0;
  private seen = 0;

  /** `stable`: the hits' bytes stay valid and unchanged until `finish` (no copy is made). */
  constructor(private readonly stable = false) {}

  add(hit: NotableHit): void {
    this.counts[hit.class]++;
    this.seen++;
    const [key, check] = hashKey(hit.source, hit.keyFrom, hit.keyTo);
    const held = this.held[hit.class];
    const known = held.get(key);
    if (known && known.check !== check) {
      // Two distinct lines share a 30-bit key (rare, and the second hash tells): count, keep the first.
      this.distinct++;
      return;
    }
    if (known) {
      known.count++;
      known.lastLine = hit.line;
      known.lastOffset = hit.offset;
      known.seen = this.seen;
      return;
    }
    this.distinct++;
    const entry: Held = {
      class: hit.class,
      line: hit.line,
      offset: hit.offset,
      bytes: this.stable ? hit.source.subarray(hit.start, hit.end) : Buffer.from(hit.source.subarray(hit.start, hit.end)),
      count: 1,
      lastLine: hit.line,
      lastOffset: hit.offset,
      seen: this.seen,
      pinned: this.pinned[hit.class] < FIRST_KEPT,
      key,
      check,
    };
    held.set(key, entry);
    if (entry.pinned) {
      this.pinned[hit.class]++;
      return;
    }
    const lru = this.recent[hit.class];
    lru.push(entry);
    if (lru.length > RECENT_KEPT) {
      let oldest = 0;
      for (let i = 1; i < lru.length; i++) if (lru[i].seen < lru[oldest].seen) oldest = i;
      held.delete(lru[oldest].key);
      lru.splice(oldest, 1);
    }
  }

  /** The digest over `[from, to)` (lines `fromLine`..`toLine`), entries in order of appearance. */
  finish(range: Pick<NotableDigest, 'from' | 'to' | 'fromLine' | 'toLine'>, decode: (bytes: Buffer) => string): NotableDigest {
    const lines = CLASSES.flatMap((cls) => [...this.held[cls].values()])
      .sort((a, b) => a.offset - b.offset)
      .map((entry): NotableLine => {
        const line: NotableLine = {
          class: entry.class,
          line: entry.line,
          offset: entry.offset,
          text: decode(entry.bytes),
          count: entry.count,
        };
        if (entry.count > 1) Object.assign(line, { lastLine: entry.lastLine, lastOffset: entry.lastOffset });
        return line;
      });
    return { lines, counts: { ...this.counts }, distinct: this.distinct, ...range };
  }
}

const isDigit = (byte: number): boolean => byte >= 0x30 && byte <= 0x39;
const isHex = (byte: number): boolean => isDigit(byte) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x66);
const isBlank = (byte: number): boolean => byte === 0x20 || byte === 0x09 || byte === 0x0d || byte === 0x2c;

/**
 * Two hashes of `bytes[from, to)` (FNV-1a with different primes; the first cut to 30 bits, a small
 * integer V8 keys a Map with fast) that ignore what varies between repeats of one line: a run of
 * hex digits of 6 or more with a decimal digit among them counts as one `#` (ids, hashes), as does
 * any run of decimal digits (timestamps, counters); indentation and trailing blanks or a comma
 * (JSON) do not count.
 */
export function hashKey(bytes: Buffer, from: number, to: number): [number, number] {
  let start = from;
  let end = to;
  while (start < end && isBlank(bytes[start])) start++;
  while (end > start && isBlank(bytes[end - 1])) end--;
  let a = 0x811c9dc5;
  let b = 0x5bd1e995;
  for (let i = start; i < end;) {
    // Each step mixes one byte: the byte at i, or '#' for a run that stands for a number.
    let byte = bytes[i];
    let next = i + 1;
    if (isHex(byte)) {
      let j = i;
      let digit = false;
      for (; j < end && isHex(bytes[j]); j++) if (isDigit(bytes[j])) digit = true;
      if (digit && j - i >= 6) {
        byte = 0x23;
        next = j;
      } else if (isDigit(byte)) {
        byte = 0x23;
        while (next < j && isDigit(bytes[next])) next++;
      }
    }
    a = Math.imul(a ^ byte, 0x01000193);
    b = Math.imul(b ^ byte, 0x0100019b);
    i = next;
  }
  return [(a >>> 2) & 0x3fffffff, b >>> 0];
}

/**
 * The order a reader needs them in: per class (errors, then summaries, then warnings) the first
 * and the last distinct line come before the rest; then the rest of each class in order. Dropped
 * lines (seen at capture, not in the copy) rank as their class does, placed where the copy's gap
 * is (`gapOffset`). Returns a new array.
 */
export function rankNotable(lines: readonly NotableLine[], gapOffset = 0): NotableLine[] {
  const byPosition = positionOrder(gapOffset);
  const byClass = CLASSES.map((cls) => lines.filter((line) => line.class === cls).sort(byPosition));
  const ends: NotableLine[] = [];
  const rest: NotableLine[] = [];
  for (const list of byClass) {
    if (list.length === 0) continue;
    ends.push(list[0]);
    if (list.length > 1) ends.push(list[list.length - 1]);
    rest.push(...list.slice(1, -1));
  }
  return [...ends, ...rest];
}

/**
 * Order of appearance. A retained line's offset is in the copy; a dropped line's is in the original
 * output, and it sat where the copy now has its gap: so dropped lines sort at `gapOffset`, among
 * themselves by their output offset.
 */
function positionOrder(gapOffset: number): (a: NotableLine, b: NotableLine) => number {
  const at = (line: NotableLine): number => (line.dropped ? gapOffset : line.offset);
  return (a, b) => at(a) - at(b) || (a.dropped ? 1 : 0) - (b.dropped ? 1 : 0) || a.offset - b.offset;
}

/** Sorts a selection for display: by class, then in order of appearance. */
export function displayOrder(lines: readonly NotableLine[], gapOffset = 0): NotableLine[] {
  const byPosition = positionOrder(gapOffset);
  return [...lines].sort((a, b) => CLASS_RANK[a.class] - CLASS_RANK[b.class] || byPosition(a, b));
}
