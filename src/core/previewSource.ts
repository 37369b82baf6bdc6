/**
 * The bytes a preview is cut from, as `previewHeadTail` reads them: the ends it cuts (head and tail
 * windows), line numbers, and any range written into a notable-line scanner.
 *
 * Given bytes, both windows are the whole buffer. Given a large string, only its ends are encoded
 * (a window a little larger than the budget at each end); a range of the middle is encoded piece by
 * piece into one bounded buffer as the scanner takes it (`stream`), so a preview of a string never
 * holds, nor writes, the whole of its UTF-8.
 */
import { countLineBreaks } from './notable/prefilter';
import { safeChunkEnd } from './notable/chunkEdges';
import { NotableScanner } from './notable/scanner';
import { MAX_HIT_BYTES, type NotableKind } from './notable/patterns';
import type { LineFacts, NotableDigest } from './types';
import { decodeUtf8 } from './utf8';

export interface PreviewSource {
  readonly totalBytes: number;
  /** Line breaks in all. */
  readonly breaks: number;
  /** The line breaks per block, from the one count of them (kept with a copy for the inspector). */
  readonly lines: LineFacts;
  /** Bytes [0, head.length) of the content. */
  readonly head: Buffer;
  /** Bytes [tailStart, totalBytes) of the content. */
  readonly tail: Buffer;
  readonly tailStart: number;
  /** Where the line that holds byte `at` starts. */
  lineStart(at: number): number;
  /** Writes bytes [from, to) into `scanner` (`from` a line start); whether they stay valid until it finishes. */
  feed(from: number, to: number, scanner: NotableScanner): void;
  /** Whether `feed` writes bytes that stay valid (a window or the buffer, not the stream's buffer). */
  stable(from: number, to: number): boolean;
}

/** `lines`: the facts of these bytes when their maker counted them already (a capture counts as it writes). */
export function bytesSource(bytes: Buffer, lines: LineFacts = new LineTally().write(bytes).facts()): PreviewSource {
  return {
    totalBytes: bytes.length,
    breaks: lines.breaks,
    lines,
    head: bytes,
    tail: bytes,
    tailStart: 0,
    lineStart: (at) => (at === 0 ? 0 : bytes.lastIndexOf(0x0a, at - 1) + 1),
    feed: (from, to, scanner) => scanner.write(bytes.subarray(from, to)),
    stable: () => true,
  };
}

/** Bytes each window holds beyond the budget: a cut's snap to a line break, and a character either side. */
const WINDOW_MARGIN = 2048 + 16;
/** Bytes the end of a text is read from to tell whether it matters (`hasImportantTail`). */
export const TAIL_TEXT_BYTES = 8000;

/**
 * How a string is streamed, which does not change the preview (tests vary it to check so): from how
 * many characters on (a smaller string is encoded whole), characters encoded at a time, and the
 * buffer they go into (grown only for a line longer than it).
 */
export const streamTuning = { minChars: 256 * 1024, pieceChars: 64 * 1024, bufferBytes: 256 * 1024 };

/**
 * A string as a preview source: streamed when `stream` allows and it is large (see the module
 * comment), else encoded whole.
 */
export function stringSource(text: string, budgetBytes: number, stream: boolean): PreviewSource {
  const window = Math.max(budgetBytes, TAIL_TEXT_BYTES) + WINDOW_MARGIN;
  const whole = (totalBytes: number): PreviewSource => bytesSource(encodeUtf8(text, totalBytes));
  if (!stream || text.length < streamTuning.minChars) return whole(Buffer.byteLength(text, 'utf8'));
  // Each character is 1 to 3 bytes (a surrogate pair 4 for 2): `window` characters make a window,
  // and two of them do not meet in a text of more than 6 windows' bytes, which a text of more than
  // 6 windows' characters is. Its bytes are counted as it is encoded: `Buffer.byteLength` of a
  // two-byte string costs about as much.
  if (text.length > 6 * window) return new StreamedString(text, window);
  const totalBytes = Buffer.byteLength(text, 'utf8');
  return totalBytes <= 6 * window ? whole(totalBytes) : new StreamedString(text, window);
}

/** Encodes a string's pieces into the stream's buffer (`encodeInto` beats `Buffer.write` on two-byte strings). */
const encoder = new TextEncoder();

class StreamedString implements PreviewSource {
  readonly totalBytes: number;
  readonly breaks: number;
  readonly lines: LineFacts;
  readonly head: Buffer;
  readonly tail: Buffer;
  readonly tailStart: number;
  /** The character where the tail window starts. */
  private readonly tailChar: number;
  /** Character index of byte offsets found out in the middle (line starts before the tail window). */
  private readonly known = new Map<number, number>();

