/**
 * The segments step of a checkpoint: the pending copies' chunks, and the live chunks of segments
 * worth rewriting, into new segments, each recorded in the index as it is written.
 */
import type { Database } from 'sql.js';
import { CHUNK_BYTES, encodeChunks } from './chunks';
import { SummaryOfCopy, recordSummaries } from './copySummaries';
import { isLive } from './outputRows';
import type { PendingContent } from './pendingContent';
import {
  liveChunks,
  placeRun,
  recordSegment,
  segmentsToRewrite,
  type Placement,
  type SealedSegment,
  type SegmentCache,
  type SegmentWriter,
} from './segments';

/** A pending copy is read back and encoded this many bytes at a time (whole chunks). */
const WINDOW_BYTES = 16 * CHUNK_BYTES;

export interface SegmentRound {
  /** The open index. */
  index(): Database;
  segments: SegmentCache;
  /** The store's pending copies: one is dropped once all its chunks are written. */
  pending: Map<string, PendingContent>;
  /** A segment was written and recorded in the index (not yet fsync'd). */
  sealed(n: number): void;
}

/** Rewritten chunks, placed only once every segment is written (see placeRewritten). */
export interface Rewrites {
  rewritten: number[];
  deferred: { n: number; placement: Placement }[];
}

/**
 * Deflates each pending copy of `batch` and adds its chunks (and records its trigram summary), then
 * the live chunks of the segments worth rewriting. A copy's pending content is dropped once all its chunks are in written segments
 * (reads then go there). Rewritten chunks are placed only at the end (`deferred`), with their old
 * segments' placements removed in the same step, so a failure leaves no chunk placed twice.
 */
export async function writeSegments(writer: SegmentWriter, batch: [string, PendingContent][], round: SegmentRound): Promise<Rewrites> {
  const { pending } = round;
  const rewriting = new Set<string>();
  const deferred: Rewrites['deferred'] = [];
  let added: [string, PendingContent][] = [];
  const summaries = new Map<string, Uint8Array>();
  const record = (sealed: SealedSegment | undefined): void => {
    if (!sealed) return;
    const db = round.index();
    recordSegment(db, sealed, (placement) => {
      if (!rewriting.has(placement.outputId)) return isLive(db, placement.outputId);
      deferred.push({ n: sealed.n, placement });
      return false;
    });
    round.sealed(sealed.n);
    // Every chunk added before this seal is in a written segment now.
    for (const [outputId, content] of added) if (pending.get(outputId) === content) pending.delete(outputId);
    added = [];
  };
  for (const [outputId, content] of batch) {
    let idx = 0;
    const hint = { sample: true };
    const summary = new SummaryOfCopy();
    // A window at a time, so a copy is never held whole (read back from the journal, then its chunks).
    // Evicted or removed meanwhile: then it is no longer pending, and there is nothing more to store.
    for (let at = 0; at < content.length && pending.get(outputId) === content; at += WINDOW_BYTES) {
      // With the 2 bytes after the window: the trigrams of its last chunk's end run into them.
      const read = content.read(at, at + WINDOW_BYTES + 2);
      const window = read.subarray(0, WINDOW_BYTES);
      const encoded = await encodeChunks(window, hint, read.subarray(window.length));
      if (pending.get(outputId) !== content) break;
      for (const chunk of encoded) {
        summary.add(chunk.grams);
        record(await writer.add(outputId, idx++, chunk));
      }
    }
    if (pending.get(outputId) === content) {
      added.push([outputId, content]);
      const done = summary.done();
      if (done) summaries.set(outputId, done);
    }
  }
  // Read by searches only once a copy's chunks are placed (until then it is searched whole).
  recordSummaries(round.index(), summaries);
  const rewritten = segmentsToRewrite(round.index()).map((segment) => segment.n);
  for (const n of rewritten) {
    for (const { outputId, chunks } of liveChunks(round.index(), round.segments, n)) {
      rewriting.add(outputId);
      for (const chunk of chunks) record(await writer.add(outputId, chunk.idx, chunk));
    }
  }
  record(await writer.seal());
  return { rewritten, deferred };
}

/** Moves the rewritten chunks' placements to their new segments (those of copies still live). */
export function placeRewritten(db: Database, { rewritten, deferred }: Rewrites): void {
  for (const n of rewritten) db.run('DELETE FROM placements WHERE segment = ?', [n]);
  for (const { n, placement } of deferred) if (isLive(db, placement.outputId)) placeRun(db, n, placement);
}
