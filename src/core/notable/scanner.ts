/**
 * Finding notable lines in a byte stream, chunk by chunk, in bounded memory: the capture feeds it
 * the bytes it drops, the preview the part it omits. It counts lines as it goes, so every entry has
 * its line number and the byte offset where its text starts (a line start, or in a long line the
 * start of a window around the hit, on a character boundary).
 */
import type { NotableDigest } from '../types';
import { boundaryAtOrAfter, boundaryAtOrBefore, decodeUtf8 } from '../utf8';
import { DigestBuilder, type NotableHit } from './digest';
import {
  MAX_HIT_BYTES,
  SCANS,
  type Scan,
  type WordClass,
  classifyHitAt,
  classifyWordAt,
  type HitClass,
  type NotableClass,
  type NotableKind,
} from './patterns';
import { PREFILTER_SPAN, type Prefilter, countLineBreaks, makePrefilter } from './prefilter';

/**
 * Which hit names a line that has several: a summary line counts failures ("test result: FAILED.
 * 3 passed"), so a summary word wins over an error word; an error word over a counted one ("ERROR
 * job 1000 failed"), which still makes a summary line over a warning ("0 errors, 2 warnings").
 */
const LINE_RANK: Record<HitClass, number> = { summary: 0, error: 1, count: 2, warning: 3 };
const reported = (cls: HitClass): NotableClass => (cls === 'count' ? 'summary' : cls);

/** Bytes of a line kept as an entry's text (and used to tell repeats apart). */
export const TEXT_BYTES = 160;
/** In a long line, how much of the window shown around a hit comes before it. */
const WINDOW_BEFORE = 40;

const ZEROS = Buffer.alloc(64 * 1024);
const EMPTY = Buffer.alloc(0);

/**
 * How the scan runs, which does not change what it finds (tests vary it to check so): the text its
 * patterns read at a time (at most PREFILTER_SPAN), and whether a prefilter picks where they run.
 */
export const scanTuning = { window: PREFILTER_SPAN, prefilter: true };
/** What each window holds past its end (see `scan`). */
const WINDOW_MARGIN = MAX_HIT_BYTES + 16;
/** Positions of a window past which the prefilter's are tried on the window's text, not each on its own. */
const DENSE = 64;

/**
 * A pattern's hit: where it starts in the scanned text and how long it is; what the regex matched,
 * or (matched on the bytes, `Scan.match`) the word's class.
 */
interface Hit {
  index: number;
  length: number;
  word?: string;
  known?: WordClass;
}

/** Whether every byte of `chunk` is 0. */
function allZero(chunk: Buffer): boolean {
  for (let at = 0; at < chunk.length; at += ZEROS.length) {
    const end = Math.min(chunk.length, at + ZEROS.length);
    if (ZEROS.compare(chunk, at, end, 0, end - at) !== 0) return false;
  }
  return true;
}

/**
 * The carried bytes and the chunk as one buffer without a copy, when the bytes before the chunk in
 * its memory are the carried ones (a stream that keeps them in front of the next chunk, as the
 * preview's does): else undefined.
 */
function precededBy(chunk: Buffer, carry: Buffer): Buffer | undefined {
  if (chunk.byteOffset < carry.length) return undefined;
  const joined = Buffer.from(chunk.buffer, chunk.byteOffset - carry.length, carry.length + chunk.length);
  return joined.compare(carry, 0, carry.length, 0, carry.length) === 0 ? joined : undefined;
}

/** Whether the chunk (or the bytes carried before it) holds one of `gate`'s bytes: a few memchr calls. */
function passes(gate: readonly number[] | undefined, chunk: Buffer, carry: Buffer): boolean {
  if (!gate) return true;
  for (const byte of gate) if (chunk.includes(byte) || carry.includes(byte)) return true;
  return false;
}

