/**
 * The core of the `read_file_page` tool: a bounded page of a workspace file, found by line or by
 * UTF-8 byte offset anywhere in the file.
 *
 * The seed's reader truncated a file to its first 256 KiB and only then applied the line offset, so
 * later lines were unreachable. Here the requested line is found in the WHOLE file by streaming it
 * in fixed-size chunks (counting '\n' with the native `Buffer.indexOf`, never holding the file in
 * memory), and the page itself is read with one positioned read.
 *
 * Lines are separated by '\n' only; a '\r' before it stays in the text (CRLF files page the same
 * way, with the '\r' visible). A final line without '\n' is a line; the empty "line" after a final
 * '\n' is not (a file "a\nb\n" has two lines).
 *
 * Pages end on a UTF-8 unit boundary as `src/core/utf8.ts` defines it (the WHATWG decoder's units),
 * so concatenating pages read by `nextByteOffset` reproduces `TextDecoder`'s decode of the whole
 * file, U+FFFD included. A page prefers to end after the last whole line that fits; only when not
 * even one line end fits (a long line) does it end at a character boundary inside the line, and
 * then the model continues by `byteOffset`.
 *
 * Line index cache: for each recently read file (same path, size, mtime, inode), a sparse index
 * keeps the byte offset of every 4096th line, plus "landmarks" (the start and end of recent pages
 * with their line numbers) and the line count once known. A later request starts its scan from the
 * nearest known point, so line 150,000 of a 200,000-line file costs a full scan once and at most
 * 4096 lines afterwards, and continuing a page (by `line` or `byteOffset`) scans nothing.
 *
 * The file is read only through a descriptor opened as openedFile.ts does (never a FIFO or device,
 * never a link swapped in after the check), and secret-shaped values in the page are masked
 * (secretShapes.ts; a UTF-16 file on its characters, textEncoding.ts) with their count in `masked`.
 */
import type { promises as fs } from 'node:fs';
import { RecallError } from '../errors';
import { DEFAULT_LIMITS } from '../limits';
import { clampPageBytes, PAGE_CONTEXT } from '../pager';
import { countNewlines, decodeUtf8, pageCut, rejectMidCharacter } from '../utf8';
import {
  bestPointForLine,
  forgetLineIndex,
  bestPointForOffset,
  lineIndexFor,
  noteLineStart,
  remember,
  scanStats,
  type FileIdentity,
  type KnownPoint,
  type LineIndex,
} from './lineIndex';
import { READ_FILE_PAGE_TOOL } from '../toolNames';
import { withRegularFile, type OpenedFile } from './openedFile';
import { rangesWithin, SECRET_CONTEXT_BYTES } from './secretShapes';
import { ENCODING_SNIFF_BYTES, maskText, sniffEncoding } from './textEncoding';

/** Largest page (bytes); larger `maxBytes` is clamped to it. */
export const MAX_FILE_PAGE_BYTES = DEFAULT_LIMITS.pageBytes;
/** Bytes read per chunk while counting lines (≥ 64 KiB: one native memchr pass per chunk). */
export const SCAN_CHUNK_BYTES = 256 * 1024;
/**
 * `totalLines` is reported when already known, when the page reaches the end of the file, or when
 * at most this many bytes follow the page (counting them is then cheap; the count is cached).
 * Otherwise it is left out rather than streaming a large file just for the count.
 */
export const CHEAP_COUNT_BYTES = 4 * 1024 * 1024;
/** A byteOffset that does not fit a double exactly is not an offset. */
const MAX_OFFSET = Number.MAX_SAFE_INTEGER;

export interface FilePageOptions {
  /** 1-based line to start at. Excludes `byteOffset`. Neither given: line 1. */
  line?: number;
  /** UTF-8 byte offset to start at (0..file size), as `nextByteOffset` gives. Excludes `line`. */
  byteOffset?: number;
  /** Page size in bytes, 1..4096 (default 4096; larger values are clamped to 4096). */
  maxBytes?: number;
  /**
   * How the path is written in `continuation` and error messages (e.g. the workspace-relative path
   * the model passed). Defaults to `file`.
   */
  displayPath?: string;
}

