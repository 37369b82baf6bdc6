/**
 * `search_tool_output` over a file (a workspace file, or a spill file VS Code's chat wrote for an
 * oversized tool result): the same matches and byte offsets as over a retained copy, found by
 * streaming the file in windows, never holding it whole. Every offset is one `read_file_page`
 * accepts as `byteOffset`.
 *
 * Windows end after a line break: each holds whole lines plus the start of the next, whose matches
 * are left to the next window (which starts at that line). So a match within a line is found exactly
 * as in one pass, wherever the reads fall. A line longer than a window is searched in pieces that
 * overlap by OVERLAP_BYTES: a match of it is found unless it is longer than that. A match of a
 * pattern that names a line break (`\n`) may span lines up to the end of the window it starts in.
 * `searchFile` sends the search to the search lane; `scanFile` is what the search worker runs, in
 * slices between which a cancel gets through.
 *
 * The worker reads the caller's descriptor (worker threads share the process's descriptors), opened
 * and checked as openedFile.ts does, so it searches exactly the file the policy allowed. Every
 * window is masked before it is searched (secretShapes.ts): a pattern cannot find, show or probe a
 * secret-shaped value, and offsets are unchanged.
 */
import { fstat as fstatCallback, read as readCallback } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { RecallError } from '../errors';
import { checkSearchRequest, MatchCollector, searchWindow, type CompiledSearch } from '../search';
import { DEFAULT_SEARCH_TIMEOUT_MS, SearchLane } from '../search/lane';
import type { FileSource, SearchOutcome } from '../search/protocol';
import { checkStopped, runSliced, type StepControl } from '../search/sliced';
import { defaultExecArgv, defaultWorkerPath } from '../store/workerScript';
import { SEARCH_TOOL_OUTPUT_TOOL } from '../toolNames';
import type { SearchOptions } from '../types';
import { boundaryAtOrBefore, countNewlines } from '../utf8';
import { withRegularFile, type OpenedFile } from './openedFile';
import { SecretStream } from './secretStream';

const fstat = promisify(fstatCallback);
const read = promisify(readCallback);

/** Bytes read at a time; a window holds at most twice this (an unfinished line carried over, then a read). */
export const FILE_WINDOW_BYTES = 4 * 1024 * 1024;
/** Context carried into the next piece of a line longer than a window. */
export const OVERLAP_BYTES = 64 * 1024;

export interface FileSearchOptions extends SearchOptions {
  /** ms the search may run (default DEFAULT_SEARCH_TIMEOUT_MS; 0: no limit). */
  timeoutMs?: number;
  /** The worker script and its Node options (defaults as for openWorkerStore). */
  workerPath?: string;
  execArgv?: string[];
}

/**
 * Searches a file on the search lane: one the caller opened and checked (readablePath.ts), or an
 * absolute path, opened here as openedFile.ts does. The matches' offsets are `read_file_page` byte
 * offsets; `totalBytes` is the file's size; `masked` counts the secret-shaped values hidden.
 */
export async function searchFile(file: string | OpenedFile, pattern: string, options: FileSearchOptions = {}): Promise<SearchOutcome> {
  const { timeoutMs = DEFAULT_SEARCH_TIMEOUT_MS, signal, workerPath, execArgv, ...searchOptions } = options;
  const subject = typeof file === 'string' ? file : file.path;
  checkSearchRequest(subject, pattern, searchOptions);
  if (typeof file === 'string') {
    return withRegularFile(file, { shown: file, tool: SEARCH_TOOL_OUTPUT_TOOL }, (opened) => searchFile(opened, pattern, options));
  }
  const script = path.resolve(workerPath ?? defaultWorkerPath());
  const lane = SearchLane.acquire(script, execArgv ?? defaultExecArgv(script));
  const { handle, stats } = file;
  try {
    // The descriptor stays open until the search is settled (the caller closes it after this
    // returns); a worker still reading past that point has its reply dropped by the lane.
    return await lane.search({
      pattern,
      options: searchOptions,
      subject,
      timeoutMs,
      signal,
      source: async () => ({ source: { kind: 'file', fd: handle.fd, dev: stats.dev, ino: stats.ino } }),
    });
  } finally {
    lane.release();
  }
}

/** Streams the caller's open file through a compiled search (in the search worker), masking secrets first. */
export async function scanFile(file: FileSource, search: CompiledSearch, control: StepControl): Promise<SearchOutcome> {
  const { size, dev, ino } = await fstat(file.fd).catch(() => ({ size: 0, dev: -1, ino: -1 }));
  // The caller closes the descriptor only once the search is settled; a number that now names
  // another file means this search was cancelled: nothing of it is read.
  if (dev !== file.dev || ino !== file.ino) throw new RecallError('CANCELLED', 'The search was cancelled before it started.');
  const found = new MatchCollector(search.maxMatches);
  const secrets = new SecretStream();
  let carry: Buffer = Buffer.alloc(0);
  let base = 0;
  let line = 1;
  let lineStart = 0;
  /** Matches before this index of the next window were reported by the one before. */
  let acceptFrom = 0;
  for (let position = 0; ;) {
    const chunk = Buffer.allocUnsafe(FILE_WINDOW_BYTES);
    const { bytesRead } = await read(file.fd, chunk, 0, FILE_WINDOW_BYTES, position);
    checkStopped(control);
    position += bytesRead;
    const last = bytesRead === 0;
    // Masked before it is searched: the stream holds back the end of each read until the next one
    // shows whether a value runs on past it.
    const fresh = last ? secrets.end() : secrets.push(chunk.subarray(0, bytesRead));
    const seen = carry.length === 0 ? fresh : Buffer.concat([carry, fresh]);
    const newline = last ? -1 : seen.lastIndexOf(0x0a);
    // Where the next window starts: after the last line break, or (a line longer than the window)
    // OVERLAP_BYTES back, at a character boundary, so a match there is seen whole from its start.
    const cut = last ? seen.length : newline >= 0 ? newline + 1 : boundaryAtOrBefore(seen, seen.length - OVERLAP_BYTES);
    const window = { bytes: seen, base, acceptFrom, acceptBefore: last ? seen.length + 1 : cut, line, lineStart };
    await runSliced(searchWindow(search, window, found), control);
    if (last || found.full) return { matches: found.matches, truncated: found.truncated, totalBytes: size, masked: secrets.masked };
    const next = newline >= 0 ? cut : boundaryAtOrBefore(seen, Math.max(0, cut - 4));
    line += countNewlines(seen, 0, next);
    if (newline >= 0) lineStart = base + cut;
    acceptFrom = cut - next;
    carry = seen.subarray(next);
    base += next;
  }
}
