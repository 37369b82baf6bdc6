/**
 * A bounded digest of notable lines: deduplicated (a repeated line counts, digits aside), and
 * bounded however many arrive — per class it keeps the first distinct lines for good and the most
 * recently seen others in a small LRU, and counts everything. The first and the last are what a
 * reader ranks first (see `rankNotable`), so they are what is kept.
 *
 * It runs once per notable line of a stream that may be a gigabyte of errors, so it allocates
 * nothing for a repeat: lines are told apart by a hash of their bytes, and an entry's text is
 * decoded only when the digest is finished. Most lines of a noisy log are distinct, so a line is
 * first told apart by a cheap key (`prefilterKey`), equal for any two lines the hash calls repeats;
 * the hash (`hashKey`) is computed only for a line whose cheap key a held entry shares, and for
 * that entry.
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
  /** The text is `source[start, end)`. */
  source: Buffer;
  start: number;
  end: number;
  count: number;
  lastLine: number;
  lastOffset: number;
  /** Order of the latest occurrence, for the LRU. */
  seen: number;
  pinned: boolean;
  /** The cheap key (`prefilterKey`) of `source[keyFrom, keyTo)`. */
  pre: number;
  keyFrom: number;
  keyTo: number;
  /** The key it is found by, and a second hash that confirms it (see `hashKey`); -1: not computed yet. */
  key: number;
  check: number;
}

/** The hash of the line being added, computed only when a held entry shares its cheap key. */
const UNHASHED = -1;

export class DigestBuilder {
  /**
   * The entries held per class, at most FIRST_KEPT + RECENT_KEPT, each key once: a scan of their
   * keys is cheaper than a Map's upkeep for a stream of distinct lines.
   */
  private readonly held: Record<NotableClass, Held[]> = { error: [], summary: [], warning: [] };
  private readonly recent: Record<NotableClass, Held[]> = { error: [], summary: [], warning: [] };
  private readonly pinned: Record<NotableClass, number> = { error: 0, summary: 0, warning: 0 };
  private readonly counts: Record<NotableClass, number> = { error: 0, summary: 0, warning: 0 };
  private distinct = 0;
  private seen = 0;

  /**
   * `stable`: the hits' bytes stay valid and unchanged until `finish` (no copy is made); else the
   * caller says when a source may change (`release`).
   */
  constructor(private readonly stable = false) {}

  add(hit: NotableHit): void {
    this.counts[hit.class]++;
    this.seen++;
    const pre = prefilterKey(hit.source, hit.keyFrom, hit.keyTo);
    // The hit's hash, once a held entry shares its cheap key: an entry whose cheap key differs
    // cannot be a repeat of it (nor, but for a 30-bit collision, share its key).
    let key = UNHASHED;
    let check = 0;
    const held = this.held[hit.class];
    let known: Held | undefined;
    for (let i = 0; i < held.length; i++) {
      const entry = held[i];
      if (entry.pre !== pre) continue;
      if (key === UNHASHED) {
        hashRange(hit.source, hit.keyFrom, hit.keyTo);
        key = hashed.key;
        check = hashed.check;
      }
      if (entry.key === UNHASHED) hashEntry(entry);
      if (entry.key === key) {
        known = entry;
        break;
      }
    }
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
    const pinned = this.pinned[hit.class] < FIRST_KEPT;
    const lru = this.recent[hit.class];
    if (!pinned && lru.length >= RECENT_KEPT) {
      // The LRU is full: the entry seen longest ago (`seen` is unique) leaves, its object reused
      // in its place (the order of `held` does not matter: keys are unique in it, `finish` sorts).
      let oldest = 0;
      for (let i = 1; i < lru.length; i++) if (lru[i].seen < lru[oldest].seen) oldest = i;
      this.fill(lru[oldest], hit, false, pre, key, check);
      return;
    }
    const entry = this.fill(undefined, hit, pinned, pre, key, check);
    held.push(entry);
    if (pinned) this.pinned[hit.class]++;
    else lru.push(entry);
  }

