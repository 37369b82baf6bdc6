/**
 * A retain's chunks are encoded while its journal record is written and fsync'd, not by the
 * checkpoint that stores them later. Deflating is most of what a checkpoint of text cost (8 MiB
 * of log: ~50 ms of deflate against ~3 ms to write and fsync the 2 MiB it shrinks to); started
 * beside the journal append, it runs while the retain waits on the disk, so the retain's answer
 * is not later, and the checkpoint only writes.
 *
 * Only chunks that deflated are kept (a fraction of the copy: bounded by PRE_ENCODED_BYTES over all
 * pending copies). A chunk stored raw is read back from the journal by the checkpoint, as before:
 * keeping it would hold the whole copy, which pending copies are not (see pendingContent.ts).
 */
import { Codec, encodeChunks, type EncodedChunk } from './chunks';
import type { PendingContent } from './pendingContent';

/** Deflated chunks held for pending copies at most; past it a copy is encoded by its checkpoint. */
export const PRE_ENCODED_BYTES = 8 * 1024 * 1024;

/** Per chunk of a copy: its deflated form, or undefined when it is stored raw (read back then). */
export type PreEncoded = (EncodedChunk | undefined)[];

interface Held {
  chunks: PreEncoded | undefined;
  bytes: number;
}

export class PreEncoder {
  private readonly held = new WeakMap<PendingContent, Promise<Held>>();
  /** Bytes of deflated chunks held, by copy (only those whose encoding finished and was kept). */
  private readonly sizes = new WeakMap<PendingContent, number>();

  /**
   * Starts encoding a retain's bytes. `pending` lists the copies still waiting for a checkpoint
   * when it finishes, to bound what all of them hold. Never rejects: a failure means the
   * checkpoint encodes the copy itself.
   */
  start(bytes: Buffer, pending: () => Iterable<PendingContent>): Promise<Held> {
    return encodeChunks(bytes).then(
      (encoded) => {
        let kept = 0;
        const chunks = encoded.map((chunk) => {
          if (chunk.codec === Codec.Raw) return undefined;
          kept += chunk.data.length;
          return chunk;
        });
        let holding = 0;
        for (const content of pending()) holding += this.sizes.get(content) ?? 0;
        return kept === 0 || holding + kept > PRE_ENCODED_BYTES ? { chunks: undefined, bytes: 0 } : { chunks, bytes: kept };
      },
      () => ({ chunks: undefined, bytes: 0 }),
    );
  }

  /** `content` (the journalled copy) is what `encoding` encodes. */
  attach(content: PendingContent, encoding: Promise<Held>): void {
    this.held.set(
      content,
      encoding.then((held) => {
        if (held.chunks) this.sizes.set(content, held.bytes);
        return held;
      }),
    );
  }

  /** The copy's encoded chunks once ready, or undefined: its checkpoint encodes it. */
  async take(content: PendingContent): Promise<PreEncoded | undefined> {
    const encoding = this.held.get(content);
    if (!encoding) return undefined;
    const { chunks } = await encoding;
    this.held.delete(content);
    this.sizes.delete(content);
    return chunks;
  }
}
