/**
 * A file's bytes masked as they stream past (search_tool_output {path}, the Claude Code hook),
 * exactly as if `maskText` had seen the whole file at once, whatever the sizes of the reads.
 *
 * Each pass masks what it holds and hands on all but its last guard bytes (guardBytes), which are
 * longer than any value: a value that starts in what is handed on ends inside the pass, so it is
 * masked whole. What is held back is kept unmasked (a value cut by the end of a read is found again,
 * whole, with the next read), together with a few bytes before it for the shapes' lookbehinds, and
 * with the ranges masked so far that reach into it (a value whose start was already handed on is not
 * found again from its middle, and must stay masked). Masking more than once is harmless (ASCII
 * becomes '*', nothing moves); each value is counted once, by the pass that hands on its start.
 *
 * The encoding (textEncoding.ts) is decided from the first ENCODING_SNIFF_BYTES pushed, before
 * anything is handed on; UTF-16 units are counted from the stream's first byte, so a read of any
 * size, odd too, cuts them where it likes.
 */
import { SECRET_LOOK_BEHIND_BYTES, type SecretRange } from './secretShapes';
import { ENCODING_SNIFF_BYTES, guardBytes, maskTextParts, sniffEncoding, starUnits, type Inside, type TextEncoding } from './textEncoding';

/** Bytes kept before the held-back part: the shapes' look-back, twice over for UTF-16, and a unit cut in two. */
const KEEP_BEFORE = 2 * SECRET_LOOK_BEHIND_BYTES + 2;

interface Span {
  start: number;
  end: number;
}

export class SecretStream {
  /** Unmasked bytes: KEEP_BEFORE (or fewer) already handed on, then the held-back ones. */
  private raw: Buffer = Buffer.alloc(0);
  /** How many leading bytes of `raw` were already handed on. */
  private handedOn = 0;
  /** Where `raw[0]` lies in the stream (UTF-16 units start at even offsets). */
  private offset = 0;
  /** Undecided until ENCODING_SNIFF_BYTES were pushed (or the stream ends). */
  private encoding: TextEncoding | undefined;
  /** Ranges of `raw` masked by an earlier pass, by the byte pass and by the UTF-16 pass. */
  private carried: { bytes: Span[]; units: Span[] } = { bytes: [], units: [] };
  /** Whether `raw[0]` lies inside a private-key block whose BEGIN line came earlier, per pass. */
  private inside: Inside = { bytes: false, units: false };
  /** Values masked in what was handed on so far. */
  private values = 0;

  /** How many secret-shaped values were masked in the bytes handed on so far. */
  get masked(): number {
    return this.values;
  }

  /** The next bytes, masked, that can be handed on (fewer than were pushed, or none, until `end`). */
  push(chunk: Buffer): Buffer {
    const bytes = Buffer.concat([this.raw, chunk]);
    if (this.encoding === undefined) {
      if (bytes.length < ENCODING_SNIFF_BYTES) {
        this.raw = bytes;
        return Buffer.alloc(0);
      }
      this.encoding = sniffEncoding(bytes);
    }
    return this.pass(bytes, this.encoding, false);
  }

  /** Everything still held back, masked. The stream is then empty. */
  end(): Buffer {
    const out = this.pass(this.raw, this.encoding ?? sniffEncoding(this.raw), true);
    this.encoding = undefined;
    return out;
  }

  /** Masks `bytes` (a fresh buffer, masked in place) and hands on what it can. */
  private pass(bytes: Buffer, encoding: TextEncoding, last: boolean): Buffer {
    const from = this.handedOn;
    const until = last ? bytes.length : Math.max(from, bytes.length - guardBytes(encoding));
    const keep = Math.max(0, until - KEEP_BEFORE);
    const held = last ? Buffer.alloc(0) : Buffer.from(bytes.subarray(keep));
    const found = maskTextParts(bytes, this.inside, encoding, this.offset);
    for (const range of this.carried.bytes) star(bytes, range);
    for (const range of this.carried.units) starUnits(bytes, range, encoding, this.offset);
    this.values += found.all.filter((secret) => secret.from >= from && secret.from < until).length;
    this.inside = { bytes: opensAt(found.bytes, keep), units: opensAt(found.units, keep) };
    this.carried = {
      bytes: carry([...found.bytes, ...this.carried.bytes], keep),
      units: carry([...found.units, ...this.carried.units], keep),
    };
    this.raw = held;
    this.handedOn = last ? 0 : until - keep;
    this.offset = last ? 0 : this.offset + keep;
    return bytes.subarray(from, until);
  }
}

/** Whether a private-key block begun before `keep` runs on past it. */
const opensAt = (secrets: readonly SecretRange[], keep: number): boolean =>
  secrets.some((secret) => secret.block && secret.from < keep && keep < secret.end);

/** The ranges that reach past `keep`, relative to it. */
const carry = (ranges: readonly Span[], keep: number): Span[] =>
  ranges.filter((range) => range.end > keep).map((range) => ({ start: Math.max(0, range.start - keep), end: range.end - keep }));

/** Each printable ASCII byte of `range` as '*', as maskSecrets masks a value. */
function star(bytes: Buffer, { start, end }: Span): void {
  for (let i = Math.max(0, start); i < Math.min(end, bytes.length); i++) if (bytes[i] > 0x20 && bytes[i] < 0x7f) bytes[i] = 0x2a;
}
