/**
 * Content segments: a checkpoint's new chunks go into new files `<file>.segment.<n>`, each a small
 * SQLite database (sql.js) of at most SEGMENT_BYTES of chunks, written once and never changed. The
 * index database names them (its `segments` and `placements` tables, schema.ts), so the process
 * holds the index and a few open segments, never the whole session, and a checkpoint writes only
 * the new chunks plus the small index.
 *
 * A segment is written and fsync'd under its final name before any index names it (a crash leaves
 * an orphan, removed at the next open), and deleted only after an index that no longer names it is
 * durable; a reader holding an older index finds it gone (SEGMENT_GONE) and reads the index again.
 * At open, each segment on disk is checked against the index (segmentChecks.ts); the chunks' trigram
 * masks, a second table of each segment, are segmentGrams.ts's.
 */
import { closeSync, fstatSync, promises as fs } from 'node:fs';
import type { Database } from 'sql.js';
import { RecallError, describeError } from '../errors';
import type { EncodedChunk } from './chunks';
import { queryRows } from './schema';
import { buildSegment, type SegmentRow } from './segmentBuild';
import { chunksOf, mapSegment, readChunk, readMasks, type SegmentMap } from './segmentFile';
import { maskRunRow } from './segmentGrams';
import { openSessionFileSync, segmentFile } from './sessionFiles';

/** Encoded chunk bytes per segment: a page read opens at most ~1 MiB, a checkpoint's last segment wastes at most that. */
export const SEGMENT_BYTES = 1024 * 1024;

/**
 * Segments whose maps are kept (where each chunk is in the file: a few KiB each), so paging through a
 * copy reads its pages without walking the segment's b-tree again. 64 cover a full session of 1 MiB segments.
 */
const MAPS_KEPT = 64;
/** Segment files a held cache keeps open (a session's are a few dozen). */
const HELD_FILES = 32;

/** `details.reason` of the error for a segment an index names but that is gone (a newer index dropped it). */
export const SEGMENT_GONE = 'segmentGone';

export interface ChunkRow {
  idx: number;
  codec: number;
  data: Uint8Array;
  /** Its trigram mask, when asked for and the segment has one (see SegmentCache.chunks). */
  grams?: Uint8Array;
}

/**
 * Reads chunks from segment files by positioned reads (segmentFile.ts), keeping the maps of the
 * most recently read segments: a chunk costs one read of its own pages, not the whole segment.
 */
export class SegmentCache {
  private readonly maps = new Map<number, SegmentMap>();
  /** Segments kept open from `hold` to `release`, by number (at most HELD_FILES, the least recently read closed first). */
  private held: Map<number, number> | undefined;

  constructor(private readonly file: string) {}

  /**
   * Keeps the segments read open until `release`: a search's page reads the masks of many copies, a few
   * from each segment, and opening the file for each read was a tenth of a fresh search. Only for
   * that long: a segment never changes, but one its owner deleted would stay on disk while held.
   */
  hold(): void {
    this.held ??= new Map();
  }

  release(): void {
    const held = this.held;
    this.held = undefined;
    for (const fd of held?.values() ?? []) closeSync(fd);
  }

  /**
   * Chunks [first, last] of `outputId` that segment `n` holds, in order (those it lacks are left out);
   * `withGrams`: with their trigram masks (a rewrite carries them into the new segment).
   */
  chunks(n: number, outputId: string, first: number, last: number, withGrams = false): ChunkRow[] {
    return this.reading(n, (fd, map) => {
      const rows: ChunkRow[] = [];
      const masks = withGrams ? readMasks(fd, map, outputId, first, last) : [];
      const located = chunksOf(fd, map);
      for (let idx = first; idx <= last; idx++) {
        const chunk = located.get(`${outputId}:${idx}`);
        if (!chunk) continue;
        const grams = masks[idx - first];
        rows.push({ idx, codec: chunk.codec, data: readChunk(fd, map, chunk), ...(grams ? { grams } : {}) });
      }
      return rows;
    });
  }

  /**
   * The trigram masks of chunks [first, last] of `outputId` in segment `n`, by idx - first: a read of
   * their row of the segment's grams table, the chunks not read. Undefined for a chunk the segment
   * lacks or that has no mask (written before masks).
   */
  grams(n: number, outputId: string, first: number, last: number): (Uint8Array | undefined)[] {
    return this.reading(n, (fd, map) => readMasks(fd, map, outputId, first, last));
  }

