/**
 * Paging a retained copy by UTF-8 byte offset. Pure: it works on a window of the copy that the
 * store fetches, so a page never needs the whole copy. Also the one page-size clamp that every
 * reader (read_tool_output, read_file_page, the page setting) goes through.
 */
import { decodeUtf8, pageCut, rejectMidCharacter } from './utf8';
import type { ReadResult } from './types';
import { DEFAULT_LIMITS } from './limits';
import { READ_TOOL_OUTPUT_TOOL } from './toolNames';

/** Bytes of context either side of a page needed to decide character boundaries. */
export const PAGE_CONTEXT = 3;

export interface PageRequest {
  outputId: string;
  offset: number;
  maxBytes: number;
  totalBytes: number;
  complete: boolean;
}

/**
 * The page size a reader uses: `limit` (a page setting, or the largest page) when none is requested,
 * else the requested size held to `limit`; `limit` is itself held to DEFAULT_LIMITS.pageBytes, so
 * neither a request nor a setting gets a larger page. It only clamps: a request was validated where
 * it came in (a tool's schema and its spec's validate; the store's own read for its callers).
 */
export function clampPageBytes(requested: number | undefined, limit: number = DEFAULT_LIMITS.pageBytes): number {
  return Math.min(requested ?? limit, limit, DEFAULT_LIMITS.pageBytes);
}

/**
 * The page `[offset, end)` of the copy, where `window` holds copy bytes from `windowStart` to at
 * least `offset + maxBytes + PAGE_CONTEXT` (or the end) and from at least `offset - PAGE_CONTEXT`.
 */
export function pageFromWindow(request: PageRequest, window: Uint8Array, windowStart: number): ReadResult {
  const { outputId, offset, maxBytes, totalBytes, complete } = request;
  if (offset === totalBytes) return { text: '', nextOffset: totalBytes, totalBytes, hasMore: false, complete };
  const start = offset - windowStart;
  rejectMidCharacter(
    window,
    start,
    windowStart,
    (before, after) =>
      `offset ${offset} is inside a UTF-8 character of output ${outputId} (the character spans bytes ${before} to ${after}). Use a character boundary: ${READ_TOOL_OUTPUT_TOOL} {"outputId":"${outputId}","offset":${before}} or {"outputId":"${outputId}","offset":${after}}.`,
  );
  let end: number;
  if (offset + maxBytes >= totalBytes) {
    end = totalBytes - windowStart;
  } else {
    end = pageCut(window, start, offset + maxBytes - windowStart);
  }
  const nextOffset = windowStart + end;
  return { text: decodeUtf8(window.subarray(start, end)), nextOffset, totalBytes, hasMore: nextOffset < totalBytes, complete };
}

/** Below this page size the fitting loop stops halving and returns the page whatever its size. */
export const MIN_FIT_PAGE_BYTES = 16;

/**
 * Reads a page at `maxBytes` and renders it; while the rendering is over `limitBytes` UTF-8 bytes,
 * reads the page again at half the size. JSON escaping can make a page up to six times its size
 * (a control character becomes `\u0001`), past one result part; a smaller page keeps the JSON whole
 * and `nextOffset` exact, where splitting the rendering would split the JSON. Every page is cut by
 * the pager, so it still holds whole characters.
 */
export async function readFittingPage(
  read: (maxBytes: number) => Promise<ReadResult>,
  render: (page: ReadResult) => string,
  maxBytes: number,
  limitBytes: number,
): Promise<{ page: ReadResult; text: string }> {
  let size = maxBytes;
  let page = await read(size);
  let text = render(page);
  while (Buffer.byteLength(text, 'utf8') > limitBytes && size > MIN_FIT_PAGE_BYTES) {
    size = Math.floor(size / 2);
    page = await read(size);
    text = render(page);
  }
  return { page, text };
}