export interface ScanStart {
  /** Stream offset of the first byte written (default 0). */
  offset?: number;
  /** Line number of that byte's line (default 1). */
  line?: number;
  /** Where that line starts, when before `offset` (the first write continues it). */
  lineStart?: number;
  /** The first bytes of that line, up to `offset` (at most TEXT_BYTES are used). */
  lineHead?: Uint8Array;
  /**
   * Hits before this offset are not reported (their bytes are written only as context: the start
   * of the first line). The digest's range starts here.
   */
  ignoreBefore?: number;
}

/**
 * A scanner's copy of a scan: its regex (`lastIndex` is state), the same anchored (sticky), and
 * the bytes a hit can start with (1 where one can: the first characters of its starts, in either
 * case when it ignores case), so a position the prefilter lists for another pattern costs no run.
 */
interface OwnScan extends Scan {
  anchored: RegExp;
  firsts: Uint8Array;
}

const firstsOf = new WeakMap<Scan, Uint8Array>();
function firstBytes(scan: Scan): Uint8Array {
  let firsts = firstsOf.get(scan);
  if (firsts) return firsts;
  firsts = new Uint8Array(256);
  firstsOf.set(scan, firsts);
  for (const start of scan.starts) {
    const first = start.charCodeAt(0);
    firsts[first] = 1;
    if (scan.regex.ignoreCase) {
      firsts[start[0].toLowerCase().charCodeAt(0) & 0xff] = 1;
      firsts[start[0].toUpperCase().charCodeAt(0) & 0xff] = 1;
    }
  }
  return firsts;
}

/** The prefilter of each kind's starts, made once (undefined: none, without WebAssembly). */
const prefilters = new Map<NotableKind, Prefilter | undefined>();
function prefilterFor(kind: NotableKind): Prefilter | undefined {
  if (!scanTuning.prefilter) return undefined;
  if (!prefilters.has(kind)) prefilters.set(kind, makePrefilter(SCANS[kind].flatMap((scan) => scan.starts)));
  return prefilters.get(kind);
}

export class NotableScanner {
  private readonly digest: DigestBuilder;
  private readonly scans: OwnScan[];
  private readonly prefilter: Prefilter | undefined;
  private readonly from: number;
  private readonly fromLine: number;
  private offset: number;
  private line: number;
  private lineStart: number;
  /** The current line's first bytes, when it started in an earlier chunk (at most TEXT_BYTES). */
  private lineHead: Buffer = EMPTY;
  /** The best hit so far within the current line's first TEXT_BYTES, reported when the line ends. */
  private pending: HitClass | undefined;
  /** The last bytes of the previous chunk, so a keyword split between chunks is found. */
  private carry: Buffer = EMPTY;
  /**
   * The first line break at or after the last position asked about in the current chunk (its
   * length when there is none). Positions asked about only grow within a chunk, so finding every
   * line end costs one pass however many hits a long line has.
   */
  private nextBreak = -1;

  /**
   * `stable`: the bytes written stay valid and unchanged until `finish`, so entries may point into
   * them instead of copying (a whole buffer scanned at once; not a ring or a pipe's chunks).
   */
  constructor(
    private readonly kind: NotableKind,
    start: ScanStart = {},
    stable = false,
    /** Told of every line (or long line's spot) reported, repeats included, while its bytes are valid. */
    private readonly onHit?: (hit: NotableHit) => void,
  ) {
    this.digest = new DigestBuilder(stable);
    this.scans = SCANS[kind].map((scan) => ({
      ...scan,
      regex: new RegExp(scan.regex),
      anchored: new RegExp(scan.regex.source, `${scan.regex.flags.replace('g', '')}y`),
      firsts: firstBytes(scan),
    }));
    this.prefilter = prefilterFor(kind);
    this.offset = start.offset ?? 0;
    this.from = start.ignoreBefore ?? this.offset;
    this.line = this.fromLine = start.line ?? 1;
    this.lineStart = start.lineStart ?? this.offset;
    if (start.lineHead && this.lineStart < this.offset) {
      const head = Buffer.from(start.lineHead.subarray(0, TEXT_BYTES));
      this.lineHead = head;
      this.carry = head.subarray(Math.max(0, head.length - MAX_HIT_BYTES));
    }
  }

  /** Bytes scanned so far end here. */
  get position(): number {
    return this.offset;
  }

