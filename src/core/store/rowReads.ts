/**
 * A page and a search of one copy, given its row and a way to fetch its bytes: the same for the
 * session store and the read-only view of another process's session (readOnlySession.ts).
 */
import { RecallError } from '../errors';
import { DEFAULT_LIMITS } from '../limits';
import { clampPageBytes, PAGE_CONTEXT, pageFromWindow } from '../pager';
import { READ_TOOL_OUTPUT_TOOL, SEARCH_TOOL_OUTPUT_TOOL } from '../toolNames';
import { compileSearch, searchBytes } from '../search';
import type { ReadResult, SearchOptions, SearchResult } from '../types';
import type { OutputRow } from './outputRows';

/** Bytes [from, to) of the copy `row` describes; `cache`: worth keeping decoded (a page, not a whole-copy scan). */
export type RowBytes = (row: OutputRow, from: number, to: number, cache: boolean) => Buffer;

export function readRow(row: OutputRow, outputId: string, offset: number, maxBytes: number, bytes: RowBytes): ReadResult {
  const pageBytes = validatePageRequest(outputId, offset, maxBytes, row.total_bytes);
  const request = { outputId, offset, maxBytes: pageBytes, totalBytes: row.total_bytes, complete: row.complete === 1 };
  if (offset === row.total_bytes) return pageFromWindow(request, new Uint8Array(0), offset);
  const windowStart = Math.max(0, offset - PAGE_CONTEXT);
  const windowEnd = Math.min(row.total_bytes, offset + pageBytes + PAGE_CONTEXT);
  return pageFromWindow(request, bytes(row, windowStart, windowEnd, true), windowStart);
}

/**
 * The store's check of a read before any bytes are fetched; returns the page size. The range check
 * needs the copy's size, so only the store can make it. The type checks are there because the store
 * is an edge of its own (dist/core.js's `openStore`, the extension's API): a tool's input has passed
 * its schema by now, so for a tool they never fire.
 */
function validatePageRequest(outputId: string, offset: unknown, maxBytes: unknown, totalBytes: number): number {
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
  return clampPageBytes(maxBytes);
}

export function searchRow(row: OutputRow, outputId: string, pattern: string, options: SearchOptions, bytes: RowBytes): SearchResult {
  const compiled = compileSearch(outputId, pattern, options);
  const found = searchBytes(bytes(row, 0, row.total_bytes, false), compiled);
  return { ...found, totalBytes: row.total_bytes, complete: row.complete === 1 };
}