export interface FilePage {
  /** The page, decoded from UTF-8 (invalid bytes become U+FFFD). */
  text: string;
  /** 1-based line at `startByte` (the line it starts in, when continuing a long line). */
  startLine: number;
  /** The last line the page touches (equals `startLine` for an empty page). */
  endLine: number;
  /** Byte offset of the page's first byte. */
  startByte: number;
  /** Byte offset just past the page (= `nextByteOffset`). */
  endByte: number;
  /** Size of the file in bytes. */
  totalBytes: number;
  /**
   * Lines in the file, when known cheaply: counted before, reached by this page, or fewer than
   * CHEAP_COUNT_BYTES bytes after the page. Absent otherwise (never a full scan just to count).
   */
  totalLines?: number;
  /** Where the next page starts; a valid `byteOffset`. Equals `totalBytes` at the end. */
  nextByteOffset: number;
  /** Whether bytes follow this page. */
  hasMore: boolean;
  /** True when the page stops inside a line (continue with `byteOffset`, not `line`). */
  endsMidLine: boolean;
  /** The exact next call, for the model, or a note that the file is done. */
  continuation: string;
  /** Secret-shaped values masked in `text` (each byte of one shown as '*'; secretShapes.ts). */
  masked: number;
}

/**
 * Reads one page of `file`: a file the caller opened and checked (readablePath.ts), or an absolute
 * path, opened here as openedFile.ts does. See the module comment for line semantics; throws
 * `RecallError` (INVALID_ARGUMENT, NOT_FOUND, REFUSED, OFFSET_OUT_OF_RANGE, MID_CHARACTER_OFFSET)
 * with messages written for the model.
 */
export async function readFilePage(file: string | OpenedFile, options: FilePageOptions = {}): Promise<FilePage> {
  const shown = options.displayPath ?? (typeof file === 'string' ? file : file.path);
  const request = pageRequest(options);
  if (typeof file !== 'string') return pageOf(file, request, shown);
  return withRegularFile(file, { shown, tool: READ_FILE_PAGE_TOOL }, (opened) => pageOf(opened, request, shown));
}

