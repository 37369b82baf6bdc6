/**
 * Random byte strings that mix what tools really print (ASCII lines, CJK, 4-byte emoji, combining
 * marks) with the ill-formed UTF-8 that binary output brings, and an oracle for UTF-8 "unit"
 * boundaries written from TextDecoder semantics alone (independent of src/core/utf8.ts).
 */
import type { Rng } from './prng';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

export const decode = (bytes: Uint8Array): string => decoder.decode(bytes);

const ASCII_WORDS = [
  'error',
  'total',
  'ok',
  'line',
  'x',
  ' ',
  '  ',
  '\t',
  '\n',
  '\r\n',
  '{',
  '}',
  ']',
  'TOTAL_SUMMARY=1',
  'abc',
  '0123456789',
];
const CJK = ['日本語', '中文', '漢字', '한국어', '테스트', '文字化け'];
const EMOJI = ['😀', '🎉', '👍🏽', '🧪', '𝄞', '🏳️‍🌈'];
const COMBINING = ['e\u0301', 'a\u0308', 'n\u0303', '\u0301', '\u20dd', 'Å'];

/** Ill-formed sequences, each a byte array. */
const INVALID: number[][] = [
  [0x80],
  [0xbf],
  [0x80, 0x80], // stray continuation bytes
  [0xe2, 0x82],
  [0xe2],
  [0xf0, 0x9f],
  [0xf0, 0x9f, 0x98],
  [0xc3], // truncated sequences
  [0xc0, 0x80],
  [0xc1, 0xbf],
  [0xe0, 0x80, 0x80],
  [0xf0, 0x80, 0x80, 0x80], // overlongs
  [0xed, 0xa0, 0x80],
  [0xed, 0xbf, 0xbf], // UTF-16 surrogates encoded in UTF-8
  [0xf4, 0x90, 0x80, 0x80], // beyond U+10FFFF
  [0xf5],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xfe],
  [0xff],
  [0xfc, 0x84], // bytes that never appear
];

/** Random mixed bytes of roughly `targetBytes` (a little more, never less unless 0). */
export function mixedBytes(rng: Rng, targetBytes: number, invalidShare = 0.1): Uint8Array {
  const parts: Uint8Array[] = [];
  let size = 0;
  while (size < targetBytes) {
    let part: Uint8Array;
    const roll = rng.next();
    if (roll < invalidShare) part = Uint8Array.from(rng.pick(INVALID));
    else if (invalidShare > 0 && roll < invalidShare + 0.01)
      part = Uint8Array.from({ length: rng.int(1, 8) }, () => rng.int(0, 255)); // raw noise
    else if (roll < 0.45) part = encoder.encode(rng.pick(ASCII_WORDS));
    else if (roll < 0.65) part = encoder.encode(rng.pick(CJK));
    else if (roll < 0.85) part = encoder.encode(rng.pick(EMOJI));
    else part = encoder.encode(rng.pick(COMBINING));
    parts.push(part);
    size += part.length;
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Valid UTF-8 text only (no ill-formed bytes), as a string. */
export function mixedText(rng: Rng, targetBytes: number): string {
  return decode(mixedBytes(rng, targetBytes, 0));
}

/**
 * The oracle: offset k is a decoding boundary iff decoding the two sides separately gives the same
 * text as decoding the whole. O(n) per offset; `boundarySet` is O(n²), so keep inputs small.
 */
export function isBoundaryOracle(bytes: Uint8Array, k: number, whole = decode(bytes)): boolean {
  if (k <= 0 || k >= bytes.length) return true;
  return decode(bytes.subarray(0, k)) + decode(bytes.subarray(k)) === whole;
}

/** Every boundary of `bytes` per the oracle, as a boolean per offset 0..length. */
export function boundarySet(bytes: Uint8Array): boolean[] {
  const whole = decode(bytes);
  const result: boolean[] = [];
  for (let k = 0; k <= bytes.length; k++) result.push(isBoundaryOracle(bytes, k, whole));
  return result;
}

/**
 * The boundaries either side of a non-boundary offset `k`, by the oracle. A decoding unit is at most
 * four bytes, so they lie within three bytes.
 */
export function enclosingBoundaries(bytes: Uint8Array, k: number, whole = decode(bytes)): { before: number; after: number } {
  let before = k - 1;
  while (!isBoundaryOracle(bytes, before, whole)) before--;
  let after = k + 1;
  while (!isBoundaryOracle(bytes, after, whole)) after++;
  return { before, after };
}

/**
 * The same oracle, decoding only from `from`, an offset already known to be a boundary (≤ k): the
 * units from there on are those of the whole, and a unit is at most 4 bytes, so decoding up to
 * k + 4 settles whether k is inside one. O(k - from) instead of O(length).
 */
export function isBoundaryFrom(bytes: Uint8Array, from: number, k: number): boolean {
  if (k <= 0 || k >= bytes.length || k === from) return true;
  return isBoundaryOracle(bytes.subarray(from, Math.min(bytes.length, k + 4)), k - from);
}

/** `enclosingBoundaries`, decoding only from a known boundary `from` < k. */
export function enclosingBoundariesFrom(bytes: Uint8Array, from: number, k: number): { before: number; after: number } {
  let before = k - 1;
  while (!isBoundaryFrom(bytes, from, before)) before--;
  let after = k + 1;
  while (!isBoundaryFrom(bytes, from, after)) after++;
  return { before, after };
}
