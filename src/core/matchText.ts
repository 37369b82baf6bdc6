/**
 * The text a search match carries: its whole line when the line is short enough to answer a
 * one-line question without a read, else a window around the match with the window's byte range,
 * so the reader knows the line was clipped and where to read on.
 */
import { boundaryAtOrAfter, boundaryAtOrBefore, decodeUtf8 } from './utf8';

/** A line up to this many bytes is shown whole. */
export const MATCH_LINE_BYTES = 400;
/** A longer one as a window of at most this many bytes, this many of them before the match. */
export const MATCH_WINDOW_BYTES = 320;
const WINDOW_BEFORE = 100;

export interface MatchText {
  text: string;
  /** Set when `text` is a window of a longer line: its bytes `[from, to)`, and the line's length when known. */
  window?: { from: number; to: number; lineBytes?: number };
}

/**
 * The text for a match at `offset` of `bytes`, whose line starts at `lineFrom` (both positions in
 * `bytes`); `base` is the offset of `bytes[0]` in the whole text (the window's range is given in
 * whole-text offsets), and `lineBeganBefore` says the line starts before `bytes` (so it is long).
 */
export function matchText(bytes: Buffer, lineFrom: number, offset: number, base = 0, lineBeganBefore = false): MatchText {
  let end = bytes.indexOf(0x0a, offset);
  if (end < 0) end = bytes.length;
  if (end > lineFrom && bytes[end - 1] === 0x0d) end--;
  if (!lineBeganBefore && end - lineFrom <= MATCH_LINE_BYTES) return { text: decodeUtf8(bytes.subarray(lineFrom, end)) };
  // The match starts at most WINDOW_BEFORE bytes in, so the window always holds its start.
  const from = Math.max(lineFrom, boundaryAtOrAfter(bytes, offset - WINDOW_BEFORE));
  const to = Math.min(end, boundaryAtOrBefore(bytes, from + MATCH_WINDOW_BYTES));
  const text = `${from > lineFrom || lineBeganBefore ? '…' : ''}${decodeUtf8(bytes.subarray(from, to))}${to < end ? '…' : ''}`;
  const window: MatchText['window'] = { from: base + from, to: base + to };
  if (!lineBeganBefore) window.lineBytes = end - lineFrom;
  return { text, window };
}