  /** Runs `read` over segment `n`'s open file and its map; a segment gone is SEGMENT_GONE, any other failure a damaged segment. */
  private reading<T>(n: number, read: (fd: number, map: SegmentMap) => T): T {
    const path = segmentFile(this.file, n);
    const heldFd = this.held?.get(n);
    if (heldFd !== undefined) {
      this.held?.delete(n);
      this.held?.set(n, heldFd);
      try {
        return read(heldFd, this.map(n, heldFd));
      } catch (error) {
        throw damaged(path, error);
      }
    }
    let fd: number;
    try {
      fd = openSessionFileSync(path); // a FIFO put in its place is refused (damaged), not waited on
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT')
        throw new RecallError('STORE_UNAVAILABLE', `The content segment ${path} is gone; the session's index changed since it was read.`, {
          reason: SEGMENT_GONE,
        });
      throw damaged(path, error);
    }
    const held = this.held;
    try {
      return read(fd, this.map(n, fd));
    } catch (error) {
      throw damaged(path, error);
    } finally {
      if (held) {
        held.set(n, fd);
        if (held.size > HELD_FILES) {
          const [oldest, oldFd] = held.entries().next().value as [number, number];
          held.delete(oldest);
          closeSync(oldFd);
        }
      } else closeSync(fd);
    }
  }

  /** Forgets segment `n` (it is being deleted). */
  drop(n: number): void {
    this.maps.delete(n);
    const fd = this.held?.get(n);
    if (fd === undefined) return;
    this.held?.delete(n);
    closeSync(fd);
  }

  clear(): void {
    this.maps.clear();
  }

  private map(n: number, fd: number): SegmentMap {
    let map = this.maps.get(n);
    if (map) this.maps.delete(n);
    else map = mapSegment(fd, fstatSync(fd).size);
    this.maps.set(n, map);
    if (this.maps.size > MAPS_KEPT) this.maps.delete(this.maps.keys().next().value as number);
    return map;
  }
}

const damaged = (path: string, error: unknown): RecallError =>
  new RecallError(
    'STORE_UNAVAILABLE',
    `The content segment ${path} cannot be read (${describeError(error)}); the outputs in it cannot be read.`,
  );

/** Chunks [first, last] of a copy, from the segments the index places them in (layout 2). */
export function placedChunks(index: Database, segments: SegmentCache, outputId: string, first: number, last: number): ChunkRow[] {
  const placements = queryRows<{ segment: number; first_idx: number; last_idx: number }>(
    index,
    'SELECT segment, first_idx, last_idx FROM placements WHERE output_id = ? AND last_idx >= ? AND first_idx <= ? ORDER BY first_idx',
    [outputId, first, last],
  );
  return chunksOfRuns(placements, segments, outputId, first, last);
}

/** Chunks [first, last] of a copy, from its placements (all of them, or those that meet the range), in chunk order. */
export function chunksOfRuns(
  placements: readonly { segment: number; first_idx: number; last_idx: number }[],
  segments: SegmentCache,
  outputId: string,
  first: number,
  last: number,
): ChunkRow[] {
  return placements
    .filter((p) => p.last_idx >= first && p.first_idx <= last)
    .flatMap((p) => segments.chunks(p.segment, outputId, Math.max(first, p.first_idx), Math.min(last, p.last_idx)));
}

/** Where one sealed segment's chunks belong: runs of consecutive chunks of one copy. */
export interface Placement {
  outputId: string;
  first: number;
  last: number;
  bytes: number;
}

export interface SealedSegment {
  n: number;
  dataBytes: number;
  fileBytes: number;
  placements: Placement[];
}

/**
 * Fills segments with chunks in the order given and writes each one once it is full, under its
 * final name; sync() makes them durable (and the caller the folder) before an index names them.
 * Its in-memory database is closed and its exported bytes dropped as soon as it is written.
 */
export class SegmentWriter {
  private current:
    | {
        n: number;
        rows: SegmentRow[];
        masks: { outputId: string; first: number; grams: Uint8Array[] }[];
        dataBytes: number;
        placements: Placement[];
      }
    | undefined;
  /** Segments written by this writer, for removal should the checkpoint fail before an index names them. */
  readonly written: number[] = [];
  /** Written, not yet fsync'd (see sync). */
  private readonly unsynced: fs.FileHandle[] = [];
  /** Bytes of the segment files built so far: garbage once they are written (see Checkpointer.flush). */
  builtBytes = 0;

  constructor(
    private readonly file: string,
    private readonly nextNumber: () => number,
  ) {}

  /** Adds a chunk (held, not copied, until its segment is written); resolves the segment it sealed, when it was full. */
  async add(outputId: string, idx: number, chunk: EncodedChunk): Promise<SealedSegment | undefined> {
    const sealed = this.current && this.current.dataBytes + chunk.data.length > SEGMENT_BYTES ? await this.seal() : undefined;
    this.current ??= { n: this.nextNumber(), rows: [], masks: [], dataBytes: 0, placements: [] };
    const segment = this.current;
    segment.rows.push({ outputId, idx, codec: chunk.codec, data: chunk.data });
    if (chunk.grams) {
      const masks = segment.masks.at(-1);
      const size = chunk.grams.length;
      if (masks && masks.outputId === outputId && masks.first + masks.grams.length === idx && masks.grams[0].length === size)
        masks.grams.push(chunk.grams);
      else segment.masks.push({ outputId, first: idx, grams: [chunk.grams] });
    }
    segment.dataBytes += chunk.data.length;
    const run = segment.placements.at(-1);
    if (run && run.outputId === outputId && run.last === idx - 1) {
      run.last = idx;
      run.bytes += chunk.data.length;
    } else segment.placements.push({ outputId, first: idx, last: idx, bytes: chunk.data.length });
    return sealed;
  }

