import { isAscii } from 'node:buffer';
import { MARKER_RESERVE, capShape, gapMarker, type CappedBytes as Capped } from '../bytes';
import { countNewlines, lastCompleteBoundary } from '../utf8';
import { NotableScanner, TEXT_BYTES } from '../notable/scanner';
import type { NotableKind } from '../notable/patterns';
import { LineTally } from '../previewSource';
import type { LineFacts, NotableDigest } from '../types';

/** What a sink holds when it is finished, with its line facts when it was asked to count them. */
export type SinkBytes = Capped & { lines?: LineFacts };

export interface HeadTailOptions {
  /**
   * Scan the bytes as they are dropped for notable lines of this kind, so what falls out of the
   * copy is still summarised (`SinkBytes.dropped`). Bytes kept are not scanned: the copy has them.
   */
  notable?: NotableKind;
  /**
   * Count the kept bytes' line breaks (`SinkBytes.lines`): as they are written while none is
   * dropped, else once in the finished bytes.
   */
  lines?: boolean;
}

/**
 * A write-only byte sink capped at `cap` bytes: it keeps the first half and a ring of the last half,
 * counts what falls between, and never holds more than the cap however much is written. Used for
 * each captured stream, for the merged copy, and to cap a copy at retention.
 */
export class HeadTailBuffer {
  private readonly headCap: number;
  private readonly tailCap: number;
  /**
   * The ring also holds the marker's reserve, so output of up to exactly `cap` bytes is kept whole;
   * only when bytes are dropped does the tail give the reserve back to the marker.
   */
  private readonly ringCap: number;
  private head: Buffer;
  private headLength = 0;
  private tail: Buffer | undefined;
  /** Next write position in the ring, and how many ring bytes are valid. */
  private tailAt = 0;
  private tailLength = 0;
  private total = 0;
  private readonly notableKind: NotableKind | undefined;
  /** Scans what leaves the ring, from the first byte dropped on (made then). */
  private scanner: NotableScanner | undefined;
  /** Its digest, once made: `finish` may build the bytes again. */
  private droppedDigest: NotableDigest | undefined;
  /** Counts the line breaks while no byte is dropped (then the stream is the copy). */
  private tally: LineTally | undefined;
  private lineFacts: LineFacts | undefined;
  private readonly countLines: boolean;

  constructor(
    readonly cap: number,
    options: HeadTailOptions = {},
  ) {
    this.notableKind = options.notable;
    this.countLines = options.lines === true;
    if (this.countLines) this.tally = new LineTally();
    ({ headCap: this.headCap, tailCap: this.tailCap, ringCap: this.ringCap } = capShape(cap));
    // Grown on demand: a command that prints 10 bytes must not cost 8 MiB.
    this.head = Buffer.allocUnsafe(Math.min(this.headCap, 64 * 1024));
  }

  get totalBytes(): number {
    return this.total;
  }

  write(chunk: Uint8Array): void {
    this.total += chunk.length;
    if (this.tally) {
      if (this.total <= this.cap) this.tally.write(chunk);
      else this.tally = undefined;
    }
    let data = chunk;
    if (this.headLength < this.headCap) {
      const take = Math.min(this.headCap - this.headLength, data.length);
      this.ensureHead(this.headLength + take);
      this.head.set(data.subarray(0, take), this.headLength);
      this.headLength += take;
      data = data.subarray(take);
      if (data.length === 0) return;
    }
    this.tail ??= Buffer.allocUnsafe(this.ringCap);
    if (this.notableKind) this.scanDropped(data);
    if (data.length >= this.ringCap) {
      this.tail.set(data.subarray(data.length - this.ringCap));
      this.tailAt = 0;
      this.tailLength = this.ringCap;
      return;
    }
    const first = Math.min(data.length, this.ringCap - this.tailAt);
    this.tail.set(data.subarray(0, first), this.tailAt);
    this.tail.set(data.subarray(first), 0);
    this.tailAt = (this.tailAt + data.length) % this.ringCap;
    this.tailLength = Math.min(this.ringCap, this.tailLength + data.length);
  }

  /**
   * Before `data` goes into the ring, scans what it pushes out: the ring's oldest bytes, then the
   * front of `data` itself when it is larger than the ring. They leave in stream order.
   */
  private scanDropped(data: Uint8Array): void {
    const leaving = this.tailLength + data.length - this.ringCap;
    if (leaving <= 0) return;
    const scanner = (this.scanner ??= this.startScanner());
    const fromRing = Math.min(leaving, this.tailLength);
    const oldest = (this.tailAt - this.tailLength + this.ringCap) % this.ringCap;
    const first = Math.min(fromRing, this.ringCap - oldest);
    scanner.write(this.tail!.subarray(oldest, oldest + first));
    if (fromRing > first) scanner.write(this.tail!.subarray(0, fromRing - first));
    if (leaving > fromRing) scanner.write(data.subarray(0, leaving - fromRing));
  }