  constructor(
    private readonly text: string,
    window: number,
  ) {
    // Bytes and line breaks in one pass that encodes the string a piece at a time into the
    // stream's buffer, where they are counted 16 bytes a step (a search for each '\n' in the
    // string costs a call per line).
    const buffer = streamBuffer(streamTuning.bufferBytes);
    const piece = Math.max(1, Math.floor(buffer.length / 3) - 1);
    const tally = new LineTally();
    for (let char = 0; char < text.length;) {
      const next = pairEnd(text, Math.min(text.length, char + piece));
      tally.write(buffer.subarray(0, encoder.encodeInto(text.slice(char, next), buffer).written));
      char = next;
    }
    this.lines = tally.facts();
    const { totalBytes, breaks } = this.lines;
    this.totalBytes = totalBytes;
    this.breaks = breaks;
    this.head = Buffer.from(text.slice(0, pairSafe(text, window)), 'utf8');
    this.tailChar = pairSafe(text, text.length - window);
    this.tail = Buffer.from(text.slice(this.tailChar), 'utf8');
    this.tailStart = totalBytes - this.tail.length;
  }

  lineStart(at: number): number {
    if (at <= this.head.length) return at === 0 ? 0 : this.head.lastIndexOf(0x0a, at - 1) + 1;
    if (at < this.tailStart) throw new Error(`byte ${at} is in neither window`);
    const found = at > this.tailStart ? this.tail.lastIndexOf(0x0a, at - this.tailStart - 1) : -1;
    if (found >= 0) return this.tailStart + found + 1;
    // A line that began before the tail window: found in the string, and its bytes counted.
    const char = this.text.lastIndexOf('\n', this.tailChar - 1) + 1;
    const start = this.tailStart - Buffer.byteLength(this.text.slice(char, this.tailChar), 'utf8');
    this.known.set(start, char);
    return start;
  }

  stable(from: number, to: number): boolean {
    return to <= this.head.length || from >= this.tailStart;
  }

  feed(from: number, to: number, scanner: NotableScanner): void {
    if (to <= this.head.length) return scanner.write(this.head.subarray(from, to));
    if (from >= this.tailStart) return scanner.write(this.tail.subarray(from - this.tailStart, to - this.tailStart));
    this.stream(this.charAt(from), this.charAt(to), scanner);
  }

  /** The index of the character that starts at byte `at` (a character boundary). */
  private charAt(at: number): number {
    if (at <= this.head.length) return decodeUtf8(this.head.subarray(0, at)).length;
    if (at >= this.tailStart) return this.text.length - decodeUtf8(this.tail.subarray(at - this.tailStart)).length;
    const char = this.known.get(at);
    if (char === undefined) throw new Error(`byte ${at} is in neither window`);
    return char;
  }

  /**
   * Writes the UTF-8 of characters [from, to) into the scanner through one buffer: each piece is
   * encoded after what is left of the last, and the buffer is written up to its last point where a
   * write may end without changing what the scanner finds (`safeChunkEnd`: after a line break no
   * pattern reads across); the rest moves to the front. A line longer than the buffer grows it.
   */
  private stream(from: number, to: number, scanner: NotableScanner): void {
    let buffer = streamBuffer(streamTuning.bufferBytes);
    // Bytes [start, filled) are not written yet; the ones before `start` are the last written,
    // which the scanner carries: kept in front, they spare it a copy of each chunk.
    let start = 0;
    let filled = 0;
    for (let char = from; char < to;) {
      const piece = Math.min(streamTuning.pieceChars, to - char);
      // Room for the piece, one more character (a surrogate pair is not split) and 3 bytes each.
      if (buffer.length - filled < 3 * (piece + 1)) {
        const end = safeChunkEnd(buffer, start, filled);
        if (end > start) {
          scanner.write(buffer.subarray(start, end));
          const kept = Math.min(end, MAX_HIT_BYTES);
          buffer.copyWithin(0, end - kept, filled);
          filled -= end - kept;
          start = kept;
        } else {
          const larger = streamBuffer(Math.max(buffer.length * 2, 6 * (piece + 1)));
          buffer.copy(larger, 0, 0, filled);
          buffer = larger;
        }
        continue;
      }
      const next = pairEnd(this.text, char + piece);
      filled += encoder.encodeInto(this.text.slice(char, next), buffer.subarray(filled)).written;
      char = next;
    }
    if (filled > start) scanner.write(buffer.subarray(start, filled));
  }
}

/** `at`, or one more when it would split a surrogate pair. */
function pairEnd(text: string, at: number): number {
  return at < text.length && isLowSurrogate(text.charCodeAt(at)) && isHighSurrogate(text.charCodeAt(at - 1)) ? at + 1 : at;
}

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