  write(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    const chunk = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const base = this.offset;
    this.nextBreak = -1;
    // NUL padding (sparse files, /dev/zero, binary blocks) holds no line and no word: one memcmp
    // settles it, where the gates below cost a memchr per gate byte.
    if (!allZero(chunk)) {
      let pos = 0;
      const scans = this.scans.filter((scan) => passes(scan.gate, chunk, this.carry));
      // Other binary passes no gate unless it holds a gate byte: then it is scanned like text.
      if (scans.length > 0) pos = this.scan(chunk, base, scans);
      this.advance(chunk, base, pos, chunk.length);
    }
    this.keepLineHead(chunk, base);
    this.offset = base + chunk.length;
    // The caller may reuse the chunk's memory now: entries still held copy their text out of it.
    this.digest.release(chunk);
  }

  finish(): NotableDigest {
    if (this.pending) this.report(reported(this.pending), this.line, this.lineStart, this.lineHead, 0, this.lineHead.length);
    this.pending = undefined;
    return this.digest.finish({ from: this.from, to: this.offset, fromLine: this.fromLine, toLine: this.line }, lineText);
  }

  /**
   * Runs the patterns over the chunk (and the carried bytes before it) as one latin1 text, taking
   * their hits in order of position; returns where lines are counted to.
   *
   * The text is decoded a window at a time (a large string costs more to make and to collect than
   * its share), each with a margin after it that holds whatever a pattern reads from a position in
   * the window: so a pattern's next hit is the first one starting in the windows from where it
   * stands, exactly the hit it would find in the whole text. A window holding no byte of a pattern's
   * gate has no hit of it; with a prefilter (`prefilter.ts`), a pattern runs only where a hit may
   * start. The context a hit is classified by is read from the bytes.
   */
  private scan(chunk: Buffer, base: number, scans: OwnScan[]): number {
    const regexes = scans.map((scan) => scan.regex);
    const anchored = scans.map((scan) => scan.anchored);
    const firsts = scans.map((scan) => scan.firsts);
    const matchers = scans.map((scan) => scan.match);
    const shift = this.carry.length; // text position = chunk position + shift
    const text = shift > 0 ? (precededBy(chunk, this.carry) ?? Buffer.concat([this.carry, chunk])) : chunk;
    // Where each pattern's next hit is looked for, and that hit (in the current window), as text positions.
    const from = regexes.map(() => 0);
    const next: (Hit | undefined)[] = regexes.map(() => undefined);
    let pos = 0;
    const size = Math.min(scanTuning.window, PREFILTER_SPAN);
    for (let start = 0; start < text.length; start += size) {
      const end = Math.min(text.length, start + size);
      const view = text.subarray(start, Math.min(text.length, end + WINDOW_MARGIN));
      const live = scans.map((scan) => passes(scan.gate, view, EMPTY));
      if (!live.includes(true)) continue;
      // With a prefilter, each pattern is tried anchored at the positions it lists, in order (a
      // cursor per pattern: its positions only grow): on the bytes when it can be (`Scan.match`),
      // else on the text there (the window's, when they are many); else it runs over the window.
      const found = this.prefilter?.candidates(text, start, end);
      const cursor = regexes.map(() => 0);
      // (Decoded when a regex first runs in a window of many positions: matched on the bytes, none does.)
      let window: string | undefined;
      let thereAt = -1;
      let there = '';
      const find = (i: number): Hit | undefined => {
        if (!live[i] || from[i] >= end) return undefined;
        if (found) {
          const regex = anchored[i];
          for (let k = cursor[i]; k < found.count; k++) {
            const candidate = found.at(k);
            if (candidate < from[i]) continue;
            cursor[i] = k + 1;
            if (firsts[i][text[candidate]] === 0) continue;
            const matcher = matchers[i];
            if (matcher) {
              const matched = matcher(text, candidate);
              if (matched) return { index: candidate, length: matched.length, known: matched.value };
              continue;
            }
            let m: RegExpExecArray | null;
            if (window === undefined && found.count > DENSE) window = view.toString('latin1');
            if (window !== undefined) {
              regex.lastIndex = candidate - start;
              m = regex.exec(window);
            } else {
              if (candidate !== thereAt) {
                thereAt = candidate;
                there = text.toString('latin1', candidate, Math.min(text.length, candidate + WINDOW_MARGIN));
              }
              regex.lastIndex = 0;
              m = regex.exec(there);
            }
            if (m) return { index: candidate, length: m[0].length, word: m[0] };
          }
          cursor[i] = found.count;
          return undefined;
        }
        window ??= view.toString('latin1');
        const regex = regexes[i];
        regex.lastIndex = Math.max(0, from[i] - start);
        const m = regex.exec(window);
        return m && m.index < end - start ? { index: start + m.index, length: m[0].length, word: m[0] } : undefined;
      };
      for (let i = 0; i < regexes.length; i++) next[i] = find(i);
      for (;;) {
        let which = -1;
        for (let i = 0; i < next.length; i++) if (next[i] && (which < 0 || next[i]!.index < next[which]!.index)) which = i;
        if (which < 0) break;
        const { index, length, word, known } = next[which]!;
        from[which] = index + length;
        next[which] = find(which);
        const at = index - shift; // chunk position; negative inside the carried bytes
        if (at + length <= 0 || base + at < this.from) continue; // seen with the previous chunk, or context only
        if (at > pos) {
          this.advance(chunk, base, pos, at);
          pos = at;
        }
        const cls =
          word === undefined ? classifyWordAt(text, index, length, known, this.kind) : classifyHitAt(text, index, word, this.kind);
        if (!cls) continue;
        const hit = base + at;
        if (hit - this.lineStart < TEXT_BYTES) {
          if (!this.pending || LINE_RANK[cls] < LINE_RANK[this.pending]) this.pending = cls;
          // A summary is as much as a line can be: skip the rest of it.
          if (cls === 'summary') {
            const to = this.breakAfter(chunk, Math.max(0, at)) + shift;
            for (let i = 0; i < regexes.length; i++) {
              from[i] = Math.max(from[i], to);
              if (next[i] && next[i]!.index < to) next[i] = find(i);
            }
          }
        } else {
          this.reportWindow(reported(cls), chunk, base, at);
        }
      }
    }
    return pos;
  }

