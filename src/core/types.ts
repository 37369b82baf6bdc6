/** Public shapes of the engine (re-exported from `dist/core.js`; add fields, never rename). */

export interface RetainMeta {
  /** The tool or source that produced the output (e.g. `run_command`). */
  tool?: string;
  /** A human title: the command line, the query, the file. */
  title?: string;
  /**
   * Set false when the content is already missing bytes (a capped capture); the copy is then
   * incomplete even if it fits the copy cap.
   */
  complete?: boolean;
  /** Bytes the producer already dropped before retention (adds to `droppedBytes`). */
  droppedBytes?: number;
  /** Where the producer's own gap sits in `content`, as a byte offset. */
  gapOffset?: number;
  /** Anything JSON-serialisable the caller wants back from `list()` (exit status, streams…). */
  extra?: Record<string, unknown>;
}

export interface RetainResult {
  outputId: string;
  /** Bytes in the retained copy (what `read` pages over). */
  totalBytes: number;
  complete: boolean;
  /** Bytes of the original output that are not in the copy. */
  droppedBytes: number;
}

export interface ReadResult {
  text: string;
  nextOffset: number;
  totalBytes: number;
  hasMore: boolean;
  /** Completeness of the copy, not of this page. */
  complete: boolean;
}

export interface SearchOptions {
  regex?: boolean;
  caseSensitive?: boolean;
  /** 1..1000, default 50. */
  maxMatches?: number;
}

export interface SearchMatch {
  /** Byte offset of the match: a valid `read` offset. */
  offset: number;
  /** Byte offset of the start of the matching line (also a valid `read` offset). */
  lineOffset: number;
  /** 1-based line number. */
  line: number;
  /** The matching line, clipped around the match. */
  text: string;
}

export interface SearchResult {
  matches: SearchMatch[];
  /** True when more matches exist than were returned. */
  truncated: boolean;
  totalBytes: number;
  complete: boolean;
}

export interface OutputInfo {
  outputId: string;
  tool?: string;
  title?: string;
  createdAt: number;
  totalBytes: number;
  complete: boolean;
  droppedBytes: number;
  gapOffset?: number;
  evicted: boolean;
  extra?: Record<string, unknown>;
}

export interface OpenReport {
  /** Set when the session file would not open: where it was moved, and why. */
  movedAside?: { path: string; reason: string };
  /**
   * Set when a journal file ended in a torn or damaged record (a crash mid-append, or damage): the
   * records before it were replayed; the file was kept aside at `path`, `bytesIgnored` not replayed.
   */
  journalTruncated?: { path: string; bytesIgnored: number }[];
}

/** A session's counts, and whether saving it keeps up. */
export interface StoreStats {
  outputs: number;
  retainedBytes: number;
  evicted: number;
  /** Bytes of journal files on disk: changes acknowledged since the last checkpoint that succeeded. */
  journalBytes: number;
  /** Journal bytes past which `retain` rejects with STORE_UNAVAILABLE. */
  journalLimitBytes: number;
  /** Present while the latest checkpoint failed (`at` in epoch ms); absent once one succeeds. */
  lastCheckpointError?: { message: string; code?: string; at: number };
}

/**
 * What callers need of a session store. `SessionStore` implements it in-process; the worker client
 * implements it over a worker thread so the caller's thread never blocks on the database.
 */
export interface RecallStore {
  readonly sessionId: string;
  readonly copyBytes: number;
  readonly quotaBytes: number;
  readonly journalLimitBytes: number;
  retain(content: string | Uint8Array, meta?: RetainMeta): Promise<RetainResult>;
  read(outputId: string, offset?: number, maxBytes?: number): Promise<ReadResult>;
  search(outputId: string, pattern: string, options?: SearchOptions): Promise<SearchResult>;
  readAll(outputId: string): Promise<Uint8Array>;
  info(outputId: string): Promise<OutputInfo>;
  list(): Promise<OutputInfo[]>;
  stats(): Promise<StoreStats>;
  remove(outputId: string): Promise<void>;
  close(): Promise<void>;
  delete(): Promise<void>;
}
