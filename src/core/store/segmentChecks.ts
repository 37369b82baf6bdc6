/**
 * The segment checks at open (with the session locked, before an index is used): files under a
 * segment's name that no index names are removed, or moved aside when they are not regular files;
 * each segment the index names is checked against what the index records of it, cut back when
 * bytes were appended to it, or moved aside and unnamed when its content is gone.
 */
import { closeSync, promises as fs } from 'node:fs';
import type { Database } from 'sql.js';
import { describeError } from '../errors';
import type { OpenReport } from '../types';
import { atomicWriteFile } from './atomicWrite';
import { queryRows } from './schema';
import { chunksOf, mapSegment, masksOf } from './segmentFile';
import { asidePath, moveAside, notRegularKind, openSessionFile, openSessionFileSync, segmentFile, segmentsOnDisk } from './sessionFiles';

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
    const chunks = chunksOf(fd, map);
    masksOf(fd, map); // its rows of masks check out too
    let dataBytes = 0;
    for (const chunk of chunks.values()) dataBytes += chunk.dataBytes;
    if (dataBytes !== segment.data_bytes) throw new Error(`it holds ${dataBytes} bytes of chunks, ${segment.data_bytes} were written`);
    const placed = queryRows<{ output_id: string; first_idx: number; last_idx: number; bytes: number }>(
      index,
      'SELECT output_id, first_idx, last_idx, bytes FROM placements WHERE segment = ?',
      [segment.n],
    );
    for (const p of placed) {
      let bytes = 0;
      for (let idx = p.first_idx; idx <= p.last_idx; idx++) {
        const chunk = chunks.get(`${p.output_id}:${idx}`);
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
