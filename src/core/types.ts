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
  /**
   * The outputId to keep the copy under, made by the caller with `newOutputId` (default: a new one):
   * a caller that names the id in the text it records with the copy (`extra.preview`) writes one
   * journal record instead of a retain and then an annotate.
   */
  outputId?: string;
  /**
   * The notable lines a capture saw in the bytes it dropped (its lines are `dropped: true`), kept
   * with the copy so a search or the inspector can say what the missing part held.
   */
  notable?: NotableDigest;
}

/** One notable line (or, in a very long line, one notable spot of it). */
export interface NotableLine {
  class: 'error' | 'summary' | 'warning';
  /** 1-based line number: of the copy, or of the original output when `dropped`. */
  line: number;
  /**
   * Byte offset where the line starts (in a line longer than a page, where the notable spot's
   * text starts): a valid `read` offset of the copy, or of the original output when `dropped`.
   */
  offset: number;
  /** The line (or the spot), clipped to a short length. */
  text: string;
  /** Occurrences of this line (digits aside) in the part scanned. */
  count: number;
  /** The last occurrence, when `count` > 1. */
  lastLine?: number;
  lastOffset?: number;
  /** Seen by the capture in bytes it dropped: NOT in the copy, cannot be read back. */
  dropped?: boolean;
}

/** A bounded, deduplicated digest of the notable lines of a byte range. */
export interface NotableDigest {
  /** The lines kept (the first and most recent distinct ones of each class), in order of appearance. */
  lines: NotableLine[];
  /** Notable lines seen in the range, repeats included, kept or not. */
  counts: { error: number; summary: number; warning: number };
  /** Distinct notable lines seen (`lines` holds at most a bounded number of them). */
  distinct: number;
  /** The range scanned: bytes `[from, to)`, lines `fromLine` to `toLine`. */
  from: number;
  to: number;
  fromLine: number;
  toLine: number;
}

/**
 * Where a copy's notable lines are (the inspector's overview): every one counted; the copy cut into
 * `bins` equal byte ranges, each with its first line of each class and how many it holds; and the
 * first `listed` lines of each class with their text, in order of appearance.
 */
export interface NotableMarks {
  totalBytes: number;
  counts: NotableDigest['counts'];
  bins: number;
  marks: { class: NotableLine['class']; bin: number; offset: number; line: number; count: number }[];
  lines: { class: NotableLine['class']; line: number; offset: number; text: string }[];
  listed: number;
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
  /**
   * Aborting it stops the search, which rejects with CANCELLED (a worker store's search; an
   * in-process store searches on the caller's thread and cannot be interrupted).
   */
  signal?: AbortSignal;
}

export interface SearchMatch {
  /** Byte offset of the match: a valid `read` offset. */
  offset: number;
  /** Byte offset of the start of the matching line (also a valid `read` offset). */
  lineOffset: number;
  /** 1-based line number. */
  line: number;
  /** The matching line: whole up to a few hundred bytes, else a window around the match. */
  text: string;
  /**
   * Set when `text` is a window of a longer line: the window's bytes `[from, to)` in the copy (a
   * valid `read` offset each), and the whole line's length when known.
   */
  window?: { from: number; to: number; lineBytes?: number };
}

export interface SearchResult {
  matches: SearchMatch[];
  /** True when more matches exist than were returned. */
  truncated: boolean;
  totalBytes: number;
  complete: boolean;
  /**
   * For a copy that is missing bytes: what the capture saw in them, and the notable lines among
   * those that match the pattern (so "no match" can say the text was there before it was dropped).
   */
  dropped?: DroppedMatches;
}

/** What a search can say about the part of an output its copy does not hold. */
export interface DroppedMatches {
  /** Bytes the copy is missing. */
  bytes: number;
  /** Notable lines the capture saw in them, by class. */
  counts: NotableDigest['counts'];
  /** Those the capture kept text of that match the pattern (`dropped: true`, output line numbers). */
  matches: NotableLine[];
}

/**
 * One retained output as a listing shows it (`list_tool_outputs`, a search across outputs, the
 * inspector's Search All Outputs): from the session's index, never from the copy.
 */
export interface ListedOutput {
  outputId: string;
  /** The session that holds it: reading it from another session names this one. */
  sessionId: string;
  /** Who wrote that session: `VS Code`, or the agents an MCP server served (`claude-code`, …). */
  agents?: string[];
  tool?: string;
  /** The command line, the query, the file. */
  title?: string;
  createdAt: number;
  /** A command's exit code (null when a signal ended it), when the output is a command's. */
  exitCode?: number | null;
  signal?: string;
  totalBytes: number;
  droppedBytes: number;
  complete: boolean;
  /** The copy was evicted for the session's quota: listed, but it cannot be read. */
  evicted: boolean;
  /** The first notable line (an error, a failure, a summary) its facts name, clipped. */
  notable?: string;
}

