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
 * At open, each segment on disk is checked against the index (removeOrphanSegments, checkSegments).
 */
import { closeSync, fstatSync, promises as fs } from 'node:fs';
import type { Database } from 'sql.js';
import { RecallError, describeError } from '../errors';
import type { OpenReport } from '../types';
import { atomicWriteFile } from './atomicWrite';
import type { EncodedChunk } from './chunks';
import { queryRows } from './schema';
import { buildSegment, type SegmentRow } from './segmentBuild';
import { mapSegment, readChunk, readMasks, type SegmentMap } from './segmentFile';
import { asidePath, moveAside, notRegularKind, openSessionFile, openSessionFileSync, segmentFile, segmentsOnDisk } from './sessionFiles';

/** Encoded chunk bytes per segment: a page read opens at most ~1 MiB, a checkpoint's last segment wastes at most that. */
export const SEGMENT_BYTES = 1024 * 1024;

/**
 * Segments whose maps are kept (where each chunk is in the file: a few KiB each), so paging through a
 * copy reads its pages without walking the segment's b-tree again. 64 cover a full session of 1 MiB segments.
 */
const MAPS_KEPT = 64;

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

  constructor(private readonly file: string) {}

  /**
   * Chunks [first, last] of `outputId` that segment `n` holds, in order (those it lacks are left out);
   * `withGrams`: with their trigram masks (a rewrite carries them into the new segment).
   */
  chunks(n: number, outputId: string, first: number, last: number, withGrams = false): ChunkRow[] {
    return this.reading(n, (fd, map) => {
      const rows: ChunkRow[] = [];
      const masks = withGrams ? readMasks(fd, map, outputId, first, last) : [];
      for (let idx = first; idx <= last; idx++) {
        const chunk = map.chunks.get(`${outputId}:${idx}`);
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
    try {
      return read(fd, this.map(n, fd));
    } catch (error) {
      throw damaged(path, error);
    } finally {
      closeSync(fd);
    }
  }

  /** Forgets segment `n` (it is being deleted). */
  drop(n: number): void {
    this.maps.delete(n);
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
  return placements.flatMap((p) => segments.chunks(p.segment, outputId, Math.max(first, p.first_idx), Math.min(last, p.last_idx)));
}

/** A run of a copy's chunks placed in a segment, as the index holds it. */
export interface PlacementRow {
  segment: number;
  first_idx: number;
  last_idx: number;
}

/** Every copy's placements (layout 2), in chunk order: one query for a search over many copies. */
export function placementsByCopy(index: Database): Map<string, PlacementRow[]> {
  const byCopy = new Map<string, PlacementRow[]>();
  for (const row of queryRows<PlacementRow & { output_id: string }>(
    index,
    'SELECT output_id, segment, first_idx, last_idx FROM placements ORDER BY output_id, first_idx',
  )) {
    let runs = byCopy.get(row.output_id);
    if (!runs) byCopy.set(row.output_id, (runs = []));
    runs.push({ segment: row.segment, first_idx: row.first_idx, last_idx: row.last_idx });
  }
  return byCopy;
}

/**
 * The trigram masks of a copy's `chunkCount` chunks, from its placements: undefined for a chunk no
 * segment holds a mask of (written before masks, or not placed).
 */
export function placedGrams(
  placements: readonly PlacementRow[],
  segments: SegmentCache,
  outputId: string,
  chunkCount: number,
): (Uint8Array | undefined)[] {
  const masks = new Array<Uint8Array | undefined>(chunkCount).fill(undefined);
  for (const p of placements) {
    const first = Math.max(0, p.first_idx);
    const last = Math.min(chunkCount - 1, p.last_idx);
    if (last < first) continue;
    segments.grams(p.segment, outputId, first, last).forEach((mask, at) => (masks[first + at] = mask));
  }
  return masks;
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
    // The masks of each run of a copy's chunks as one row of the grams table (segmentBuild.ts GRAMS_SCHEMA).
    const data = buildSegment(
      segment.rows,
      segment.masks.map(({ outputId, first, grams }) => {
        const size = Buffer.alloc(4);
        size.writeUInt32BE(grams[0].length);
        return { outputId, first, masks: Buffer.concat([size, ...grams]) };
      }),
    );
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

/**
 * At open, with the session locked, before an index is used: removes the segment files no index
 * names (`named`), a crash's. Anything else under a segment's name (a folder, a FIFO, a link, a
 * socket) no checkpoint wrote: it is moved aside, never opened or followed, and reported. Removing
 * it instead could fail (a folder), and a failure here would set the whole index aside as damaged.
 */
export async function removeOrphanSegments(file: string, named: Set<number>, report: OpenReport): Promise<void> {
  for (const segment of await segmentsOnDisk(file)) {
    if (named.has(segment.n)) continue;
    const stat = await fs.lstat(segment.path).catch(() => undefined);
    const kind = stat && notRegularKind(stat);
    if (!kind) await fs.rm(segment.path, { force: true });
    else
      (report.segmentsSetAside ??= []).push({
        path: segment.path,
        reason: `${kind}, not a regular file, under the name of a segment no index names`,
        aside: await moveAside(segment.path, 'corrupt'),
      });
  }
}

interface RecordedSegment {
  n: number;
  data_bytes: number;
  file_bytes: number;
}

/**
 * At open, after removeOrphanSegments: checks each segment the index names against what the index
 * records of it. One whose content is gone (see segmentLost) is moved aside when there, unnamed,
 * and reported with the copies that had parts in it.
 */
export async function checkSegments(index: Database, file: string, report: OpenReport): Promise<void> {
  for (const segment of queryRows<RecordedSegment>(index, 'SELECT n, data_bytes, file_bytes FROM segments')) {
    const lost = await segmentLost(index, segmentFile(file, segment.n), segment, report);
    if (!lost) continue;
    const outputs = queryRows<{ output_id: string }>(index, 'SELECT DISTINCT output_id FROM placements WHERE segment = ?', [segment.n]).map(
      (row) => row.output_id,
    );
    (report.segmentsLost ??= []).push({ ...lost, outputs });
    index.run('DELETE FROM placements WHERE segment = ?', [segment.n]);
    index.run('DELETE FROM segments WHERE n = ?', [segment.n]);
  }
}

/**
 * Where segment file `path` was moved and why, when it cannot be what the index names: missing, not
 * a regular file, shorter than written, or longer with its first bytes not holding what the index
 * places there. Longer and holding it, nothing is lost (bytes were appended to it, and a reader
 * never reads past its recorded pages): undefined, once it is cut back (cutBack) and reported.
 */
async function segmentLost(
  index: Database,
  path: string,
  segment: RecordedSegment,
  report: OpenReport,
): Promise<{ path: string; reason: string } | undefined> {
  const stat = await fs.lstat(path).catch(() => undefined);
  if (!stat) return { path, reason: 'missing' };
  const kind = notRegularKind(stat);
  if (kind) return { path: await moveAside(path, 'corrupt'), reason: `${kind}, not a regular file` };
  if (stat.size === segment.file_bytes) return undefined;
  let wrong = '';
  if (stat.size > segment.file_bytes) {
    try {
      checkHolds(index, path, segment);
      (report.segmentsSetAside ??= []).push(await cutBack(path, segment.file_bytes, stat.size));
      return undefined;
    } catch (error) {
      wrong = `, and its first ${segment.file_bytes} do not hold what the index places in it (${describeError(error)})`;
    }
  }
  return { path: await moveAside(path, 'torn'), reason: `${stat.size} bytes, ${segment.file_bytes} were written${wrong}` };
}

/**
 * Throws unless the first `file_bytes` of the segment are a segment of that length holding the
 * chunks the index records: the bytes of them all, and each chunk it places there, of the bytes
 * recorded. No checksum covers the chunks' content; as for any segment, damage there is found when
 * a chunk is read and decoded.
 */
function checkHolds(index: Database, path: string, segment: RecordedSegment): void {
  const fd = openSessionFileSync(path);
  try {
    const map = mapSegment(fd, segment.file_bytes);
    if (map.pages * map.pageSize !== segment.file_bytes) throw new Error(`its header counts ${map.pages} pages of ${map.pageSize} bytes`);
    let dataBytes = 0;
    for (const chunk of map.chunks.values()) dataBytes += chunk.dataBytes;
    if (dataBytes !== segment.data_bytes) throw new Error(`it holds ${dataBytes} bytes of chunks, ${segment.data_bytes} were written`);
    const placed = queryRows<{ output_id: string; first_idx: number; last_idx: number; bytes: number }>(
      index,
      'SELECT output_id, first_idx, last_idx, bytes FROM placements WHERE segment = ?',
      [segment.n],
    );
    for (const p of placed) {
      let bytes = 0;
      for (let idx = p.first_idx; idx <= p.last_idx; idx++) {
        const chunk = map.chunks.get(`${p.output_id}:${idx}`);
        if (!chunk) throw new Error(`chunk ${idx} of ${p.output_id} is not in it`);
        bytes += chunk.dataBytes;
      }
      if (bytes !== p.bytes)
        throw new Error(`chunks ${p.first_idx}-${p.last_idx} of ${p.output_id} are ${bytes} bytes, ${p.bytes} were written`);
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Cuts a segment with bytes appended back to its first `written`, keeping the file as found for the
 * user: a hard link to it under a name aside, then those bytes written over its name atomically,
 * so a crash leaves one or the other there. Should that fail (a file system without hard links), it
 * is left as it is, read by its recorded length (mapSegment), and reported again at the next open.
 */
async function cutBack(path: string, written: number, found: number): Promise<NonNullable<OpenReport['segmentsSetAside']>[number]> {
  const reason = `${found - written} bytes past the ${written} the index records for it; its outputs read as written`;
  const aside = asidePath(path, 'torn');
  let linked = false;
  try {
    await fs.link(path, aside);
    linked = true;
    await atomicWriteFile(path, await readHead(path, written));
    return { path, reason, aside };
  } catch (error) {
    if (linked) await fs.rm(aside, { force: true }).catch(() => undefined);
    return { path, reason: `${reason}; left in place, ignored (${describeError(error)})` };
  }
}

/** The first `bytes` of a session file, not the rest (bytes appended to it may be many). */
async function readHead(path: string, bytes: number): Promise<Buffer> {
  const handle = await openSessionFile(path);
  if (!handle) throw new Error(`${path} is gone`);
  try {
    const head = Buffer.alloc(bytes);
    for (let done = 0; done < bytes;) {
      const { bytesRead } = await handle.read(head, done, bytes - done, done);
      if (bytesRead === 0) throw new Error(`${path} ends at ${done} bytes`);
      done += bytesRead;
    }
    return head;
  } finally {
    await handle.close();
  }
}
