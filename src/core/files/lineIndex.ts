/**
 * The line index cache of `read_file_page`: for each recently read file (same path, size, mtime,
 * inode), the byte offset of every LINE_INDEX_STRIDE-th line, "landmarks" (the start and end of
 * recent pages with their line numbers) and the line count once known, so a later request scans
 * from the nearest known point instead of from the start of the file.
 */

/** The sparse line index keeps the offset of line 1, 1 + STRIDE, 1 + 2·STRIDE, … */
export const LINE_INDEX_STRIDE = 4096;
/** Files whose line index is kept (least recently used dropped first). */
const INDEX_CACHE_FILES = 8;
/** Landmarks kept per file. */
const LANDMARKS_PER_FILE = 128;

export interface FileIdentity {
  size: number;
  mtimeMs: number;
  ino: number;
  dev: number;
}

/** A position whose line is known. `lineStart`: the position is the first byte of `line`. */
export interface KnownPoint {
  offset: number;
  line: number;
  lineStart: boolean;
}

export interface LineIndex {
  identity: FileIdentity;
  /** checkpoints[k] = byte offset where line k·STRIDE + 1 starts (contiguous from k = 0). */
  checkpoints: number[];
  /** offset → point, in insertion order (oldest first) for eviction. */
  landmarks: Map<number, KnownPoint>;
  totalLines?: number;
}

const indexCache = new Map<string, LineIndex>();
export const scanStats = { bytesScanned: 0 };

/** Forgets one file's index (it changed while being read). */
export function forgetLineIndex(file: string): void {
  indexCache.delete(file);
}

/** Drops every cached line index (tests; or when the caller knows files changed). */
export function clearLineIndexCache(): void {
  indexCache.clear();
}

/** Diagnostics: files indexed, and bytes streamed to count lines since the process started. */
export function lineIndexStats(): { files: number; bytesScanned: number } {
  return { files: indexCache.size, bytesScanned: scanStats.bytesScanned };
}

function sameIdentity(a: FileIdentity, b: FileIdentity): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino && a.dev === b.dev;
}

/** The cached index for this version of the file (a fresh one if it changed), most recent last. */
export function lineIndexFor(file: string, identity: FileIdentity): LineIndex {
  let index = indexCache.get(file);
  if (index && sameIdentity(index.identity, identity)) {
    indexCache.delete(file);
  } else {
    index = { identity, checkpoints: [0], landmarks: new Map() };
    if (identity.size === 0) index.totalLines = 0;
  }
  indexCache.set(file, index);
  while (indexCache.size > INDEX_CACHE_FILES) indexCache.delete(indexCache.keys().next().value as string);
  return index;
}

export function remember(index: LineIndex, point: KnownPoint): void {
  index.landmarks.delete(point.offset);
  index.landmarks.set(point.offset, point);
  while (index.landmarks.size > LANDMARKS_PER_FILE) index.landmarks.delete(index.landmarks.keys().next().value as number);
}

/** Records that `line` starts at `offset` (while scanning), extending the checkpoints if it is the next one. */
export function noteLineStart(index: LineIndex, line: number, offset: number): void {
  if (!index) return;
  const k = (line - 1) / LINE_INDEX_STRIDE;
  if (k === index.checkpoints.length) index.checkpoints.push(offset);
}

/** The known point nearest before the start of `line` from which a scan can find it. */
export function bestPointForLine(index: LineIndex, line: number): KnownPoint {
  const k = Math.min(Math.floor((line - 1) / LINE_INDEX_STRIDE), index.checkpoints.length - 1);
  let best: KnownPoint = { offset: index.checkpoints[k], line: k * LINE_INDEX_STRIDE + 1, lineStart: true };
  for (const point of index.landmarks.values()) {
    const usable = point.line < line || (point.line === line && point.lineStart);
    if (usable && point.offset > best.offset) best = point;
  }
  return best;
}

/** The known point nearest at or before byte `offset`. */
export function bestPointForOffset(index: LineIndex, offset: number): KnownPoint {
  const checkpoints = index.checkpoints;
  let lo = 0;
  let hi = checkpoints.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (checkpoints[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  let best: KnownPoint = { offset: checkpoints[lo], line: lo * LINE_INDEX_STRIDE + 1, lineStart: true };
  for (const point of index.landmarks.values()) {
    if (point.offset <= offset && point.offset > best.offset) best = point;
  }
  return best;
}