  /** A scanner for the stream from the ring's first byte on, which follows the full head. */
  private startScanner(): NotableScanner {
    const head = this.head.subarray(0, this.headLength);
    const lineStart = head.lastIndexOf(0x0a) + 1;
    return new NotableScanner(this.notableKind!, {
      offset: this.headLength,
      line: countNewlines(head) + 1,
      lineStart,
      lineHead: head.subarray(lineStart, Math.min(this.headLength, lineStart + TEXT_BYTES)),
    });
  }

  /**
   * Head, gap marker and tail as one buffer. Built with a single allocation: with three 8 MiB
   * sinks per command, an intermediate copy of the ring would cost as much as the caps. It can be
   * built again (the same bytes), for when the first went to the store.
   */
  finish(describeGap: (dropped: number, totalBytes: number) => string = gapMarker): SinkBytes {
    const cut = this.cut();
    if (cut.droppedBytes === 0) {
      const bytes = Buffer.concat([this.head.subarray(0, this.headLength), ...cut.tail]);
      return { bytes, totalBytes: this.total, droppedBytes: 0, complete: true, ...this.linesOf(bytes) };
    }
    const marker = Buffer.from(describeGap(cut.droppedBytes, this.total), 'utf8').subarray(0, MARKER_RESERVE);
    const bytes = Buffer.concat([this.head.subarray(0, cut.headEnd), marker, ...cut.tail]);
    const capped: SinkBytes = {
      bytes,
      totalBytes: this.total,
      droppedBytes: cut.droppedBytes,
      gapOffset: cut.headEnd,
      complete: false,
      ...this.linesOf(bytes),
    };
    if (this.notableKind) capped.dropped = this.droppedDigest ??= this.finishScan(cut.ringDropped);
    return capped;
  }

  /** The finished bytes' line facts, when asked for: counted as written, or now in `bytes`. */
  private linesOf(bytes: Buffer): Pick<SinkBytes, 'lines'> {
    if (!this.countLines) return {};
    this.lineFacts ??= (this.tally ?? new LineTally().write(bytes)).facts();
    return { lines: this.lineFacts };
  }

  /** Views of the stream's bytes [from, to), while none was dropped (at most `cap` written): then the ring has not wrapped. */
  kept(from: number, to: number): Buffer[] {
    if (this.total > this.cap) throw new RangeError('kept() reads a sink that dropped no byte');
    const parts: Buffer[] = [];
    if (from < this.headLength) parts.push(this.head.subarray(from, Math.min(to, this.headLength)));
    if (to > this.headLength) parts.push(this.tail!.subarray(Math.max(0, from - this.headLength), to - this.headLength));
    return parts;
  }

  /** The dropped bytes' digest: the ring bytes the cut gives up are the last of them. */
  private finishScan(ringDropped: Buffer[]): NotableDigest {
    const scanner = (this.scanner ??= this.startScanner());
    for (const part of ringDropped) scanner.write(part);
    const digest = scanner.finish();
    return { ...digest, lines: digest.lines.map((line) => ({ ...line, dropped: true })) };
  }

  /** What `finish` would report, without building the bytes (for stderr, whose bytes only a failure's excerpt builds). */
  summary(): StreamSummary {
    const { droppedBytes } = this.cut();
    return { totalBytes: this.total, droppedBytes, complete: droppedBytes === 0 };
  }

  /**
   * Where the kept bytes end and start again, as views into the sinks (no copies), and the ring's
   * front that the cut gives up (dropped too).
   */
  private cut(): { headEnd: number; tail: Buffer[]; droppedBytes: number; ringDropped: Buffer[] } {
    const ring = this.ringSegments();
    if (this.total === this.headLength + this.tailLength) return { headEnd: this.headLength, tail: ring, droppedBytes: 0, ringDropped: [] };
    // Give the marker its reserve back, then cut on character boundaries: drop a partial character
    // at the end of the head and continuation bytes at the start of the tail (their lead is gone).
    let tail = dropFront(ring, this.tailLength - Math.min(this.tailLength, this.tailCap));
    let skip = 0;
    while (skip < 3 && skip < this.tailCap && isContinuationAt(tail, skip)) skip++;
    tail = dropFront(tail, skip);
    const kept = tail.reduce((sum, part) => sum + part.length, 0);
    const headEnd = lastCompleteBoundary(this.head, this.headLength);
    return { headEnd, tail, droppedBytes: this.total - headEnd - kept, ringDropped: takeFront(ring, this.tailLength - kept) };
  }

  private ringSegments(): Buffer[] {
    if (!this.tail || this.tailLength === 0) return [];
    if (this.tailLength < this.ringCap) return [this.tail.subarray(0, this.tailLength)];
    return [this.tail.subarray(this.tailAt), this.tail.subarray(0, this.tailAt)];
  }