  /** Position of the first line break in `chunk` at or after `at` (its length when none). */
  private breakAfter(chunk: Buffer, at: number): number {
    if (this.nextBreak < at) {
      const found = chunk.indexOf(0x0a, at);
      this.nextBreak = found < 0 ? chunk.length : found;
    }
    return this.nextBreak;
  }

  /** Counts the lines of chunk[from, to): each line break ends the current line and reports it. */
  private advance(chunk: Buffer, base: number, from: number, to: number): void {
    if (from >= to) return;
    let at = from;
    if (this.pending) {
      const end = this.breakAfter(chunk, at);
      if (end >= to) return;
      this.endLine(chunk, base, end);
      at = end + 1;
    }
    const breaks = countLineBreaks(chunk, at, to);
    if (breaks === 0) return;
    this.line += breaks;
    this.lineStart = base + chunk.lastIndexOf(0x0a, to - 1) + 1;
    this.lineHead = EMPTY;
  }

  /** The current line ends at chunk[end] (a line break): reports its pending hit. */
  private endLine(chunk: Buffer, base: number, end: number): void {
    const pending = this.pending!;
    this.pending = undefined;
    if (this.lineStart >= base) {
      const start = this.lineStart - base;
      this.report(reported(pending), this.line, this.lineStart, chunk, start, Math.min(end, start + TEXT_BYTES));
    } else {
      const more = Math.min(end, TEXT_BYTES - this.lineHead.length);
      const head = more > 0 ? Buffer.concat([this.lineHead, chunk.subarray(0, more)]) : this.lineHead;
      this.report(reported(pending), this.line, this.lineStart, head, 0, head.length);
    }
    this.line++;
    this.lineStart = base + end + 1;
    this.lineHead = EMPTY;
  }

