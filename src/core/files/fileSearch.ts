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
 * and checked as openedFile.ts does, so it searches exactly the file the policy allowed.
 *
 * Secret-shaped values are masked before a match is taken or shown (secretShapes.ts): a pattern
 * cannot find, show or probe one, and offsets are unchanged. A window is masked with the
 * SECRET_CONTEXT_BYTES before it and SECRET_GUARD_BYTES after it (twice that in UTF-16, whose
 * encoding is read from the file's first bytes: textEncoding.ts), as `read_file_page` masks a page
 * (a private-key block is masked when its BEGIN or END line lies within that context), and only
 * when its raw bytes hold a match: masked bytes differ from raw ones only where a value was, so the
 * masked window's matches are among the raw window's, except a match that takes the '*' of a masked
 * value (`\*{8}`), which a window with no other match does not show. `masked` counts the values in
 * the windows that were masked.
 */
import { fstat as fstatCallback, read as readCallback } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { RecallError } from '../errors';
import { checkSearchRequest, MatchCollector, searchWindow, type CompiledSearch, type SearchWindow } from '../search';
import { DEFAULT_SEARCH_TIMEOUT_MS, SearchLane } from '../search/lane';
import type { FileSource, SearchOutcome } from '../search/protocol';
import { checkStopped, runSliced, type StepControl } from '../search/sliced';
import { defaultExecArgv, defaultWorkerPath } from '../worker/script';
import { SEARCH_TOOL_OUTPUT_TOOL } from '../toolNames';
import type { SearchOptions } from '../types';
import { countLineBreaks } from '../notable/prefilter';
import { boundaryAtOrBefore } from '../utf8';
import { withRegularFile, type OpenedFile } from './openedFile';
import { SECRET_CONTEXT_BYTES, type SecretRange } from './secretShapes';
import { ENCODING_SNIFF_BYTES, guardBytes, maskText, sniffEncoding } from './textEncoding';

const fstat = promisify(fstatCallback);
const read = promisify(readCallback);

/**
 * Bytes read at a time; a window holds at most twice this (an unfinished line carried over, then a
 * read). 1 MiB: a 59 MB search beside `grep -nE` took 2.5x / 2.1x (literal / regex) with it,
 * 3.1x / 2.5x with 4 MiB, 2.7x / 2.1x with 512 KiB, 3.2x / 2.3x with 256 KiB (bench/run.mjs, one run
 * each, load 3-5): a window the caches still hold when it is searched. (Measured before the literal
 * scanners skipped to their anchors and line breaks were counted 16 bytes a step; not since.)
 */
export const FILE_WINDOW_BYTES = 1024 * 1024;
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
  // The file's encoding, from its first bytes: a UTF-16 file is masked on its characters.
  const head = Buffer.allocUnsafe(ENCODING_SNIFF_BYTES);
  const encoding = sniffEncoding(head.subarray(0, (await read(file.fd, head, 0, head.length, 0)).bytesRead));
  const found = new MatchCollector(search.maxMatches);
  let carry: Buffer = Buffer.alloc(0);
  /** The raw bytes just before the window (at most SECRET_CONTEXT_BYTES), context for its masking, kept in one buffer. */
  const kept = Buffer.allocUnsafe(SECRET_CONTEXT_BYTES);
  let before: Buffer = kept.subarray(0, 0);
  let base = 0;
  let line = 1;
  let lineStart = 0;
  /** Matches before this index of the next window were reported by the one before. */
  let acceptFrom = 0;
  let masked = 0;
  // Two buffers in turn: each read lands right after the carried-over bytes, copied from the other
  // buffer, so a window costs one read and a copy of its unfinished line, not a new buffer.
  const buffers = [Buffer.allocUnsafe(2 * FILE_WINDOW_BYTES), Buffer.allocUnsafe(2 * FILE_WINDOW_BYTES)];
  for (let position = 0, turn = 0; ; turn ^= 1) {
    if (buffers[turn].length < carry.length + FILE_WINDOW_BYTES) buffers[turn] = Buffer.allocUnsafe(carry.length + FILE_WINDOW_BYTES);
    const buffer = buffers[turn];
    carry.copy(buffer, 0);
    const { bytesRead } = await read(file.fd, buffer, carry.length, FILE_WINDOW_BYTES, position);
    checkStopped(control);
    position += bytesRead;
    const seen = buffer.subarray(0, carry.length + bytesRead);
    const last = bytesRead === 0;
    const newline = last ? -1 : seen.lastIndexOf(0x0a);
    // Where the next window starts: after the last line break, or (a line longer than the window)
    // OVERLAP_BYTES back, at a character boundary, so a match there is seen whole from its start.
    // Masking replaces ASCII with ASCII, so these are the same in the raw and the masked bytes.
    const cut = last ? seen.length : newline >= 0 ? newline + 1 : boundaryAtOrBefore(seen, seen.length - OVERLAP_BYTES);
    const window = { bytes: seen, base, acceptFrom, acceptBefore: last ? seen.length + 1 : cut, line, lineStart };
    // Only a window that can show a match is masked, then searched: masking costs more than the
    // search itself (one pass of V8's engine over the shapes' anchors), and most windows of a big
    // file hold no match. A match in the masked bytes is one in the raw bytes too, unless it takes
    // a '*' of a masked value (see the module comment), so a window with none in the raw bytes has
    // nothing to show.
    if (await mayMatch(search, window, control)) {
      const after = last ? Buffer.alloc(0) : await readAhead(file.fd, position, guardBytes(encoding));
      const context = Buffer.concat([before, seen, after]);
      const secrets = maskText(context, base - before.length > 0 ? 'unknown' : false, encoding, base - before.length);
      await runSliced(
        searchWindow(search, { ...window, bytes: context.subarray(before.length, before.length + seen.length) }, found),
        control,
      );
      masked += startsWithin(secrets, before.length + acceptFrom, before.length + window.acceptBefore);
    }
    if (last || found.full) return { matches: found.matches, truncated: found.truncated, totalBytes: size, masked };
    const next = newline >= 0 ? cut : boundaryAtOrBefore(seen, Math.max(0, cut - 4));
    // 16 bytes a step (WebAssembly): a log's dense line breaks cost an indexOf call each otherwise.
    line += countLineBreaks(seen, 0, next);
    if (newline >= 0) lineStart = base + cut;
    acceptFrom = cut - next;
    const passed = seen.subarray(Math.max(0, next - SECRET_CONTEXT_BYTES), next);
    const still = Math.min(before.length, SECRET_CONTEXT_BYTES - passed.length);
    kept.copyWithin(0, before.length - still, before.length);
    passed.copy(kept, still);
    before = kept.subarray(0, still + passed.length);
    carry = seen.subarray(next);
    base += next;
  }
}

/** Whether the window's raw bytes hold a match it would report (the search stops at the first). */
async function mayMatch(search: CompiledSearch, window: SearchWindow, control: StepControl): Promise<boolean> {
  const probe = new MatchCollector(1);
  await runSliced(searchWindow(search, window, probe), control);
  return probe.matches.length > 0;
}

/** The guard bytes after `position`, longer than any value: one cut by the window's end is masked whole. */
async function readAhead(fd: number, position: number, guard: number): Promise<Buffer> {
  const after = Buffer.allocUnsafe(guard);
  const { bytesRead } = await read(fd, after, 0, after.length, position);
  return after.subarray(0, bytesRead);
}

/**
 * The values that begin in [from, to) (a block begun before the context: where its masking
 * begins). The windows' accepted parts tile the file, so each value is counted once.
 */
const startsWithin = (secrets: readonly SecretRange[], from: number, to: number): number =>
  secrets.filter((secret) => {
    const start = secret.from >= 0 ? secret.from : secret.start;
    return start >= from && start < to;
  }).length;
