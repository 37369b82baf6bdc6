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
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { RecallError } from '../errors';
import { checkSearchRequest, MatchCollector, searchWindow, type CompiledSearch } from '../search';
import { DEFAULT_SEARCH_TIMEOUT_MS, SearchLane } from '../search/lane';
import type { SearchOutcome } from '../search/protocol';
import { checkStopped, runSliced, type StepControl } from '../search/sliced';
import { defaultExecArgv, defaultWorkerPath } from '../store/workerScript';
import type { SearchOptions } from '../types';
import { boundaryAtOrBefore, countNewlines } from '../utf8';

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
 * Searches a file (a path the caller's read policy allowed: see resolveReadablePath) on the search
 * lane. The matches' offsets are `read_file_page` byte offsets; `totalBytes` is the file's size.
 */
export async function searchFile(file: string, pattern: string, options: FileSearchOptions = {}): Promise<SearchOutcome> {
  const { timeoutMs = DEFAULT_SEARCH_TIMEOUT_MS, signal, workerPath, execArgv, ...searchOptions } = options;
  checkSearchRequest(file, pattern, searchOptions);
  const script = path.resolve(workerPath ?? defaultWorkerPath());
  const lane = SearchLane.acquire(script, execArgv ?? defaultExecArgv(script));
  try {
    return await lane.search({
      pattern,
      options: searchOptions,
      subject: file,
      timeoutMs,
      signal,
      source: async () => ({ source: { kind: 'file', path: file } }),
    });
  } finally {
    lane.release();
  }
}

/** Streams `file` through a compiled search (in the search worker). */
export async function scanFile(file: string, search: CompiledSearch, control: StepControl): Promise<SearchOutcome> {
  const handle = await fs.open(file, 'r').catch((error: NodeJS.ErrnoException) => {
    throw new RecallError('NOT_FOUND', `${file} cannot be opened (${error.code ?? error.message}); check the path.`);
  });
  try {
    const { size } = await handle.stat();
    const found = new MatchCollector(search.maxMatches);
    let carry: Buffer = Buffer.alloc(0);
    let base = 0;
    let line = 1;
    let lineStart = 0;
    /** Matches before this index of the next window were reported by the one before. */
    let acceptFrom = 0;
    for (let position = 0; ;) {
      const chunk = Buffer.allocUnsafe(FILE_WINDOW_BYTES);
      const { bytesRead } = await handle.read(chunk, 0, FILE_WINDOW_BYTES, position);
      checkStopped(control);
      position += bytesRead;
      const bytes = carry.length === 0 ? chunk.subarray(0, bytesRead) : Buffer.concat([carry, chunk.subarray(0, bytesRead)]);
      const last = bytesRead === 0;
      const newline = last ? -1 : bytes.lastIndexOf(0x0a);
      // Where the next window starts: after the last line break, or (a line longer than the window)
      // OVERLAP_BYTES back, at a character boundary, so a match there is seen whole from its start.
      const cut = last ? bytes.length : newline >= 0 ? newline + 1 : boundaryAtOrBefore(bytes, bytes.length - OVERLAP_BYTES);
      const window = { bytes, base, acceptFrom, acceptBefore: last ? bytes.length + 1 : cut, line, lineStart };
      await runSliced(searchWindow(search, window, found), control);
      if (last || found.full) return { matches: found.matches, truncated: found.truncated, totalBytes: size };
      const next = newline >= 0 ? cut : boundaryAtOrBefore(bytes, Math.max(0, cut - 4));
      line += countNewlines(bytes, 0, next);
      if (newline >= 0) lineStart = base + cut;
      acceptFrom = cut - next;
      carry = bytes.subarray(next);
      base += next;
    }
  } finally {
    await handle.close();
  }
}
