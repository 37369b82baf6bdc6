import { deflateRaw, deflateRawSync, inflateRawSync, constants } from 'node:zlib';
import { isMainThread } from 'node:worker_threads';
import { promisify } from 'node:util';
import { setImmediate as nextTurn } from 'node:timers/promises';

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
 * Encodes every chunk of `bytes` (a checkpoint passes a copy a window at a time, with one hint). On the main
 * thread the deflates go to libuv's thread pool so the caller stays responsive; in the store's own
 * worker thread they run inline (the thread pool is shared with every file operation of the
 * process), with a turn of the event loop every few ms so the worker answers page reads between chunks.
 */
export async function encodeChunks(bytes: Buffer, hint: EncodeHint = { sample: true }): Promise<EncodedChunk[]> {
  const raws: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += CHUNK_BYTES) raws.push(bytes.subarray(at, Math.min(bytes.length, at + CHUNK_BYTES)));
  if (!isMainThread) {
    const encoded: EncodedChunk[] = [];
    let sliceEnd = performance.now() + INLINE_SLICE_MS;
    for (const raw of raws) {
      encoded.push(encodeOne(raw, hint, (bytes) => deflateRawSync(bytes, DEFLATE_OPTIONS)) as EncodedChunk);
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
      encoded[index] = await encodeOne(raws[index], hint, (bytes) => deflateAsync(bytes, DEFLATE_OPTIONS));
    }
  };
  await Promise.all(Array.from({ length: Math.min(DEFLATE_LANES, raws.length) }, lane));
  return encoded;
}

const DEFLATE_LANES = 4;
const INLINE_SLICE_MS = 4;

export function decodeChunk(codec: number, data: Uint8Array): Buffer {
  const buffer = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (codec === Codec.Raw) return buffer;
  if (codec === Codec.Deflate) return inflateRawSync(buffer);
  throw new Error(`unknown chunk codec ${codec}`);
}
