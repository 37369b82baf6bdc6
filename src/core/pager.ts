/**
 * Paging a retained copy by UTF-8 byte offset. Pure: it works on a window of the copy that the
 * store fetches, so a page never needs the whole copy.
 */
import { RecallError } from './errors';
import { decodeUtf8, unitAround } from './utf8';
import type { ReadResult } from './types';
import { DEFAULT_LIMITS } from './limits';
import { READ_TOOL_OUTPUT_TOOL, SEARCH_TOOL_OUTPUT_TOOL } from './toolNames';

/** Bytes of context either side of a page needed to decide character boundaries. */
export const PAGE_CONTEXT = 3;

export interface PageRequest {
  outputId: string;
  offset: number;
  maxBytes: number;
  totalBytes: number;
  complete: boolean;
}

/** Checks `offset` and `maxBytes` before any bytes are fetched; returns the clamped page size. */
export function validatePageRequest(outputId: string, offset: unknown, maxBytes: unknown, totalBytes: number): number {
  if (typeof offset !== 'number' || !Number.isInteger(offset) || offset < 0) {
    throw new RecallError(
      'INVALID_ARGUMENT',
      `offset must be a non-negative integer byte offset; got ${JSON.stringify(offset)}. Start with ${READ_TOOL_OUTPUT_TOOL} {"outputId":"${outputId}","offset":0} and follow nextOffset.`,
    );
  }
  if (typeof maxBytes !== 'number' || !Number.isInteger(maxBytes) || maxBytes < 1) {
    throw new RecallError(
      'INVALID_ARGUMENT',
      `maxBytes must be an integer from 1 to ${DEFAULT_LIMITS.pageBytes}; got ${JSON.stringify(maxBytes)}. Omit it to get ${DEFAULT_LIMITS.pageBytes}-byte pages.`,
    );
  }
  if (offset > totalBytes) {
    throw new RecallError(
      'OFFSET_OUT_OF_RANGE',
      `offset ${offset} is past the end of output ${outputId}, which holds ${totalBytes} bytes (valid offsets: 0 to ${totalBytes}). Read from 0, or use ${SEARCH_TOOL_OUTPUT_TOOL} to find an offset.`,
      { totalBytes },
    );
  }
  return Math.min(maxBytes, DEFAULT_LIMITS.pageBytes);
}

/**
 * The page `[offset, end)` of the copy, where `window` holds copy bytes from `windowStart` to at
 * least `offset + maxBytes + PAGE_CONTEXT` (or the end) and from at least `offset - PAGE_CONTEXT`.
 */
export function pageFromWindow(request: PageRequest, window: Uint8Array, windowStart: number): ReadResult {
  const { outputId, offset, maxBytes, totalBytes, complete } = request;
  if (offset === totalBytes) return { text: '', nextOffset: totalBytes, totalBytes, hasMore: false, complete };
  const start = offset - windowStart;
  const unit = unitAround(window, start);
  if (unit.start !== start) {
    const before = windowStart + unit.start;
    const after = windowStart + unit.end;
    throw new RecallError(
      'MID_CHARACTER_OFFSET',
      `offset ${offset} is inside a UTF-8 character of output ${outputId} (the character spans bytes ${before} to ${after}). Use a character boundary: ${READ_TOOL_OUTPUT_TOOL} {"outputId":"${outputId}","offset":${before}} or {"outputId":"${outputId}","offset":${after}}.`,
      { before, after },
    );
  }
  let end: number;
  if (offset + maxBytes >= totalBytes) {
    end = totalBytes - windowStart;
  } else {
    const target = offset + maxBytes - windowStart;
    const cut = unitAround(window, target);
    // Never end inside a character, yet always return at least one whole character.
    end = cut.start === target ? target : cut.start > start ? cut.start : cut.end;
  }
  const nextOffset = windowStart + end;
  return { text: decodeUtf8(window.subarray(start, end)), nextOffset, totalBytes, hasMore: nextOffset < totalBytes, complete };
}
