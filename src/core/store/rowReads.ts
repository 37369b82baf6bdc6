/**
 * A page and a search of one copy, given its row and a way to fetch its bytes: the same for the
 * session store and the read-only view of another process's session (readOnlySession.ts).
 */
import { PAGE_CONTEXT, pageFromWindow, validatePageRequest } from '../pager';
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

export function searchRow(row: OutputRow, outputId: string, pattern: string, options: SearchOptions, bytes: RowBytes): SearchResult {
  const compiled = compileSearch(outputId, pattern, options);
  const found = searchBytes(bytes(row, 0, row.total_bytes, false), compiled);
  return { ...found, totalBytes: row.total_bytes, complete: row.complete === 1 };
}
