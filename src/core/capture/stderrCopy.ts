/**
 * stderr's bytes, held once. They are also in the merged copy, which keeps every byte until it
 * reaches its cap: until then only their spans in it are noted. Before the merged copy would drop
 * a byte, the stderr bytes so far are copied into a sink of stderr's own, which takes the rest.
 * Only a failed command's excerpt reads them.
 */
import type { CappedBytes } from '../bytes';
import { HeadTailBuffer } from './headTailBuffer';

/** Spans noted at most (pairs of numbers); past this, stderr gets its own sink early, to bound them. */
const MAX_SPANS = 64 * 1024;

export class StderrCopy {
  /** [start, end) offsets in the merged stream, adjacent spans joined. */
  private spans: number[] = [];
  private own: HeadTailBuffer | undefined;
  private total = 0;

  /** `cap`: stderr's own cap; `merged`: the sink each chunk of both streams goes to, after this is told of it. */
  constructor(
    private readonly cap: number,
    private readonly merged: HeadTailBuffer,
  ) {}

  /** Before a chunk of stdout of `length` bytes goes into the merged copy. */
  beforeMerged(length: number): void {
    if (!this.own && this.merged.totalBytes + length > this.merged.cap) this.takeOwn();
  }

  /** Before a chunk of stderr goes into the merged copy. */
  write(chunk: Buffer): void {
    if (!this.own && this.spans.length >= MAX_SPANS) this.takeOwn();
    this.beforeMerged(chunk.length);
    this.total += chunk.length;
    if (this.own) return this.own.write(chunk);
    const start = this.merged.totalBytes;
    const last = this.spans.length - 1;
    if (last > 0 && this.spans[last] === start) this.spans[last] = start + chunk.length;
    else this.spans.push(start, start + chunk.length);
  }

  summary(): Pick<CappedBytes, 'totalBytes' | 'droppedBytes' | 'complete'> {
    // Without a sink of its own, stderr is in the merged copy whole: it is at most the merged cap.
    return this.own ? this.own.summary() : { totalBytes: this.total, droppedBytes: 0, complete: true };
  }

  /** The captured bytes (head, gap marker and tail when capped), as a HeadTailBuffer of `cap` would give them. */
  bytes(): Buffer {
    return this.own ? this.own.finish().bytes : Buffer.concat(this.parts());
  }

  private parts(): Buffer[] {
    const parts: Buffer[] = [];
    for (let i = 0; i < this.spans.length; i += 2) parts.push(...this.merged.kept(this.spans[i], this.spans[i + 1]));
    return parts;
  }

  private takeOwn(): void {
    const own = new HeadTailBuffer(this.cap);
    for (const part of this.parts()) own.write(part);
    this.own = own;
    this.spans = [];
  }
}