async function pageOf({ handle, path: file, stats }: OpenedFile, request: PageRequest, shown: string): Promise<FilePage> {
  const identity: FileIdentity = { size: stats.size, mtimeMs: stats.mtimeMs, ino: stats.ino, dev: stats.dev };
  const index = lineIndexFor(file, identity);
  const size = identity.size;

  let start: KnownPoint | undefined;
  let startByte: number;
  if (request.kind === 'line') {
    start = await locateLine(handle, index, request.line, shown);
    startByte = start.offset;
  } else {
    startByte = request.byteOffset;
    if (startByte > size) {
      throw new RecallError(
        'OFFSET_OUT_OF_RANGE',
        `byteOffset ${startByte} is past the end of ${shown}, which has ${size} bytes (valid byte offsets: 0 to ${size}). Start over with ${call(shown, { line: 1 })}, or pass the nextByteOffset of the previous page.`,
        { totalBytes: size },
      );
    }
  }

  // The window holds PAGE_CONTEXT bytes before the start (to reject a mid-character offset) and
  // after the cut (to decide the boundary there), as the retained-copy pager does.
  const windowStart = Math.max(0, startByte - PAGE_CONTEXT);
  const windowEnd = Math.min(size, startByte + request.maxBytes + PAGE_CONTEXT);
  // Read with SECRET_CONTEXT_BYTES more on both sides, masked whole: a secret that reaches into
  // the page is seen whole (a private-key block from its BEGIN or END line outside the page).
  // Masking replaces ASCII with ASCII, so the boundaries and line ends below are the file's own.
  const contextStart = Math.max(0, windowStart - SECRET_CONTEXT_BYTES);
  const context = await readRange(handle, contextStart, Math.min(size, windowEnd + SECRET_CONTEXT_BYTES) - contextStart);
  // The file's encoding, from its first bytes: a page of UTF-16 is masked on its characters.
  const head = contextStart === 0 ? context : await readRange(handle, 0, Math.min(size, ENCODING_SNIFF_BYTES));
  const secrets = maskText(context, contextStart > 0 ? 'unknown' : false, sniffEncoding(head), contextStart);
  const windowAt = windowStart - contextStart;
  const window = context.subarray(windowAt, windowEnd - contextStart);
  const fileEnd = windowStart + window.length; // < windowEnd only if the file shrank underneath
  const s = startByte - windowStart;
  rejectMidCharacter(
    window,
    s,
    windowStart,
    (before, after) =>
      `byteOffset ${startByte} is inside a UTF-8 character of ${shown} (the character spans bytes ${before} to ${after}). Use a character boundary: ${call(shown, { byteOffset: before })} or ${call(shown, { byteOffset: after })}.`,
  );
  // Only now, with the offset known to be valid, count the lines before it.
  start ??= await locateOffset(handle, index, startByte);

  // Where the page ends (relative to the window).
  let e: number;
  if (startByte + request.maxBytes >= fileEnd) {
    e = fileEnd - windowStart;
  } else {
    const target = s + request.maxBytes;
    const lastNewline = window.lastIndexOf(0x0a, target - 1);
    if (lastNewline >= s) {
      e = lastNewline + 1; // the end of the last whole line that fits
    } else {
      e = pageCut(window, s, target); // not one line end fits: cut inside the line
    }
  }
  const endByte = windowStart + e;
  const page = window.subarray(s, e);
  // A file that shrank while being read ends where the read ended; its index is stale.
  const shrank = fileEnd < windowEnd;
  if (shrank) forgetLineIndex(file);
  const hasMore = endByte < (shrank ? fileEnd : size);
  const endsWithNewline = page.length > 0 && page[page.length - 1] === 0x0a;

  let startLine: number;
  let endLine: number;
  if (page.length === 0) {
    // Only at the end of the file: report the last line (line 1 for an empty file).
    const last = start.lineStart && start.offset > 0 ? start.line - 1 : start.line;
    startLine = endLine = Math.max(1, last);
    if (index.totalLines === undefined && endByte === size) index.totalLines = start.offset === 0 ? 0 : last;
  } else {
    startLine = start.line;
    endLine = startLine + countNewlines(page, 0, page.length - 1);
    remember(index, start);
    remember(index, { offset: endByte, line: endsWithNewline ? endLine + 1 : endLine, lineStart: endsWithNewline });
    if (!hasMore) index.totalLines = endLine;
  }

  let totalLines = index.totalLines ?? (hasMore ? undefined : endLine);
  if (totalLines === undefined && size - endByte <= CHEAP_COUNT_BYTES) {
    const from: KnownPoint = { offset: endByte, line: endsWithNewline ? endLine + 1 : endLine, lineStart: endsWithNewline };
    totalLines = (await scan(handle, index, size, from, {})).totalLines;
  }

  const endsMidLine = hasMore && !endsWithNewline;
  const continuation = !hasMore
    ? `None: this page reaches the end of ${shown}${totalLines !== undefined ? ` (${totalLines} line${totalLines === 1 ? '' : 's'}, ${size} bytes)` : ''}.`
    : endsMidLine
      ? `${call(shown, { byteOffset: endByte })} (line ${endLine} continues; pass byteOffset, not line)`
      : call(shown, { line: endLine + 1 });

  const result: FilePage = {
    text: decodeUtf8(page),
    startLine,
    endLine,
    startByte,
    endByte,
    totalBytes: size,
    nextByteOffset: endByte,
    hasMore,
    endsMidLine,
    continuation,
    masked: rangesWithin(secrets, windowAt + s, windowAt + e),
  };
  if (totalLines !== undefined) result.totalLines = totalLines;
  return result;
}

type PageRequest = { kind: 'line'; line: number; maxBytes: number } | { kind: 'offset'; byteOffset: number; maxBytes: number };

/**
 * The page a request asks for. It only clamps: the request was checked at the tool edge
 * (read_file_page's schema, then `validateReadFilePageInput`).
 */
function pageRequest({ line, byteOffset, maxBytes }: FilePageOptions): PageRequest {
  const bytes = clampPageBytes(maxBytes);
  return byteOffset !== undefined ? { kind: 'offset', byteOffset, maxBytes: bytes } : { kind: 'line', line: line ?? 1, maxBytes: bytes };
}

/**
 * Throws RecallError INVALID_ARGUMENT for what read_file_page's schema cannot say: `line` and
 * `byteOffset` together, or either past the largest exact integer. `shown`: the path as given.
 */
export function validateReadFilePageInput(shown: string, { line, byteOffset }: FilePageOptions): void {
  if (line !== undefined && byteOffset !== undefined) {
    throw new RecallError(
      'INVALID_ARGUMENT',
      `Pass either line or byteOffset, not both: line (1-based) starts a page at the beginning of a line; byteOffset continues exactly where a page stopped (inside a long line). For example ${call(shown, { line })} or ${call(shown, { byteOffset })}.`,
    );
  }
  if (byteOffset !== undefined && byteOffset > MAX_OFFSET) {
    throw new RecallError(
      'INVALID_ARGUMENT',
      `byteOffset must be a non-negative integer byte offset, as nextByteOffset gives; got ${JSON.stringify(byteOffset)}. To read by line, pass line instead: ${call(shown, { line: 1 })}.`,
    );
  }
  if (line !== undefined && line > MAX_OFFSET) {
    throw new RecallError(
      'INVALID_ARGUMENT',
      `line must be a 1-based integer line number; got ${JSON.stringify(line)}. For example ${call(shown, { line: 1 })}.`,
    );
  }
}

