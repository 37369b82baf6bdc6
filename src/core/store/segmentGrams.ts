/**
 * The chunks' trigram masks in the segments (chunkGrams.ts makes them): the masks of each run of a
 * copy's chunks in a segment are one row of its `grams` table (segmentBuild.ts GRAMS_SCHEMA), read by
 * SegmentCache.grams without the chunks; a segment written before masks has none, and its chunks
 * read as maskless (any of them may hold anything).
 */
import type { Database } from 'sql.js';
import { queryRows } from './schema';
import type { SegmentCache } from './segments';

/** The row of the grams table of a run of a copy's masks, all of one size: that size (4 bytes, big-endian), then the masks. */
export function maskRunRow({ outputId, first, grams }: { outputId: string; first: number; grams: Uint8Array[] }): {
  outputId: string;
  first: number;
  masks: Buffer;
} {
  const size = Buffer.alloc(4);
  size.writeUInt32BE(grams[0].length);
  return { outputId, first, masks: Buffer.concat([size, ...grams]) };
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
