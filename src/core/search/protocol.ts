/**
 * The messages between `lane.ts` (the caller's thread) and `service.ts` (the search worker). A
 * search carries its text: a retained copy's bytes (in transferred parts, fetched from the store
 * worker) or an open file the worker streams itself. Every search gets exactly one reply with its
 * `id` (the worker's shape: `WorkerReply`); a `cancel` gets none.
 */
import type { SearchAcrossResult, SearchMatch, SearchOptions } from '../types';

/** A file the caller opened and checked (files/openedFile.ts): the worker reads this descriptor, if it is still that file. */
export interface FileSource {
  kind: 'file';
  fd: number;
  dev: number;
  ino: number;
}

/**
 * Every readable output of some sessions, newest first (a search across outputs): the worker reads
 * the session files itself, read-only, as another process's view does, so no copy crosses threads.
 */
export interface SessionsSource {
  kind: 'sessions';
  /** The session files in scope. */
  sessions: { sessionId: string; file: string }[];
  /** Continue after this output (a page's cursor, decoded); with `from`, within it, from that byte offset on. */
  after?: OutputKey;
  /** Matches kept per output. At or above the search's maxMatches, none: a page full within an output ends there, its cursor continuing in it. */
  perOutput: number;
  /** ms after which the page ends with a cursor, whatever it found (a first page comes back fast). */
  pageMs: number;
  /** Only open the sessions' views and read their indexes (a warm-up before the first search): the page is empty. */
  warmOnly?: boolean;
}

/** Where an output sits in the newest-first order of a search across outputs. */
export interface OutputKey {
  createdAt: number;
  sessionId: string;
  outputId: string;
  /** In a cursor: the output is continued from this byte offset (its matches starting there or later), not after it. */
  from?: number;
}

export type SearchSource = { kind: 'bytes'; parts: Uint8Array[] } | FileSource | SessionsSource;

export interface SearchRequest {
  id: number;
  op: 'search';
  pattern: string;
  options: SearchOptions;
  /** Used in error messages (the output ID, or the path as the model gave it). */
  subject: string;
  source: SearchSource;
  /** ms the search may run in the worker (0: no limit). */
  timeoutMs: number;
}

export interface CancelRequest {
  op: 'cancel';
  id: number;
}

export type SearchWorkerRequest = SearchRequest | CancelRequest;

export interface SearchOutcome {
  matches: SearchMatch[];
  truncated: boolean;
  /** Bytes searched: the copy's or the file's size. */
  totalBytes: number;
  /** A file's secret-shaped values masked before the search (files/secretShapes.ts). */
  masked?: number;
  /** A search across outputs: its page (`matches` is then empty; the cursor is `next`, encoded by the caller). */
  across?: Omit<SearchAcrossResult, 'cursor'> & { next?: OutputKey };
}