  /** At a chunk's end, keeps what a later chunk needs: the unfinished line's start, and a carry. */
  private keepLineHead(chunk: Buffer, base: number): void {
    this.carry =
      chunk.length >= MAX_HIT_BYTES
        ? Buffer.from(chunk.subarray(chunk.length - MAX_HIT_BYTES))
        : Buffer.concat([this.carry.subarray(Math.max(0, this.carry.length + chunk.length - MAX_HIT_BYTES)), chunk]);
    if (this.lineStart >= base) {
      const start = this.lineStart - base;
      this.lineHead = Buffer.from(chunk.subarray(start, Math.min(chunk.length, start + TEXT_BYTES)));
    } else if (this.lineHead.length < TEXT_BYTES) {
      this.lineHead = Buffer.concat([this.lineHead, chunk.subarray(0, TEXT_BYTES - this.lineHead.length)]);
    }
  }

  /** Reports a line whose text is source[start, end). */
  private report(cls: NotableClass, line: number, offset: number, source: Buffer, start: number, end: number): void {
    this.add({ class: cls, line, offset, source, start, end, keyFrom: start, keyTo: end });
  }

  private add(hit: NotableHit): void {
    this.digest.add(hit);
    this.onHit?.(hit);
  }

  /**
   * A hit past the first TEXT_BYTES of its line: a window around it, from a character boundary
   * (the window may reach back into the carried bytes, but not past the chunk's end). `at` is the
   * hit's chunk position, negative when it starts in the carried bytes.
   */
  private reportWindow(cls: NotableClass, chunk: Buffer, base: number, at: number): void {
    const carried = at < 0 || (at < WINDOW_BEFORE && this.lineStart < base) ? this.carry : undefined;
    const window = carried ? Buffer.concat([carried, chunk.subarray(0, Math.max(0, Math.min(chunk.length, at + TEXT_BYTES)))]) : chunk;
    const shift = carried ? carried.length : 0; // window position = chunk position + shift
    const lineStart = Math.max(0, this.lineStart - base + shift);
    const hit = at + shift;
    const start = boundaryAtOrAfter(window, Math.max(lineStart, hit - WINDOW_BEFORE));
    let end = carried ? window.indexOf(0x0a, hit) : this.breakAfter(chunk, at);
    if (end < 0 || end > start + TEXT_BYTES) end = boundaryAtOrBefore(window, Math.min(window.length, start + TEXT_BYTES));
    this.add({
      class: cls,
      line: this.line,
      offset: base + start - shift,
      source: window,
      start,
      end,
      // Repeats of one key in a long line (a JSON array of records) are one entry: the text from
      // the hit on identifies it, not the neighbours before it.
      keyFrom: hit,
      keyTo: Math.max(hit, Math.min(end, hit + WINDOW_BEFORE)),
    });
  }
}

/** An entry's text: decoded, a cut character at the end dropped, no carriage return or tab runs. */
export function lineText(bytes: Buffer): string {
  const end = boundaryAtOrBefore(bytes, bytes.length);
  return decodeUtf8(bytes.subarray(0, end))
    .replace(/\r$/, '')
    .replace(/[\t\r]+/g, ' ')
    .replace(/\uFFFD$/, '');
}

/** Scans one whole buffer (or its range `[from, to)`): the preview's use. */
export function scanNotable(
  bytes: Uint8Array,
  kind: NotableKind,
  range: { from?: number; to?: number; line?: number } = {},
): NotableDigest {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const from = range.from ?? 0;
  const to = range.to ?? buffer.length;
  // From the start of `from`'s line, so that line's text and offset are its own; hits before
  // `from` are not in the range and not reported.
  const lineStart = from === 0 ? 0 : buffer.lastIndexOf(0x0a, from - 1) + 1;
  const line = range.line ?? countLineBreaks(buffer, 0, lineStart) + 1;
  const scanner = new NotableScanner(kind, { offset: lineStart, line, ignoreBefore: from }, true);
  scanner.write(buffer.subarray(lineStart, to));
  return scanner.finish();
}