  /**
   * Copies the text of the entries still held that point into `source`, which may change once the
   * caller goes on (a stream's buffer, reused). Until then entries only point into it: most entries
   * of a long run of distinct lines leave the LRU before, and are never copied.
   */
  release(source: Buffer): void {
    if (this.stable) return;
    for (const cls of CLASSES) {
      for (const entry of this.held[cls]) {
        if (entry.source !== source) continue;
        // Its hash is computed while its key's bytes are still there (the copy holds only its text).
        if (entry.key === UNHASHED) hashEntry(entry);
        entry.source = Buffer.from(source.subarray(entry.start, entry.end));
        entry.start = 0;
        entry.end = entry.source.length;
      }
    }
  }

  /**
   * `hit` as a new entry (into `entry`'s object when given), pointing into its source: a stable one
   * is viewed when the digest is finished, another is copied by `release` if the entry is held still.
   */
  private fill(entry: Held | undefined, hit: NotableHit, pinned: boolean, pre: number, key: number, check: number): Held {
    const { source, start, end } = hit;
    if (!entry) {
      return {
        class: hit.class,
        line: hit.line,
        offset: hit.offset,
        source,
        start,
        end,
        count: 1,
        lastLine: hit.line,
        lastOffset: hit.offset,
        seen: this.seen,
        pinned,
        pre,
        keyFrom: hit.keyFrom,
        keyTo: hit.keyTo,
        key,
        check,
      };
    }
    entry.class = hit.class;
    entry.line = entry.lastLine = hit.line;
    entry.offset = entry.lastOffset = hit.offset;
    entry.source = source;
    entry.start = start;
    entry.end = end;
    entry.count = 1;
    entry.seen = this.seen;
    entry.pinned = pinned;
    entry.pre = pre;
    entry.keyFrom = hit.keyFrom;
    entry.keyTo = hit.keyTo;
    entry.key = key;
    entry.check = check;
    return entry;
  }

  /** The digest over `[from, to)` (lines `fromLine`..`toLine`), entries in order of appearance. */
  finish(range: Pick<NotableDigest, 'from' | 'to' | 'fromLine' | 'toLine'>, decode: (bytes: Buffer) => string): NotableDigest {
    const lines = CLASSES.flatMap((cls) => this.held[cls])
      .sort((a, b) => a.offset - b.offset)
      .map((entry): NotableLine => {
        const line: NotableLine = {
          class: entry.class,
          line: entry.line,
          offset: entry.offset,
          text: decode(entry.source.subarray(entry.start, entry.end)),
          count: entry.count,
        };
        if (entry.count > 1) Object.assign(line, { lastLine: entry.lastLine, lastOffset: entry.lastOffset });
        return line;
      });
    return { lines, counts: { ...this.counts }, distinct: this.distinct, ...range };
  }
}

/** Per byte: 0, or HEX for a hex letter, DIGIT for a decimal digit (hex too). */
const HEX = 1;
const DIGIT = 2;
const HEX_CLASS = new Uint8Array(256);
for (let byte = 0; byte < 256; byte++) {
  if (byte >= 0x30 && byte <= 0x39) HEX_CLASS[byte] = DIGIT;
  else if ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x66) HEX_CLASS[byte] = HEX;
}
const isBlank = (byte: number): boolean => byte === 0x20 || byte === 0x09 || byte === 0x0d || byte === 0x2c;
const HASH = 0x23; // '#'

/**
 * Two hashes of `bytes[from, to)` (FNV-1a with different primes; the first cut to 30 bits, a small
 * integer V8 keys a Map with fast) that ignore what varies between repeats of one line: a run of
 * hex digits of 6 or more with a decimal digit among them counts as one `#` (ids, hashes), as does
 * any run of decimal digits (timestamps, counters); indentation and trailing blanks or a comma
 * (JSON) do not count.
 */
export function hashKey(bytes: Buffer, from: number, to: number): [number, number] {
  hashRange(bytes, from, to);
  return [hashed.key, hashed.check];
}

