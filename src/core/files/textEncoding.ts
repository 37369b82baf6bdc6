/**
 * UTF-16 text masked as UTF-8 text is (issue 37): Windows PowerShell 5's `>` writes UTF-16 LE with a
 * byte-order mark, and there every ASCII character is followed by a NUL, so no shape of
 * secretShapes.ts matched and every secret came back in clear.
 *
 * A file's encoding is decided once, from its first ENCODING_SNIFF_BYTES (a BOM, or NUL bytes on one
 * side of the code units), so a page, a search window and a stream that start anywhere, even at an odd
 * offset, agree on it and on where each 2-byte unit begins (units are counted from the file's start).
 * The shapes then run over a narrow view: one byte per unit, its ASCII byte when the other byte is 0,
 * else a byte no shape matches. Each masked unit's ASCII byte becomes '*' and its NUL stays, so the
 * file's length and every byte offset are unchanged, as for UTF-8.
 *
 * A UTF-16 file is also masked byte for byte as UTF-8 is: text the first bytes misjudged (a binary
 * file with NULs on one side) loses nothing that one pass would have masked. UTF-8 text costs the
 * check of its first bytes and nothing more.
 */
import { maskSecrets, mergeRanges, SECRET_GUARD_BYTES, type SecretRange } from './secretShapes';

export type TextEncoding = 'utf8' | 'utf16le' | 'utf16be';

/** How many of a file's first bytes decide its encoding. */
export const ENCODING_SNIFF_BYTES = 4096;

/** Whether a private-key block is open where the bytes start, per pass (see maskSecrets' `inside`). */
export interface Inside {
  bytes: boolean | 'unknown';
  units: boolean | 'unknown';
}

/** What one call masked: the byte pass's ranges, the UTF-16 pass's (byte offsets, whole units), and both merged. */
export interface MaskedText {
  bytes: SecretRange[];
  units: SecretRange[];
  all: SecretRange[];
}

/**
 * The encoding of a file whose first bytes are `head` (only its first ENCODING_SNIFF_BYTES count).
 * Without a BOM, UTF-16 is NUL bytes in at least a sixteenth of the units' high bytes and at most
 * a quarter as many in their low bytes: ASCII in UTF-16 has nearly all of one and none of the other,
 * while NULs in binary data fall on both sides. A wrong guess costs time, never a secret (see above).
 */
export function sniffEncoding(head: Buffer): TextEncoding {
  const length = Math.min(head.length, ENCODING_SNIFF_BYTES);
  if (length >= 2 && head[0] === 0xff && head[1] === 0xfe) return 'utf16le';
  if (length >= 2 && head[0] === 0xfe && head[1] === 0xff) return 'utf16be';
  let even = 0;
  let odd = 0;
  for (let i = 0; i + 1 < length; i += 2) {
    if (head[i] === 0) even++;
    if (head[i + 1] === 0) odd++;
  }
  const units = length >> 1;
  if (odd > 0 && odd * 16 >= units && even * 4 <= odd) return 'utf16le';
  if (even > 0 && even * 16 >= units && odd * 4 <= even) return 'utf16be';
  return 'utf8';
}

/**
 * How far past what a stream hands on, or a search window, it must read so that a value cut there is
 * seen whole: a UTF-16 value takes two bytes a character.
 */
export const guardBytes = (encoding: TextEncoding): number => (encoding === 'utf8' ? SECRET_GUARD_BYTES : 2 * SECRET_GUARD_BYTES);

/**
 * Masks the secrets in `bytes`, which lie at `offset` in a text of `encoding`, in place; returns
 * their ranges, merged (as maskSecrets does).
 */
export function maskText(bytes: Buffer, inside: boolean | 'unknown', encoding: TextEncoding, offset: number): SecretRange[] {
  return maskTextParts(bytes, { bytes: inside, units: inside }, encoding, offset).all;
}

/** maskText with each pass's ranges apart (a stream carries each pass's private-key block on its own). */
export function maskTextParts(bytes: Buffer, inside: Inside, encoding: TextEncoding, offset: number): MaskedText {
  if (encoding === 'utf8') {
    const ranges = maskSecrets(bytes, inside.bytes);
    return { bytes: ranges, units: [], all: ranges };
  }
  const { first, ascii } = layout(encoding, offset);
  // The narrow view is taken before the byte pass stars anything, so neither pass sees the other's
  // stars: a stream that runs them on other cuts of the bytes masks the same.
  const count = Math.max(0, (bytes.length - first) >> 1);
  const narrow = Buffer.allocUnsafe(count);
  for (let i = 0, at = first; i < count; i++, at += 2) {
    const low = bytes[at + ascii];
    narrow[i] = bytes[at + 1 - ascii] === 0 && low < 0x80 ? low : 0x80;
  }
  const found = maskSecrets(narrow, inside.units);
  const byBytes = maskSecrets(bytes, inside.bytes);
  for (const range of found) {
    for (let i = range.start; i < range.end; i++) if (narrow[i] === 0x2a) bytes[first + 2 * i + ascii] = 0x2a;
  }
  const units = found.map((range) => ({
    start: first + 2 * range.start,
    end: first + 2 * range.end,
    block: range.block,
    from: range.from < 0 ? -1 : first + 2 * range.from,
  }));
  return { bytes: byBytes, units, all: units.length === 0 ? byBytes : mergeRanges([...byBytes, ...units]) };
}

/**
 * Stars `range` of `bytes` (at `offset` in a UTF-16 text) as maskTextParts stars a unit range: the
 * ASCII byte of each whole unit whose other byte is 0.
 */
export function starUnits(bytes: Buffer, range: { start: number; end: number }, encoding: TextEncoding, offset: number): void {
  const { first, ascii } = layout(encoding, offset);
  let at = Math.max(0, range.start);
  if ((at - first) % 2 !== 0) at++;
  for (const end = Math.min(range.end, bytes.length - 1); at < end; at += 2) {
    const low = bytes[at + ascii];
    if (bytes[at + 1 - ascii] === 0 && low > 0x20 && low < 0x7f) bytes[at + ascii] = 0x2a;
  }
}

/** Where the first whole unit of bytes at `offset` starts, and which byte of a unit holds an ASCII character. */
function layout(encoding: TextEncoding, offset: number): { first: number; ascii: number } {
  return { first: offset % 2, ascii: encoding === 'utf16le' ? 0 : 1 };
}
