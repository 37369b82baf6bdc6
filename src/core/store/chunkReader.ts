/** Reads a copy's bytes from its chunk rows, keeping the most recently read chunks decoded. */
import { RecallError, describeError } from '../errors';
import { decodeChunk } from './chunks';
import type { OutputRow } from './outputRows';
import type { ChunkRow } from './segments';

/** Chunks [first, last] of a copy, wherever the session keeps them (segments, or a layout-1 file's own rows). */
export type FetchChunks = (outputId: string, first: number, last: number) => ChunkRow[];

const CHUNK_CACHE_ENTRIES = 8;

export class ChunkReader {
  private readonly cache = new Map<string, Buffer>();

  constructor(private readonly fetch: FetchChunks) {}

  /** Bytes [from, to) of a copy, fetched chunk by chunk. */
  bytes(row: OutputRow, from: number, to: number, cache: boolean): Buffer {
    const first = Math.floor(from / row.chunk_bytes);
    const last = Math.floor((to - 1) / row.chunk_bytes);
    const parts: Buffer[] = [];
    const missing: number[] = [];
    for (let index = first; index <= last; index++) if (!this.cache.has(`${row.id}:${index}`)) missing.push(index);
    const fetched = new Map<number, Buffer>();
    if (missing.length > 0) {
      for (const chunk of this.fetch(row.id, missing[0], missing[missing.length - 1])) {
        try {
          fetched.set(chunk.idx, decodeChunk(chunk.codec, chunk.data, row.chunk_bytes));
        } catch (error) {
          throw new RecallError(
            'STORE_UNAVAILABLE',
            `Chunk ${chunk.idx} of output "${row.id}" is damaged in the session file (${describeError(error)}); that part cannot be read.`,
          );
        }
      }
    }
    for (let index = first; index <= last; index++) {
      const chunk = this.cache.get(`${row.id}:${index}`) ?? fetched.get(index);
      if (!chunk)
        throw new RecallError(
          'STORE_UNAVAILABLE',
          `Chunk ${index} of output "${row.id}" is missing from the session file; that part cannot be read.`,
        );
      parts.push(chunk);
    }
    // Only once every part is in hand: remembering one can push out another this read still needs.
    if (cache) parts.forEach((chunk, at) => this.remember(`${row.id}:${first + at}`, chunk));
    const joined = parts.length === 1 ? parts[0] : Buffer.concat(parts);
    const base = first * row.chunk_bytes;
    return joined.subarray(from - base, to - base);
  }

  /** Drops every cached chunk. */
  clear(): void {
    this.cache.clear();
  }

  /** Drops one copy's cached chunks. */
  forget(outputId: string): void {
    for (const key of [...this.cache.keys()]) if (key.startsWith(`${outputId}:`)) this.cache.delete(key);
  }

  private remember(key: string, chunk: Buffer): void {
    this.cache.delete(key);
    this.cache.set(key, chunk);
    if (this.cache.size > CHUNK_CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
  }
}
