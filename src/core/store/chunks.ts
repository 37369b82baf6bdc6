import { deflateRaw, deflateRawSync, inflateRawSync, constants } from 'node:zlib';
import { isMainThread } from 'node:worker_threads';
import { promisify } from 'node:util';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { chunkGrams } from './chunkGrams';

/**
 * Copies are stored as fixed-size chunks so a page read touches one or two small rows instead of
 * an 8 MiB blob. Each chunk is deflated (level 1: log-like text shrinks 5-10x, which keeps the
 * session file and its durable rewrite small) unless that does not pay, as with binary output.
 */
export const CHUNK_BYTES = 64 * 1024;

export const enum Codec {
  Raw = 0,
  Deflate = 1,
}

export interface EncodedChunk {
  codec: Codec;
  data: Uint8Array;
  /** The chunk's trigram mask (chunkGrams.ts), stored beside it; none for chunks written before masks. */
  grams?: Uint8Array;
}

const deflateAsync = promisify(deflateRaw);

const DEFLATE_OPTIONS = { level: 1, strategy: constants.Z_DEFAULT_STRATEGY };

/**
 * A chunk after one that did not deflate (or a copy's first) has its first SAMPLE_BYTES looked at
 * first: when their byte values are spread almost evenly (order-0 entropy above
 * INCOMPRESSIBLE_BITS a byte), Huffman coding cannot save the 1/8 that makes deflate pay, only
 * repeats could, which such bytes (archives, images, random data) rarely have, so the chunk is
 * stored raw without trying. Incompressible output then costs a histogram of 4 KiB a chunk instead
 * of a 64 KiB deflate thrown away (a 2 KiB trial deflate cost ~85 µs a chunk, zlib's set-up alone).
 * Text, whose chunks deflate, is not sampled after its first.
 */
const SAMPLE_BYTES = 4096;
const INCOMPRESSIBLE_BITS = 7.5;

/** Deflate pays when it saves at least 1/8: reading raw is cheaper. */
const pays = (rawBytes: number, packedBytes: number): boolean => packedBytes < rawBytes - (rawBytes >> 3);

function looksIncompressible(raw: Buffer): boolean {
  if (raw.length <= 2 * SAMPLE_BYTES) return false;
  const counts = new Uint32Array(256);
  for (let i = 0; i < SAMPLE_BYTES; i++) counts[raw[i]]++;
  let bits = 0;
  for (const count of counts) if (count > 0) bits -= count * Math.log2(count / SAMPLE_BYTES);
  return bits / SAMPLE_BYTES > INCOMPRESSIBLE_BITS;
}

const choose = (raw: Buffer, packed: Buffer | undefined): EncodedChunk =>
  packed && pays(raw.length, packed.length) ? { codec: Codec.Deflate, data: packed } : { codec: Codec.Raw, data: raw };

/** What a copy's chunks so far showed: after one that did not deflate, the next is sampled first. */
export interface EncodeHint {
  sample: boolean;
}

/** Deflated, or raw when the sample (if the hint asks for one) looks incompressible or the whole does not shrink; updates the hint. */
function encodeOne(
  raw: Buffer,
  hint: EncodeHint,
  deflate: (raw: Buffer) => Buffer | Promise<Buffer>,
): EncodedChunk | Promise<EncodedChunk> {
  const done = (packed: Buffer | undefined): EncodedChunk => {
    const chunk = choose(raw, packed);
    hint.sample = chunk.codec === Codec.Raw;
    return chunk;
  };
  if (hint.sample && looksIncompressible(raw)) return done(undefined);
  const packed = deflate(raw);
  return packed instanceof Promise ? packed.then(done) : done(packed);
}

/**
 * Encodes every chunk of `bytes` (a checkpoint passes a copy a window at a time, with one hint), each
 * with its trigram mask; `following` is the first bytes (2 are used) of the copy after `bytes`, none at its
 * end: the last chunk's last trigrams run into them. On the main thread the deflates go to libuv's
 * thread pool so the caller stays responsive; in the store's own worker thread they run inline (the
 * thread pool is shared with every file operation of the process), with a turn of the event loop
 * every few ms so the worker answers page reads between chunks.
 */
export async function encodeChunks(
  bytes: Buffer,
  hint: EncodeHint = { sample: true },
  following: Uint8Array = Buffer.alloc(0),
): Promise<EncodedChunk[]> {
  const raws: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += CHUNK_BYTES) raws.push(bytes.subarray(at, Math.min(bytes.length, at + CHUNK_BYTES)));
  // The mask is made beside the deflate, on this thread (about a third of a level-1 deflate's time).
  const withGrams = (chunk: EncodedChunk, index: number): EncodedChunk => {
    const end = Math.min(bytes.length, (index + 1) * CHUNK_BYTES);
    return { ...chunk, grams: chunkGrams(raws[index], end < bytes.length ? bytes.subarray(end, end + 2) : following.subarray(0, 2)) };
  };
  if (!isMainThread) {
    const encoded: EncodedChunk[] = [];
    let sliceEnd = performance.now() + INLINE_SLICE_MS;
    for (const [index, raw] of raws.entries()) {
      encoded.push(withGrams(encodeOne(raw, hint, (bytes) => deflateRawSync(bytes, DEFLATE_OPTIONS)) as EncodedChunk, index));
      if (performance.now() < sliceEnd) continue;
      await nextTurn();
      sliceEnd = performance.now() + INLINE_SLICE_MS;
    }
    return encoded;
  }
  // A few jobs in flight, not one per chunk: each job holds ~256 KiB of zlib state (128 at once
  // cost ~35 MiB), and the pool has only four threads anyway (measured: 76 ms vs 196 ms for 8 MiB).
  const encoded = new Array<EncodedChunk>(raws.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < raws.length) {
      const index = next++;
      encoded[index] = withGrams(await encodeOne(raws[index], hint, (bytes) => deflateAsync(bytes, DEFLATE_OPTIONS)), index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(DEFLATE_LANES, raws.length) }, lane));
  return encoded;
}

const DEFLATE_LANES = 4;
const INLINE_SLICE_MS = 4;

/**
 * A chunk's bytes. `size`, the most it can hold (the copy's chunk size), is inflate's output buffer: zlib's
 * default of 16 KiB made four pieces of a chunk and joined them, 30% of inflating (measured: 235 → 167 ms for
 * 3,000 chunks of log text). One byte more, or a chunk that fills it exactly would take a second buffer.
 */
export function decodeChunk(codec: number, data: Uint8Array, size: number): Buffer {
  const buffer = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (codec === Codec.Raw) return buffer;
  if (codec === Codec.Deflate) return inflateRawSync(buffer, { chunkSize: Math.max(constants.Z_MIN_CHUNK, size + 1) });
  throw new Error(`unknown chunk codec ${codec}`);
}