  /** Writes the segment being filled, if any. */
  async seal(): Promise<SealedSegment | undefined> {
    const segment = this.current;
    if (!segment) return undefined;
    this.current = undefined;
    const data = buildSegment(segment.rows, segment.masks.map(maskRunRow));
    this.builtBytes += data.length;
    const path = segmentFile(this.file, segment.n);
    this.written.push(segment.n);
    const handle = await fs.open(path, 'wx', 0o600);
    try {
      // writeFile, not a bare write: it writes on after a short write, and so reports EFBIG or ENOSPC.
      await handle.writeFile(data);
    } catch (error) {
      await handle.close();
      throw error;
    }
    this.unsynced.push(handle);
    return { n: segment.n, dataBytes: segment.dataBytes, fileBytes: data.length, placements: segment.placements };
  }

  /**
   * Makes every segment written so far durable, all at once: one fsync after another would cost a
   * journal commit each (an 8 MiB copy is 8 segments). Nothing may name them before this resolves.
   */
  async sync(): Promise<void> {
    const handles = this.unsynced.splice(0);
    try {
      await Promise.all(handles.map((handle) => handle.sync()));
    } finally {
      await Promise.all(handles.map((handle) => handle.close().catch(() => undefined)));
    }
  }

  /** Drops the segment being filled and closes the written ones (the checkpoint failed). */
  async discard(): Promise<void> {
    this.current = undefined;
    for (const handle of this.unsynced.splice(0)) await handle.close().catch(() => undefined);
  }
}

/** Records a written segment in the index, placing the chunks of the copies `keep` says are still wanted. */
export function recordSegment(index: Database, sealed: SealedSegment, keep: (placement: Placement) => boolean): void {
  index.run('INSERT INTO segments (n, data_bytes, file_bytes) VALUES (?, ?, ?)', [sealed.n, sealed.dataBytes, sealed.fileBytes]);
  for (const p of sealed.placements) if (keep(p)) placeRun(index, sealed.n, p);
}

/** Places a run of a copy's chunks in segment `n`. */
export function placeRun(index: Database, n: number, p: Placement): void {
  index.run('INSERT INTO placements (output_id, first_idx, last_idx, segment, bytes) VALUES (?, ?, ?, ?, ?)', [
    p.outputId,
    p.first,
    p.last,
    n,
    p.bytes,
  ]);
}

/** Segments no copy is placed in any more: unnamed from the index; their files go once it is durable. */
export function unnameDeadSegments(index: Database): number[] {
  const dead = queryRows<{ n: number }>(index, 'SELECT n FROM segments WHERE n NOT IN (SELECT DISTINCT segment FROM placements)').map(
    (row) => row.n,
  );
  for (const n of dead) index.run('DELETE FROM segments WHERE n = ?', [n]);
  return dead;
}

/**
 * Segments worth rewriting into the next checkpoint's: less than half live (evictions and removals
 * left the rest dead), or small while others are small too (checkpoints of small copies each leave
 * one), so neither dead bytes nor file counts grow. At most SEGMENT_BYTES of live chunks a
 * checkpoint: the extra write is bounded by one segment.
 */
export function segmentsToRewrite(index: Database): { n: number; live: number }[] {
  const all = queryRows<{ n: number; data_bytes: number; live: number }>(
    index,
    'SELECT s.n, s.data_bytes, coalesce(sum(p.bytes), 0) AS live FROM segments s LEFT JOIN placements p ON p.segment = s.n GROUP BY s.n ORDER BY s.n',
  ).filter((s) => s.live > 0);
  const small = all.filter((s) => s.data_bytes * 2 < SEGMENT_BYTES);
  const chosen: { n: number; live: number }[] = [];
  let bytes = 0;
  for (const s of all) {
    const wasteful = s.live * 2 < s.data_bytes || (small.length > 1 && s.data_bytes * 2 < SEGMENT_BYTES);
    if (!wasteful || bytes + s.live > SEGMENT_BYTES) continue;
    chosen.push({ n: s.n, live: s.live });
    bytes += s.live;
  }
  return chosen;
}

/** The live chunks of segment `n` (those placed there), by copy, with their masks: what a rewrite moves. */
export function liveChunks(index: Database, segments: SegmentCache, n: number): { outputId: string; chunks: ChunkRow[] }[] {
  const placements = queryRows<{ output_id: string; first_idx: number; last_idx: number }>(
    index,
    'SELECT output_id, first_idx, last_idx FROM placements WHERE segment = ? ORDER BY output_id, first_idx',
    [n],
  );
  return placements.map((p) => ({ outputId: p.output_id, chunks: segments.chunks(n, p.output_id, p.first_idx, p.last_idx, true) }));
}
