/**
 * Finding text in a retained copy, so a model jumps to a field instead of paging through 8 MiB.
 * Every match is reported with its byte offset (a valid `read` offset) and its line.
 */
import { RecallError } from './errors';
import { countNewlines, decodeUtf8, unitLengthAt, boundaryAtOrAfter, boundaryAtOrBefore } from './utf8';
import type { SearchMatch, SearchOptions } from './types';
import { SEARCH_TOOL_OUTPUT_TOOL } from './toolNames';

export const MAX_MATCHES = 1000;
const DEFAULT_MATCHES = 50;
const MAX_PATTERN_LENGTH = 1000;
/** Bytes of a long line shown around a match. */
const CONTEXT_BEFORE = 80;
const CONTEXT_AFTER = 160;

export interface CompiledSearch {
  regex: RegExp;
  maxMatches: number;
  /**
   * The pattern is literal ASCII: it can run over the bytes read as latin1 (one byte, one char), so
   * match indexes are byte offsets and the UTF-8 decode is skipped. Case-insensitive matching stays
   * exact: no non-ASCII latin1 character case-folds to an ASCII one without the `u` flag.
   */
  byteExact: boolean;
}

export function compileSearch(outputId: string, pattern: unknown, options: SearchOptions = {}): CompiledSearch {
  if (typeof pattern !== 'string' || pattern.length === 0 || pattern.length > MAX_PATTERN_LENGTH) {
    throw new RecallError(
      'INVALID_ARGUMENT',
      `pattern must be a non-empty string of at most ${MAX_PATTERN_LENGTH} characters. Example: ${SEARCH_TOOL_OUTPUT_TOOL} {"outputId":"${outputId}","pattern":"total"}.`,
    );
  }
  const maxMatches = options.maxMatches ?? DEFAULT_MATCHES;
  if (!Number.isInteger(maxMatches) || maxMatches < 1 || maxMatches > MAX_MATCHES) {
    throw new RecallError(
      'INVALID_ARGUMENT',
      `maxMatches must be an integer from 1 to ${MAX_MATCHES}; got ${JSON.stringify(options.maxMatches)}.`,
    );
  }
  const flags = `gm${options.caseSensitive ? '' : 'i'}`;
  const source = options.regex ? pattern : pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  try {
    return { regex: new RegExp(source, flags), maxMatches, byteExact: !options.regex && /^[\x00-\x7f]*$/.test(pattern) };
  } catch (error) {
    throw new RecallError(
      'INVALID_ARGUMENT',
      `pattern is not a valid JavaScript regular expression (${(error as Error).message}). Fix it, or pass "regex": false to search for the literal text.`,
    );
  }
}

/** Runs a compiled search over the whole copy. Returns at most `maxMatches` and whether more exist. */
export function searchBytes(bytes: Buffer, search: CompiledSearch): { matches: SearchMatch[]; truncated: boolean } {
  const text = search.byteExact ? bytes.toString('latin1') : decodeUtf8(bytes);
  const toByteOffset = search.byteExact ? (index: number) => index : byteOffsetMapper(bytes, text);
  const { regex, maxMatches } = search;
  regex.lastIndex = 0;
  const matches: SearchMatch[] = [];
  let line = 1;
  let lineCountedTo = 0;
  for (let found = regex.exec(text); found; found = regex.exec(text)) {
    if (found[0].length === 0) regex.lastIndex = advance(text, regex.lastIndex);
    // Without the `u` flag a match can begin between the two halves of a surrogate pair (e.g. `.`):
    // no byte offset names that position, so skip it (mapping it would also shift later offsets).
    if (isLowSurrogate(text.charCodeAt(found.index)) && isHighSurrogate(text.charCodeAt(found.index - 1))) continue;
    if (matches.length === maxMatches) return { matches, truncated: true };
    const offset = toByteOffset(found.index);
    line += countNewlines(bytes, lineCountedTo, offset);
    lineCountedTo = offset;
    // (lastIndexOf with a negative start would search from the end of the buffer.)
    const lineOffset = offset === 0 ? 0 : bytes.lastIndexOf(0x0a, offset - 1) + 1;
    matches.push({ offset, lineOffset, line, text: lineExcerpt(bytes, lineOffset, offset) });
  }
  return { matches, truncated: false };
}

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

function advance(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return index + (code >= 0xd800 && code <= 0xdbff ? 2 : 1);
}

/**
 * Maps increasing UTF-16 indexes of `text` to byte offsets in `bytes`. Re-encoding a slice is exact
 * when the bytes were valid UTF-8; when they were not, U+FFFD stands for 1-3 original bytes, so the
 * mapping walks the decoding units instead.
 */
function byteOffsetMapper(bytes: Buffer, text: string): (index: number) => number {
  let charAt = 0;
  let byteAt = 0;
  if (!text.includes('\uFFFD')) {
    return (index) => {
      byteAt += Buffer.byteLength(text.slice(charAt, index), 'utf8');
      charAt = index;
      return byteAt;
    };
  }
  return (index) => {
    while (charAt < index) {
      const length = unitLengthAt(bytes, byteAt);
      charAt += length === 4 && bytes[byteAt] >= 0xf0 ? 2 : 1;
      byteAt += length;
    }
    return byteAt;
  };
}

function lineExcerpt(bytes: Buffer, lineOffset: number, offset: number): string {
  let lineEnd = bytes.indexOf(0x0a, offset);
  if (lineEnd < 0) lineEnd = bytes.length;
  if (lineEnd > lineOffset && bytes[lineEnd - 1] === 0x0d) lineEnd--;
  const from = Math.max(lineOffset, boundaryAtOrBefore(bytes, offset - CONTEXT_BEFORE));
  const to = Math.min(lineEnd, boundaryAtOrAfter(bytes, offset + CONTEXT_AFTER));
  const text = decodeUtf8(bytes.subarray(from, to));
  return `${from > lineOffset ? '…' : ''}${text}${to < lineEnd ? '…' : ''}`;
}