/** `read_file_page {"path":"…","line":N}` with the path JSON-quoted exactly. */
function call(shown: string, args: { line?: number; byteOffset?: number }): string {
  return `${READ_FILE_PAGE_TOOL} ${JSON.stringify({ path: shown, ...args })}`;
}

/** Reads `[position, position + length)`, or less if the file ends sooner. */
async function readRange(handle: fs.FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled === length ? buffer : buffer.subarray(0, filled);
}

// ---------------------------------------------------------------------------------------------
interface ScanResult {
  /** Where the scan stopped, with its line. */
  point: KnownPoint;
  /** Set when the scan reached the end of the file. */
  totalLines?: number;
}

/**
 * Streams the file from `from` (whose line is known), counting '\n', until line `until.line`
 * starts, byte `until.offset` is reached, or the file ends. Records checkpoints on the way.
 */
async function scan(
  handle: fs.FileHandle,
  index: LineIndex,
  size: number,
  from: KnownPoint,
  until: { line?: number; offset?: number },
): Promise<ScanResult> {
  let line = from.line;
  let lineStartOffset = from.lineStart ? from.offset : -1;
  let position = from.offset;
  const limit = Math.min(size, until.offset ?? size);
  if (until.line !== undefined && until.line === line && from.lineStart) return { point: from };
  const buffer = Buffer.allocUnsafe(Math.min(SCAN_CHUNK_BYTES, Math.max(1, limit - position)));
  while (position < limit) {
    const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, limit - position), position);
    if (bytesRead === 0) break; // the file shrank underneath; stop where it ends
    scanStats.bytesScanned += bytesRead;
    const chunk = bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead);
    for (let at = chunk.indexOf(0x0a); at >= 0; at = chunk.indexOf(0x0a, at + 1)) {
      line++;
      lineStartOffset = position + at + 1;
      noteLineStart(index, line, lineStartOffset);
      if (line === until.line) {
        const point = { offset: lineStartOffset, line, lineStart: true };
        remember(index, point);
        return { point };
      }
    }
    position += bytesRead;
  }
  const point = { offset: position, line, lineStart: lineStartOffset === position };
  if (position > from.offset) remember(index, point);
  if (position >= size || position < limit) {
    // The end of the file: the last line is the current one unless it has not started (a final '\n').
    const totalLines = position === 0 ? 0 : point.lineStart ? line - 1 : line;
    index.totalLines = totalLines;
    return { point, totalLines };
  }
  return { point };
}

/** Where line `line` starts; OFFSET_OUT_OF_RANGE if the file has fewer lines. */
async function locateLine(handle: fs.FileHandle, index: LineIndex, line: number, shown: string): Promise<KnownPoint> {
  const size = index.identity.size;
  if (line === 1) return { offset: 0, line: 1, lineStart: true };
  if (index.totalLines === undefined || line <= index.totalLines) {
    const result = await scan(handle, index, size, bestPointForLine(index, line), { line });
    if (result.point.line === line && result.point.lineStart && result.point.offset < size) return result.point;
    // Line `line` would start at the end of the file (after a final '\n'): it does not exist.
    if (result.point.line === line) index.totalLines = line - 1;
  }
  const total = index.totalLines ?? 0;
  throw new RecallError(
    'OFFSET_OUT_OF_RANGE',
    total === 0
      ? `line ${line} is past the end of ${shown}, which is empty (0 lines, 0 bytes).`
      : `line ${line} is past the end of ${shown}, which has ${total} line${total === 1 ? '' : 's'} (${size} bytes). Read the last line with ${call(shown, { line: total })}.`,
    { totalLines: total, totalBytes: size },
  );
}

/** The line that byte `offset` falls in (scanning from the nearest known point). */
async function locateOffset(handle: fs.FileHandle, index: LineIndex, offset: number): Promise<KnownPoint> {
  const from = bestPointForOffset(index, offset);
  if (from.offset === offset) return from;
  const result = await scan(handle, index, index.identity.size, from, { offset });
  return result.point;
}
