/**
 * Where a stream of output may be cut into two writes to the notable scanner (scanner.ts) without
 * changing what it finds: previewSource.ts streams a large string's middle through a bounded
 * buffer and ends each write at such a place.
 */

/**
 * The last position in `bytes(from, end]` (0 if none) where the bytes may be written in two writes,
 * split there, and the scan still find exactly what one write finds: just after a line break, as
 * no pattern, no classification and no entry's text reads across one (a word ends before it; a
 * summary's line, a hit's window end there; what is read back is carried). Except lookaheads that
 * read blanks, line breaks among them: `result` before `:` or `=`, a JSON key's quote before its
 * colon, the value after a key's colon (`[ ]`, `{ }`), each over at most 8 blanks. So a line break
 * that such a word or character precedes by fewer blanks is no place to split.
 */
export function safeChunkEnd(bytes: Buffer, from: number, end: number): number {
  for (let at = end > 0 ? bytes.lastIndexOf(0x0a, end - 1) : -1; at >= from; at = at > 0 ? bytes.lastIndexOf(0x0a, at - 1) : -1) {
    let last = at;
    while (last > 0 && at - last <= LOOKAHEAD_BLANKS && isLatin1Blank(bytes[last])) last--;
    if (at - last > LOOKAHEAD_BLANKS || !continuesAfter(bytes, last)) return at + 1;
  }
  return 0;
}

/** The most blanks a lookahead reads past a hit (`"\s{0,8}:`, the value after `:`). */
const LOOKAHEAD_BLANKS = 8;
/** What `\s` matches in latin1: tab to carriage return, space, no-break space. */
const isLatin1Blank = (byte: number): boolean => (byte >= 0x09 && byte <= 0x0d) || byte === 0x20 || byte === 0xa0;
const RESULT = Buffer.from('result');

/** Whether a lookahead of a hit ending at `bytes[last]` (inclusive) may read on past blanks. */
function continuesAfter(bytes: Buffer, last: number): boolean {
  const byte = bytes[last];
  if (byte === 0x22 || byte === 0x3a || byte === 0x5b || byte === 0x7b) return true; // " : [ {
  const word = (byte | 0x20) === 0x73 ? last - 1 : last; // results
  if (word < RESULT.length - 1) return false;
  for (let i = 0; i < RESULT.length; i++) if ((bytes[word - RESULT.length + 1 + i] | 0x20) !== RESULT[i]) return false;
  return true;
}