/** One output's matches in a search across outputs (newest output first). */
export interface OutputHits {
  output: ListedOutput;
  matches: SearchMatch[];
  /** More matches exist in this output than were returned: search it alone for them. */
  truncated: boolean;
}

/** A page of a search across outputs. */
export interface SearchAcrossResult {
  groups: OutputHits[];
  /** Outputs and bytes searched for this page. */
  searchedOutputs: number;
  searchedBytes: number;
  /** Searched outputs whose copy is incomplete (bytes dropped at capture): a miss there proves nothing. */
  incompleteSearched: number;
  /** Outputs in scope in all (readable ones: not evicted). */
  outputsInScope: number;
  /** Set when outputs remain unsearched (the page's hits or its time ran out): pass it back to continue. */
  cursor?: string;
  /** Sessions in scope that could not be read, and outputs (`outputId`) whose copy could not, and why: they were not searched. */
  unreadable: { sessionId: string; outputId?: string; reason: string }[];
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
  /** What the capture saw in the bytes it dropped (see `RetainMeta.notable`). */
  notable?: NotableDigest;
}

/**
 * What one count of a copy's line breaks found (`LineTally`, previewSource.ts): enough to number the
 * line at any offset without counting the copy again (a reader counts only the block before it).
 * Kept with a copy as its `extra.lines`.
 */
export interface LineFacts {
  totalBytes: number;
  /** Line breaks in all. */
  breaks: number;
  /** Lines in all (a last line without a break counts). */
  lines: number;
  /** Bytes per block (LINE_BLOCK_BYTES). */
  blockBytes: number;
  /** `before[k]`: line breaks in bytes [0, k × blockBytes), one per block. */
  before: number[];
}

export interface OpenReport {
  /** Set when the session file would not open: where it was moved, and why. */
  movedAside?: { path: string; reason: string };
  /**
   * Set when a journal file held torn or damaged bytes (a crash mid-append, or damage): the records
   * around them were replayed; the file was kept aside at `path`; `skipped` says where the
   * `bytesIgnored` not replayed were (byte offsets in that file).
   */
  journalTruncated?: { path: string; bytesIgnored: number; skipped: { offset: number; bytes: number }[] }[];
  /**
   * Content segments the session's index names that were missing, torn or not regular files (moved
   * aside to `path` when there): the parts of `outputs` they held cannot be read.
   */
  segmentsLost?: { path: string; reason: string; outputs: string[] }[];
  /**
   * What was found among the segments that no checkpoint wrote, with no output lost: something not
   * a regular file under the name of a segment no index names, or bytes appended to a segment (it
   * reads as written; cut back to that). Kept aside at `aside`, as found; without `aside` it could
   * not be moved and is ignored where it is.
   */
  segmentsSetAside?: { path: string; reason: string; aside?: string }[];
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
 * What every store answers without changing its session: the session store, the worker store, and
 * the read-only view of another process's session (which has these and nothing more).
 */
export interface StoreReads {
  readonly sessionId: string;
  /** The session's file (its index), where a reader in another thread or process finds it. */
  readonly file: string;
  readonly copyBytes: number;
  readonly quotaBytes: number;
  readonly journalLimitBytes: number;
  read(outputId: string, offset?: number, maxBytes?: number): Promise<ReadResult>;
  search(outputId: string, pattern: string, options?: SearchOptions): Promise<SearchResult>;
  readAll(outputId: string): Promise<Uint8Array>;
  /** The copy's line facts: those recorded with it, or counted where the store runs (never by the caller). */
  lineFacts(outputId: string): Promise<LineFacts>;
  /** Where the copy's notable lines are, found where the store runs (never by the caller). */
  notableMarks(outputId: string): Promise<NotableMarks>;
  info(outputId: string): Promise<OutputInfo>;
  list(): Promise<OutputInfo[]>;
  stats(): Promise<StoreStats>;
  close(): Promise<void>;
}

/** What changes a session: only its owner's store does it (a read-only view refuses each one). */
export interface StoreChanges {
  /** `options.transfer`: the caller will not read the bytes again (a worker store moves their buffer instead of copying it; others ignore it). */
  retain(content: string | Uint8Array, meta?: RetainMeta, options?: { transfer?: boolean }): Promise<RetainResult>;
  remove(outputId: string): Promise<void>;
  /**
   * Merges `extra` into an output's `extra` (shallow: each key replaces the one it names). Durable like
   * `remove`: journalled before it is applied, replayed after a crash. NOT_FOUND for an unknown id,
   * EVICTED for an evicted copy, INVALID_ARGUMENT when the JSON of `extra` is over 256 KiB or not a plain object.
   */
  annotate(outputId: string, extra: Record<string, unknown>): Promise<void>;
  delete(): Promise<void>;
}

/**
 * What callers need of a session store. `SessionStore` implements it in-process; the worker client
 * implements it over a worker thread so the caller's thread never blocks on the database.
 */
export interface RecallStore extends StoreReads, StoreChanges {}
