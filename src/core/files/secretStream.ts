/**
 * A file's bytes masked as they stream past (search_tool_output {path}, the Claude Code hook),
 * exactly as if `maskSecrets` had seen the whole file at once, whatever the sizes of the reads.
 *
 * Each pass masks what it holds and hands on all but its last SECRET_GUARD_BYTES, which are longer
 * than any value: a value that starts in what is handed on ends inside the pass, so it is masked
 * whole. What is held back is kept unmasked (a value cut by the end of a read is found again, whole,
 * with the next read), together with a few bytes before it for the shapes' lookbehinds, and with the
 * ranges masked so far that reach into it (a value whose start was already handed on is not found
 * again from its middle, and must stay masked). Masking more than once is harmless (ASCII becomes
 * '*', nothing moves); each value is counted once, by the pass that hands on its start.
 */
import { maskSecrets, SECRET_GUARD_BYTES } from './secretShapes';

/** Bytes kept before the held-back part: a shape's lookbehind and an armour line's look-back (64). */
const KEEP_BEFORE = 128;

interface Span {
  start: number;
  end: number;
}

export class SecretStream {
  /** Unmasked bytes: KEEP_BEFORE (or fewer) already handed on, then the held-back ones. */
  private raw: Buffer = Buffer.alloc(0);
  /** How many leading bytes of `raw` were already handed on. */
  private handedOn = 0;
  /** Ranges of `raw` masked by an earlier pass. */
  private carried: Span[] = [];
  /** Whether `raw[0]` lies inside a private-key block whose BEGIN line came earlier. */
  private inside = false;
  /** Values masked in what was handed on so far. */
  private values = 0;

  /** How many secret-shaped values were masked in the bytes handed on so far. */
  get masked(): number {
    return this.values;
  }

  /** The next bytes, masked, that can be handed on (fewer than were pushed, or none, until `end`). */
  push(chunk: Buffer): Buffer {
    return this.pass(Buffer.concat([this.raw, chunk]), false);
  }

  /** Everything still held back, masked. The stream is then empty. */
  end(): Buffer {
    return this.pass(this.raw, true);
  }

  /** Masks `bytes` (a fresh buffer, masked in place) and hands on what it can. */
  private pass(bytes: Buffer, last: boolean): Buffer {
    const from = this.handedOn;
    const until = last ? bytes.length : Math.max(from, bytes.length - SECRET_GUARD_BYTES);
    const keep = Math.max(0, until - KEEP_BEFORE);
    const held = last ? Buffer.alloc(0) : Buffer.from(bytes.subarray(keep));
    const secrets = maskSecrets(bytes, this.inside);
    for (const range of this.carried) star(bytes, range);
    this.values += secrets.filter((secret) => secret.from >= from && secret.from < until).length;
    this.inside = secrets.some((secret) => secret.block && secret.from < keep && keep < secret.end);
    this.carried = [...secrets, ...this.carried]
      .filter((range) => range.end > keep)
      .map((range) => ({ start: Math.max(0, range.start - keep), end: range.end - keep }));
    this.raw = held;
    this.handedOn = last ? 0 : until - keep;
    return bytes.subarray(from, until);
  }
}

/** Each printable ASCII byte of `range` as '*', as maskSecrets masks a value. */
function star(bytes: Buffer, { start, end }: Span): void {
  for (let i = Math.max(0, start); i < Math.min(end, bytes.length); i++) if (bytes[i] > 0x20 && bytes[i] < 0x7f) bytes[i] = 0x2a;
}
