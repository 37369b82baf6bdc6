/**
 * UTF-8 decoding units, as the WHATWG decoder (TextDecoder, fatal: false) sees them.
 *
 * A "unit" is what becomes one code point: a valid sequence, a maximal subpart of an ill-formed
 * sequence (one U+FFFD), or a single stray byte (one U+FFFD). Slicing a buffer only at unit
 * boundaries and decoding each slice gives exactly the text of decoding the whole buffer, which is
 * what lets `read` page binary output and still concatenate to the whole.
 *
 * UTF-8 is self-synchronising: a byte that is not a continuation byte always starts a unit, so a
 * boundary can be decided from at most three bytes of context before the offset.
 */

import { RecallError } from './errors';

const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

export function decodeUtf8(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/** Total length of the sequence a lead byte announces, or 0 when the byte cannot lead one. */
function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/** Whether `byte` may follow `lead` as its first continuation byte (the decoder's narrowed ranges). */
function validSecond(lead: number, byte: number): boolean {
  switch (lead) {
    case 0xe0:
      return byte >= 0xa0 && byte <= 0xbf;
    case 0xed:
      return byte >= 0x80 && byte <= 0x9f;
    case 0xf0:
      return byte >= 0x90 && byte <= 0xbf;
    case 0xf4:
      return byte >= 0x80 && byte <= 0x8f;
    default:
      return byte >= 0x80 && byte <= 0xbf;
  }
}

const isContinuation = (byte: number): boolean => (byte & 0xc0) === 0x80;

/**
 * Length of the unit that starts at `start` (a position the caller knows is a unit start).
 * Reads at most four bytes.
 */
export function unitLengthAt(bytes: Uint8Array, start: number): number {
  const need = sequenceLength(bytes[start]);
  if (need <= 1) return 1;
  let length = 1;
  while (length < need && start + length < bytes.length) {
    const byte = bytes[start + length];
    const ok = length === 1 ? validSecond(bytes[start], byte) : isContinuation(byte);
    if (!ok) break;
    length++;
  }
  return length;
}

/**
 * The unit that contains byte `position`, as `[start, end)`. `bytes` is a window of the copy;
 * `windowStart` tells whether the window begins at the copy's start (so there is no hidden context).
 * The window must include at least three bytes before `position` unless it starts at the copy's start.
 */
export function unitAround(bytes: Uint8Array, position: number): { start: number; end: number } {
  if (!isContinuation(bytes[position])) {
    return { start: position, end: position + unitLengthAt(bytes, position) };
  }
  // A continuation byte belongs to the nearest lead byte within three bytes before it, if that
  // lead's unit reaches this far; otherwise it is a stray byte and a unit of its own.
  for (let back = 1; back <= 3 && position - back >= 0; back++) {
    const candidate = position - back;
    if (!isContinuation(bytes[candidate])) {
      const end = candidate + unitLengthAt(bytes, candidate);
      return end > position ? { start: candidate, end } : { start: position, end: position + 1 };
    }
  }
  return { start: position, end: position + 1 };
}

/** Whether `position` (0..length) falls between two units of `bytes`. */
export function isUnitBoundary(bytes: Uint8Array, position: number): boolean {
  if (position <= 0 || position >= bytes.length) return true;
  return unitAround(bytes, position).start === position;
}

/**
 * Throws MID_CHARACTER_OFFSET when `position` of `bytes` falls inside a unit, with the boundaries
 * either side (as offsets of the copy or file, which `bytes` is a window of from `windowStart`) in
 * `details` and in the message `explain` words for the reader. `bytes` needs the three bytes before
 * `position`, as for `unitAround`; either end of `bytes` counts as a boundary.
 */
export function rejectMidCharacter(
  bytes: Uint8Array,
  position: number,
  windowStart: number,
  explain: (before: number, after: number) => string,
): void {
  if (position <= 0 || position >= bytes.length) return;
  const unit = unitAround(bytes, position);
  if (unit.start === position) return;
  const before = windowStart + unit.start;
  const after = windowStart + unit.end;
  throw new RecallError('MID_CHARACTER_OFFSET', explain(before, after), { before, after });
}

/**
 * Where a page that starts at the boundary `start` and may run to `target` (inside `bytes`) ends:
 * at `target` when it is a boundary, else before the unit it falls in; but when that unit is the
 * page's first, after it, so a page never ends inside a character yet always holds a whole one.
 */
export function pageCut(bytes: Uint8Array, start: number, target: number): number {
  const cut = unitAround(bytes, target);
  return cut.start === target ? target : cut.start > start ? cut.start : cut.end;
}

/** The greatest boundary ≤ position. */
export function boundaryAtOrBefore(bytes: Uint8Array, position: number): number {
  if (position <= 0) return 0;
  if (position >= bytes.length) return bytes.length;
  return unitAround(bytes, position).start;
}

/** The least boundary ≥ position. */
export function boundaryAtOrAfter(bytes: Uint8Array, position: number): number {
  if (position <= 0) return 0;
  if (position >= bytes.length) return bytes.length;
  const unit = unitAround(bytes, position);
  return unit.start === position ? position : unit.end;
}

/** Number of '\n' bytes in bytes[from, to). */
export function countNewlines(bytes: Uint8Array, from = 0, to = bytes.length): number {
  let count = 0;
  let at = from;
  // indexOf on a Buffer is a native memchr; far faster than a JS loop over megabytes.
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (;;) {
    const next = buffer.indexOf(0x0a, at);
    if (next < 0 || next >= to) return count;
    count++;
    at = next + 1;
  }
}

/**
 * Where to cut `bytes[0, length)` when what follows is unknown (dropped): before a last sequence
 * that its lead byte says is unfinished, so a cut never splits a character.
 */
export function lastCompleteBoundary(bytes: Uint8Array, length: number): number {
  if (length === 0) return 0;
  const last = unitAround(bytes.subarray(0, length), length - 1);
  return last.end - last.start < sequenceLength(bytes[last.start]) ? last.start : length;
}
