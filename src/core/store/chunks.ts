import { deflateRaw, inflateRawSync, constants } from 'node:zlib';
import { promisify } from 'node:util';

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

/** Encodes every chunk of `bytes` on libuv's thread pool, so the caller's thread stays free. */
export async function encodeChunks(bytes: Buffer): Promise<EncodedChunk[]> {
  const jobs: Promise<EncodedChunk>[] = [];
  for (let at = 0; at < bytes.length; at += CHUNK_BYTES) {
    const raw = bytes.subarray(at, Math.min(bytes.length, at + CHUNK_BYTES));
    jobs.push(
      deflateAsync(raw, { level: 1, strategy: constants.Z_DEFAULT_STRATEGY }).then((packed) =>
        // Keep raw when deflate saves less than 1/8: reading raw is cheaper.
        packed.length < raw.length - (raw.length >> 3) ? { codec: Codec.Deflate, data: packed } : { codec: Codec.Raw, data: raw },
      ),
    );
  }
  return Promise.all(jobs);
}

export function decodeChunk(codec: number, data: Uint8Array): Buffer {
  const buffer = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (codec === Codec.Raw) return buffer;
  if (codec === Codec.Deflate) return inflateRawSync(buffer);
  throw new Error(`unknown chunk codec ${codec}`);
}
