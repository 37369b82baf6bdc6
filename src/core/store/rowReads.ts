/**
 * The reads of a session, over its index and a way to fetch a copy's bytes: the same for the session
 * store (sessionStore.ts) and the read-only view of another process's session (readOnlySession.ts).
 * A read written here is both stores' at once; `stats` and `close` are each their own.
 */
import type { Database } from 'sql.js';
import { RecallError } from '../errors';
import { DEFAULT_LIMITS } from '../limits';
import { clampPageBytes, PAGE_CONTEXT, pageFromWindow } from '../pager';
import { READ_TOOL_OUTPUT_TOOL, SEARCH_TOOL_OUTPUT_TOOL } from '../toolNames';
import type { LineFacts, NotableMarks, OutputInfo, ReadResult, SearchMatch, SearchOptions, SearchResult } from '../types';
import { lookupRow, toInfo, type OutputRow } from './outputRows';
import { queryRows } from './schema';

export interface CopySlice {
  bytes: Uint8Array;
  totalBytes: number;
  complete: boolean;
}

/**
 * What the store uses of the rooms above it, which it does not import: given by whoever composes
 * it (workers/stores.ts).
 */
export interface CopyEngines {
  /** One count of a copy's line breaks per block, as `extra.lines` holds it (LineTally's). */
  countLines(bytes: Uint8Array): LineFacts;
  /**
   * A search compiled (INVALID_ARGUMENT for a bad one, before any bytes are read), to run over a
   * whole copy on this thread (search/): at most `maxMatches`, and whether more exist.
   */
  searchFor(outputId: string, pattern: string, options: SearchOptions): (bytes: Buffer) => { matches: SearchMatch[]; truncated: boolean };
  /** Where a whole copy's notable lines are (notable/marks.ts). */
  notableMarks(bytes: Buffer): NotableMarks;
}

export abstract class SessionReads {
  abstract readonly quotaBytes: number;
  protected abstract readonly engines: CopyEngines;

  /** The index as this reader sees it; STORE_CLOSED once closed. */
  protected abstract index(): Database;

  /** Bytes [from, to) of the copy `row` describes; `cache`: worth keeping decoded (a page, not a whole-copy scan). */
  protected abstract bytes(row: OutputRow, from: number, to: number, cache: boolean): Buffer;

  /** Runs a read of copies' bytes (the read-only view reads its session again when a segment is gone, and retries). */
  protected abstract reading<T>(read: () => T): Promise<T>;

  read(outputId: string, offset = 0, maxBytes: number = DEFAULT_LIMITS.pageBytes): Promise<ReadResult> {
    return this.reading(() => readRow(this.lookup(outputId), outputId, offset, maxBytes, (...args) => this.bytes(...args)));
  }

  search(outputId: string, pattern: string, options: SearchOptions = {}): Promise<SearchResult> {
    return this.reading(() => {
      const row = this.lookup(outputId);
      const found = this.engines.searchFor(outputId, pattern, options)(this.bytes(row, 0, row.total_bytes, false));
      return { ...found, totalBytes: row.total_bytes, complete: row.complete === 1 };
    });
  }

  /** The whole copy (at most the copy cap), e.g. to open it in an editor or save it as a file. */
  readAll(outputId: string): Promise<Buffer> {
    return this.reading(() => {
      const row = this.lookup(outputId);
      return this.bytes(row, 0, row.total_bytes, false);
    });
  }

  /** The line facts recorded with the copy; for a copy retained before they were, counted here once per call. */
  lineFacts(outputId: string): Promise<LineFacts> {
    return this.reading(() => {
      const row = this.lookup(outputId);
      return (
        recordedLines(toInfo(row).extra?.lines, row.total_bytes) ?? this.engines.countLines(this.bytes(row, 0, row.total_bytes, false))
      );
    });
  }

  /** Where the copy's notable lines are: a scan of the whole copy, so it waits its turn like `readAll`. */
  notableMarks(outputId: string): Promise<NotableMarks> {
    return this.reading(() => {
      const row = this.lookup(outputId);
      return this.engines.notableMarks(this.bytes(row, 0, row.total_bytes, false));
    });
  }

  /** Bytes [from, to) of a copy, clamped to it, with its size and completeness (a search fetches a copy in slices). */
  slice(outputId: string, from: number, to: number): Promise<CopySlice> {
    return this.reading(() => {
      const row = this.lookup(outputId);
      const end = Math.min(to, row.total_bytes);
      return { bytes: this.bytes(row, Math.min(from, end), end, false), totalBytes: row.total_bytes, complete: row.complete === 1 };
    });
  }

  async info(outputId: string): Promise<OutputInfo> {
    return toInfo(this.lookup(outputId, true));
  }

  /** Every copy of the session, newest first (evicted ones included, flagged). */
  async list(): Promise<OutputInfo[]> {
    return this.rows().map(toInfo);
  }

  /** Every copy's row, newest first. */
  protected rows(): OutputRow[] {
    return queryRows<OutputRow>(this.index(), 'SELECT * FROM outputs ORDER BY seq DESC');
  }

  /** Whether the session holds this output (evicted or not). */
  has(outputId: string): boolean {
    return queryRows(this.index(), 'SELECT 1 FROM outputs WHERE id = ?', [outputId]).length > 0;
  }

  protected lookup(outputId: string, allowEvicted = false): OutputRow {
    return lookupRow(this.index(), outputId, this.quotaBytes, allowEvicted);
  }
}

const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0;

/** `lines` when they are line facts of a copy of `totalBytes` (they come from free-form JSON: every field is checked). */
export function recordedLines(lines: unknown, totalBytes: number): LineFacts | undefined {
  if (typeof lines !== 'object' || lines === null) return undefined;
  const facts = lines as Record<keyof LineFacts, unknown>;
  const { breaks, blockBytes, before } = facts;
  if (facts.totalBytes !== totalBytes || !isCount(breaks) || !isCount(facts.lines) || !isCount(blockBytes) || blockBytes === 0)
    return undefined;
  if (!Array.isArray(before) || before.length !== Math.ceil(totalBytes / blockBytes) || !before.every(isCount)) return undefined;
  return lines as LineFacts;
}

type RowBytes = (row: OutputRow, from: number, to: number, cache: boolean) => Buffer;

function readRow(row: OutputRow, outputId: string, offset: number, maxBytes: number, bytes: RowBytes): ReadResult {
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