/** `at` (within the text), or one less when it would split a surrogate pair. */
function pairSafe(text: string, at: number): number {
  const within = Math.max(0, Math.min(at, text.length));
  return within > 0 && pairEnd(text, within) !== within ? within - 1 : within;
}

/**
 * The stream's buffer, kept between previews (the pieces of one pass through it stay in the cache);
 * a larger one, for a long line, only while it is used.
 */
let shared: Buffer | undefined;
function streamBuffer(size: number): Buffer {
  if (size > streamTuning.bufferBytes) return Buffer.allocUnsafe(size);
  if (!shared || shared.length !== size) shared = Buffer.allocUnsafe(size);
  return shared;
}

/** The notable lines of bytes [from, to), `line` being the number of the line that holds `from`. */
export function scanSource(source: PreviewSource, kind: NotableKind, from: number, to: number, line: number): NotableDigest {
  // From the start of `from`'s line, so that line's text and offset are its own; hits before
  // `from` are not in the range and not reported.
  const lineStart = source.lineStart(from);
  const scanner = new NotableScanner(kind, { offset: lineStart, line, ignoreBefore: from }, source.stable(lineStart, to));
  source.feed(lineStart, to, scanner);
  return scanner.finish();
}

/** Bytes per block of `LineFacts.before`: a line number at any offset is one such block's count and a read of at most 4 pages. */
export const LINE_BLOCK_BYTES = 16 * 1024;

/** Counts line breaks per block as bytes are written to it, in order. */
export class LineTally {
  private totalBytes = 0;
  private breaks = 0;
  private endsWithBreak = false;
  private readonly before: number[] = [];

  write(bytes: Uint8Array): this {
    for (let at = 0; at < bytes.length;) {
      const inBlock = this.totalBytes % LINE_BLOCK_BYTES;
      if (inBlock === 0) this.before.push(this.breaks);
      const end = Math.min(bytes.length, at + LINE_BLOCK_BYTES - inBlock);
      this.breaks += countLineBreaks(bytes, at, end);
      this.totalBytes += end - at;
      at = end;
    }
    if (bytes.length > 0) this.endsWithBreak = bytes[bytes.length - 1] === 0x0a;
    return this;
  }

  facts(): LineFacts {
    const { totalBytes, breaks } = this;
    const lines = totalBytes === 0 ? 0 : breaks + (this.endsWithBreak ? 0 : 1);
    return { totalBytes, breaks, lines, blockBytes: LINE_BLOCK_BYTES, before: [...this.before] };
  }
}

/**
 * Line numbers from one count of the line breaks: a count over a part is made in the window that
 * holds it, from the nearer end when both do (head and tail are small, the omitted middle is most).
 */
export class LineCounter {
  /** Lines in all (a last line without a break counts). */
  readonly total: number;

  constructor(private readonly source: PreviewSource) {
    this.total = source.lines.lines;
  }

  /** Line breaks in `[0, at)`. */
  private before(at: number): number {
    const { head, tail, tailStart, totalBytes, breaks } = this.source;
    if (at <= head.length && (at < tailStart || at <= totalBytes / 2)) return countLineBreaks(head, 0, at);
    if (at < tailStart) throw new Error(`byte ${at} is in neither window`);
    return breaks - countLineBreaks(tail, at - tailStart);
  }

  /** Number of the line that holds byte `at`. */
  lineAt(at: number): number {
    return this.before(at) + 1;
  }

  /** Line breaks in `[from, to)`. */
  between(from: number, to: number): number {
    const { head, totalBytes } = this.source;
    return to <= head.length && to - from <= totalBytes / 2 ? countLineBreaks(head, from, to) : this.before(to) - this.before(from);
  }
}

/** From this size on, a string's bytes are written into `scratch`. */
const SCRATCH_MIN = 1024 * 1024;
/**
 * The buffer the last large string was encoded into, held weakly: a preview uses the bytes only
 * while it runs (its result holds strings), so the next one writes over them, where new memory of
 * that size would cost more to touch than to encode; a garbage collection frees it between.
 */
let scratch: WeakRef<Buffer> | undefined;

/**
 * UTF-8 bytes of a string of `size` bytes, as `Buffer.from` makes them (invalid surrogates as
 * U+FFFD): one write into a buffer of that size (a large one reused), valid until the next call.
 */
function encodeUtf8(text: string, size: number): Buffer {
  let buffer: Buffer;
  if (size >= SCRATCH_MIN) {
    let held = scratch?.deref();
    if (!held || held.length < size) {
      held = Buffer.allocUnsafeSlow(size);
      scratch = new WeakRef(held);
    }
    buffer = held.subarray(0, size);
  } else {
    buffer = Buffer.allocUnsafe(size);
  }
  return buffer.write(text, 'utf8') === size ? buffer : Buffer.from(text, 'utf8');
}
