/**
 * Bytes as the engine keeps them: any Uint8Array as a Buffer without a copy, and the cap of a copy:
 * its first half, a gap marker and its last half. The store caps a whole buffer at retention; a
 * capture's sink (capture/headTailBuffer.ts) caps a stream as it comes, by the same shape and marker,
 * so a copy cut at either place holds the same bytes.
 */
import type { NotableDigest } from './types';
import { lastCompleteBoundary } from './utf8';

/** Bytes kept free inside a cap for the gap marker, so head + marker + tail never exceeds the cap. */
export const MARKER_RESERVE = 256;

export interface CappedBytes {
  /** Head, gap marker (when bytes were dropped) and tail: at most the cap. */
  bytes: Buffer;
  /** Bytes written in all. */
  totalBytes: number;
  /** Bytes written that are not in `bytes`. */
  droppedBytes: number;
  /** Byte offset of the gap marker in `bytes`, when bytes were dropped. */
  gapOffset?: number;
  complete: boolean;
  /**
   * The notable lines in the bytes that were dropped (output offsets and line numbers, each
   * `dropped: true`), when the sink was asked to look for them and bytes were dropped.
   */
  dropped?: NotableDigest;
}

/** How a cap splits: the head's bytes, the tail's once the marker takes its reserve, and the ring's (tail and reserve). */
export function capShape(cap: number): { headCap: number; tailCap: number; ringCap: number } {
  if (!Number.isInteger(cap) || cap < MARKER_RESERVE * 4)
    throw new RangeError(`cap must be an integer of at least ${MARKER_RESERVE * 4} bytes`);
  const headCap = Math.floor((cap - MARKER_RESERVE) / 2);
  return { headCap, tailCap: cap - MARKER_RESERVE - headCap, ringCap: cap - headCap };
}

/** The text that stands in the copy where bytes were dropped; ASCII, one line. */
export function gapMarker(dropped: number, totalBytes: number): string {
  return `\n[tool-output-recall: ${dropped} bytes of ${totalBytes} were dropped here to stay within the cap; the copy keeps the head and the tail. complete=false]\n`;
}

/** The same bytes as a Buffer (a view, never a copy). */
export function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * Caps a whole buffer as a sink of `cap` caps a stream: within the cap it comes back as it is (a view);
 * past it, the head ends before a character it would split and the tail skips up to three
 * continuation bytes at its start (their lead is gone), around the marker.
 */
export function capBytes(bytes: Uint8Array, cap: number): CappedBytes {
  const whole = toBuffer(bytes);
  const totalBytes = whole.length;
  if (totalBytes <= cap) return { bytes: whole, totalBytes, droppedBytes: 0, complete: true };
  const { headCap, tailCap } = capShape(cap);
  const headEnd = lastCompleteBoundary(whole, headCap);
  let tailStart = totalBytes - tailCap;
  for (let skip = 0; skip < 3 && skip < tailCap && (whole[tailStart] & 0xc0) === 0x80; skip++) tailStart++;
  const droppedBytes = tailStart - headEnd;
  const marker = Buffer.from(gapMarker(droppedBytes, totalBytes), 'utf8').subarray(0, MARKER_RESERVE);
  return {
    bytes: Buffer.concat([whole.subarray(0, headEnd), marker, whole.subarray(tailStart)]),
    totalBytes,
    droppedBytes,
    gapOffset: headEnd,
    complete: false,
  };
}