/** An entry's hash, from its key's bytes (still in `source`: `release` computes it before it copies). */
function hashEntry(entry: Held): void {
  hashRange(entry.source, entry.keyFrom, entry.keyTo);
  entry.key = hashed.key;
  entry.check = hashed.check;
}

/** Per byte: 1 for a byte `prefilterKey` mixes (no hex digit, no '#'), else 0. */
const PLAIN = new Uint8Array(256);
for (let byte = 0; byte < 256; byte++) PLAIN[byte] = HEX_CLASS[byte] === 0 && byte !== HASH ? 1 : 0;

/**
 * A cheap key of `bytes[from, to)`, equal for any two ranges `hashKey` makes one key of: it mixes,
 * with their order, only the bytes that are no hex digit and no '#' (inside the same blanks
 * trimmed), and the hash's rule only turns hex digits into '#' and keeps every other byte: so those
 * bytes are the same, in the same order, in two ranges with one hash input. One branch-free pass:
 * no run of digits to find, and sums where the hash chains multiplications.
 */
export function prefilterKey(bytes: Buffer, from: number, to: number): number {
  let start = from;
  let end = to;
  while (start < end && isBlank(bytes[start])) start++;
  while (end > start && isBlank(bytes[end - 1])) end--;
  let count = 0;
  let sum = 0;
  let weighted = 0;
  for (let i = start; i < end; i++) {
    const byte = bytes[i];
    const plain = PLAIN[byte];
    const value = byte * plain;
    count += plain;
    sum = (sum + value) | 0;
    weighted = (weighted + Math.imul(value, count)) | 0;
  }
  return (Math.imul(weighted, 0x9e3779b1) ^ Math.imul(sum, 0x85ebca6b) ^ count) | 0;
}

/** Where `hashRange` leaves its two hashes (no array per line). */
const hashed = { key: 0, check: 0 };

/**
 * `hashKey` into `hashed`. Only decimal digits change what is mixed, and only in the hex run that
 * holds them: so it finds the next digit, mixes the bytes before its run as they are (one tight
 * loop, where a branch per hex letter would be mispredicted all along an English line), then the
 * run as one '#' (6 or more long) or with each run of digits as one '#'.
 */
function hashRange(bytes: Buffer, from: number, to: number): void {
  let start = from;
  let end = to;
  while (start < end && isBlank(bytes[start])) start++;
  while (end > start && isBlank(bytes[end - 1])) end--;
  let a = 0x811c9dc5;
  let b = 0x5bd1e995;
  let i = start;
  while (i < end) {
    let digit = i;
    while (digit < end && (bytes[digit] - 0x30) >>> 0 > 9) digit++;
    // Where its run starts (not before `i`: a run ends each round, at a byte that is no hex digit).
    let run = digit;
    if (digit < end) while (run > i && HEX_CLASS[bytes[run - 1]] !== 0) run--;
    for (; i < run; i++) {
      const byte = bytes[i];
      a = Math.imul(a ^ byte, 0x01000193);
      b = Math.imul(b ^ byte, 0x0100019b);
    }
    if (digit >= end) break;
    let runEnd = digit + 1;
    while (runEnd < end && HEX_CLASS[bytes[runEnd]] !== 0) runEnd++;
    if (runEnd - run >= 6) {
      a = Math.imul(a ^ HASH, 0x01000193);
      b = Math.imul(b ^ HASH, 0x0100019b);
      i = runEnd;
      continue;
    }
    let previous = 0;
    for (; i < runEnd; i++) {
      const byte = bytes[i];
      const kind = HEX_CLASS[byte];
      if (kind !== DIGIT) {
        a = Math.imul(a ^ byte, 0x01000193);
        b = Math.imul(b ^ byte, 0x0100019b);
      } else if (previous !== DIGIT) {
        a = Math.imul(a ^ HASH, 0x01000193);
        b = Math.imul(b ^ HASH, 0x0100019b);
      }
      previous = kind;
    }
  }
  hashed.key = (a >>> 2) & 0x3fffffff;
  hashed.check = b >>> 0;
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
