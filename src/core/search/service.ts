/**
 * The search worker: runs searches sent by `lane.ts` on its own thread, so no search, however
 * long, holds up the store worker's reads or the caller's thread. A search runs in slices; between
 * them a `cancel` for it gets through, and it stops at its time limit.
 */
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import type { MessagePort } from 'node:worker_threads';
import { collectGarbageInWorker } from '../worker/collectGarbage';
import { serializeError } from '../worker/errors';
import type { WorkerReply } from '../worker/reply';
import { compileSearch, MatchCollector, searchWindow, wholeWindow, type CompiledSearch } from './index';
import type { FileSource, SearchOutcome, SearchRequest, SearchWorkerRequest, SessionsSource } from './protocol';
import { PAGING, PagesAhead, type PagingTiming, type SessionsRequest } from './pagesAhead';
import { runSliced, type StepControl } from './sliced';

type Port = Pick<MessagePort, 'on' | 'postMessage'>;

/** Compiled patterns by request shape: a model often searches several outputs for the same pattern. */
const COMPILED_CACHE_ENTRIES = 32;

/**
 * How a file named by its descriptor is searched (files/fileSearch.ts `scanFile`: read in windows,
 * secrets masked). Handed in by the worker's entry, so that search, below files, does not import it.
 */
export type FileScan = (source: FileSource, search: CompiledSearch, control: StepControl) => Promise<SearchOutcome>;

/** How sessions' outputs are searched (workers/sessionScan.ts), handed in for the same reason: search is below the store. */
export type SessionsScan = (source: SessionsSource, search: CompiledSearch, control: StepControl) => Promise<SearchOutcome>;

export function serveSearches(port: Port, scanFile: FileScan, scanSessions: SessionsScan, paging: PagingTiming = PAGING): void {
  lowerPriority();
  const cancelled = new Set<number>();
  const compiled = new Map<string, CompiledSearch>();
  const compile = (request: SearchRequest): CompiledSearch => {
    const key = JSON.stringify([request.pattern, request.options]);
    let search = compiled.get(key);
    if (!search) {
      search = compileSearch(request.subject, request.pattern, request.options);
      if (compiled.size >= COMPILED_CACHE_ENTRIES) compiled.delete(compiled.keys().next().value as string);
      compiled.set(key, search);
    }
    return search;
  };
  const run = async (request: SearchRequest): Promise<SearchOutcome> => {
    const search = compile(request);
    const control: StepControl = {
      cancelled: () => cancelled.has(request.id),
      deadline: request.timeoutMs > 0 ? performance.now() + request.timeoutMs : Infinity,
      timeoutMs: request.timeoutMs,
    };
    const { source } = request;
    if (source.kind === 'file') return scanFile(source, search, control);
    if (source.kind === 'sessions') return scanSessions(source, search, control);
    const bytes = source.parts.length === 1 ? toBuffer(source.parts[0]) : Buffer.concat(source.parts);
    const found = new MatchCollector(search.maxMatches);
    await runSliced(searchWindow(search, wholeWindow(bytes), found), control);
    return { matches: found.matches, truncated: found.truncated, totalBytes: bytes.length };
  };
  const pages = new PagesAhead(run, (id, stop) => (stop ? cancelled.add(id) : cancelled.delete(id)), paging);
  port.on('message', (request: SearchWorkerRequest) => {
    if (request?.op === 'cancel') {
      cancelled.add(request.id);
      pages.cancelled(request.id);
      return;
    }
    if (request?.op !== 'search' || typeof request.id !== 'number') return;
    const arrivedAt = performance.now();
    const sessions = isSessionsRequest(request) ? request : undefined;
    (sessions ? pages.page(sessions, arrivedAt) : run(request))
      .then(
        (result) => {
          port.postMessage({ id: request.id, ok: true, result } satisfies WorkerReply);
          if (sessions) pages.replied(sessions, result, arrivedAt);
        },
        (error: unknown) => port.postMessage({ id: request.id, ok: false, error: serializeError(error) } satisfies WorkerReply),
      )
      // (A cancel that crosses the reply leaves its id here: harmless, ids are never reused.)
      .finally(() => {
        cancelled.delete(request.id);
        // The copy searched (MiBs, transferred here) is garbage once replied; V8 would keep it until
        // pressure, so each search would leave its copy in this thread (measured: +8 MiB a search).
        if (request.source.kind === 'bytes') setImmediate(collectGarbageInWorker, byteLengthOf(request.source.parts));
      });
  });
}

const isSessionsRequest = (request: SearchRequest): request is SessionsRequest => request.source?.kind === 'sessions';

/**
 * Under CPU contention the reads win: this thread runs at nice +10 (Linux sets a nice value per
 * thread, named by its id in /proc/thread-self). Elsewhere searches keep the process's priority.
 */
function lowerPriority(): void {
  try {
    const threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(threadId) && threadId > 0) setPriority(threadId, Math.max(getPriority(threadId), SEARCH_NICE));
  } catch {
    // Not Linux, or not allowed: the same priority as the rest of the process.
  }
}

const SEARCH_NICE = 10;

const toBuffer = (part: Uint8Array): Buffer => Buffer.from(part.buffer, part.byteOffset, part.byteLength);

const byteLengthOf = (parts: Uint8Array[]): number => parts.reduce((sum, part) => sum + part.byteLength, 0);