  private ensureHead(needed: number): void {
    if (needed <= this.head.length) return;
    const grown = Buffer.allocUnsafe(Math.min(this.headCap, Math.max(needed, this.head.length * 2)));
    grown.set(this.head.subarray(0, this.headLength));
    this.head = grown;
  }
}

type StreamSummary = Pick<Capped, 'totalBytes' | 'droppedBytes' | 'complete'>;

/**
 * What a HeadTailBuffer of `cap` would `summary()` for a stream, without its bytes: for a stream
 * that is only counted (stdout, whose bytes the merged copy keeps). Its cut reads only the head's
 * last character and whether the tail's first bytes continue one, so it keeps the head's last 4
 * bytes and one bit per tail byte (set: a UTF-8 continuation byte), a sixteenth of the cap.
 */
export class StreamCounter {
  private readonly headCap: number;
  private readonly tailCap: number;
  private total = 0;
  /** The head's last bytes (the most a character takes), which say where its last whole character ends. */
  private headEnd = Buffer.alloc(0);
  /** Bit `p % tailCap` for the byte at stream offset `p` past the head; made when the head is full. */
  private continues: Uint8Array | undefined;

  constructor(readonly cap: number) {
    ({ headCap: this.headCap, tailCap: this.tailCap } = capShape(cap));
  }

  write(chunk: Uint8Array): void {
    const at = this.total;
    this.total += chunk.length;
    const intoHead = Math.max(0, Math.min(chunk.length, this.headCap - at));
    if (intoHead > 0) this.headEnd = Buffer.concat([this.headEnd, chunk.subarray(intoHead - Math.min(intoHead, 4), intoHead)]).subarray(-4);
    // Only the last tailCap bytes can be the tail's first ones.
    const from = Math.max(intoHead, chunk.length - this.tailCap);
    if (from < chunk.length) this.mark(chunk.subarray(from), at + from);
  }

  summary(): StreamSummary {
    if (this.total <= this.cap) return { totalBytes: this.total, droppedBytes: 0, complete: true };
    // As HeadTailBuffer.cut: the head ends before a character it would split, the tail skips up to
    // three continuation bytes at its start.
    const headEnd = this.headCap - this.headEnd.length + lastCompleteBoundary(this.headEnd, this.headEnd.length);
    const tailStart = this.total - this.tailCap;
    let skip = 0;
    while (skip < 3 && skip < this.tailCap && this.isContinuation(tailStart + skip)) skip++;
    const droppedBytes = this.total - headEnd - (this.tailCap - skip);
    return { totalBytes: this.total, droppedBytes, complete: false };
  }

  private isContinuation(offset: number): boolean {
    const bit = offset % this.tailCap;
    return (this.continues![bit >> 3] & (1 << (bit & 7))) !== 0;
  }

  /** Sets the bits of `bytes`, which start at stream offset `at`: cleared in bulk for ASCII, else byte by byte. */
  private mark(bytes: Uint8Array, at: number): void {
    const bits = (this.continues ??= new Uint8Array(Math.ceil(this.tailCap / 8)));
    const ascii = isAscii(bytes);
    for (let done = 0; done < bytes.length;) {
      const start = (at + done) % this.tailCap;
      const run = Math.min(bytes.length - done, this.tailCap - start);
      if (ascii) {
        clearBits(bits, start, start + run);
      } else {
        for (let i = 0; i < run; i++) {
          const bit = start + i;
          if ((bytes[done + i] & 0xc0) === 0x80) bits[bit >> 3] |= 1 << (bit & 7);
          else bits[bit >> 3] &= ~(1 << (bit & 7));
        }
      }
      done += run;
    }
  }
}

/** Clears bits [from, to): whole bytes at once, the ends bit by bit. */
function clearBits(bits: Uint8Array, from: number, to: number): void {
  let start = from;
  let end = to;
  for (; start < end && (start & 7) !== 0; start++) bits[start >> 3] &= ~(1 << (start & 7));
  for (; end > start && (end & 7) !== 0; end--) bits[(end - 1) >> 3] &= ~(1 << ((end - 1) & 7));
  if (end > start) bits.fill(0, start >> 3, end >> 3);
}

function dropFront(parts: Buffer[], count: number): Buffer[] {
  const out: Buffer[] = [];
  let left = count;
  for (const part of parts) {
    if (left >= part.length) {
      left -= part.length;
      continue;
    }
    out.push(left > 0 ? part.subarray(left) : part);
    left = 0;
  }
  return out;
}

/** The first `count` bytes of `parts`, as views. */
function takeFront(parts: Buffer[], count: number): Buffer[] {
  const out: Buffer[] = [];
  let left = count;
  for (const part of parts) {
    if (left <= 0) break;
    out.push(part.subarray(0, Math.min(left, part.length)));
    left -= part.length;
  }
  return out;
}

function isContinuationAt(parts: Buffer[], index: number): boolean {
  let at = index;
  for (const part of parts) {
    if (at < part.length) return (part[at] & 0xc0) === 0x80;
    at -= part.length;
  }
  return false;
}
