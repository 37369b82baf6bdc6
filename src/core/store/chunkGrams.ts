/**
 * A chunk's trigram mask: which byte trigrams occur in a 64 KiB chunk, as a bitmap of GRAM_BITS bits,
 * so a search across every retained output can skip the chunks that cannot hold a literal without
 * reading or inflating them (issue 38 §3).
 *
 * The mask of chunk k has bit `gramBit(t)` set for every trigram t that starts in the chunk (the last
 * two run into the next chunk's first bytes), ASCII letters folded to lower case, so one mask serves
 * case-sensitive and case-insensitive searches. A literal occurrence starting in chunk k has its
 * trigrams, in order, first in mask(k) then in mask(k + 1) (a literal is far shorter than a chunk):
 * `candidateChunks` tests exactly that. A bit set by another trigram (a collision) only makes a chunk
 * a candidate for nothing; a trigram never leaves its bit unset, so no chunk holding a match is skipped.
 */

/** Bits of a chunk's mask (2 KiB): the ~5,700 distinct trigrams of a chunk of log text set ~29% of them (see docs/decisions.md). */
export const GRAM_BITS = 16384;
export const GRAM_BYTES = GRAM_BITS / 8;
const SHIFT = 32 - Math.log2(GRAM_BITS);

/** ASCII letters to lower case, every other byte as it is. */
const FOLD = new Uint8Array(256).map((_, byte) => (byte >= 0x41 && byte <= 0x5a ? byte + 0x20 : byte));

/**
 * The bit of a trigram (its three folded bytes as one 24-bit number, first byte highest) in a mask of
 * 2^(32 - shift) bits: a multiplicative hash. A reader takes the shift from the mask's length, so masks
 * of another size (should GRAM_BITS change) still read.
 */
const bitOf = (gram: number, shift = SHIFT): number => Math.imul(gram, 0x9e3779b1) >>> shift;

/** The shift of a mask of `bytes` bytes (a power of two, at least 8), or undefined for any other length (not a mask). */
function shiftOf(bytes: number): number | undefined {
  if (bytes < 8 || bytes > 1 << 24 || (bytes & (bytes - 1)) !== 0) return undefined;
  return 32 - Math.log2(bytes * 8);
}

/**
 * The mask of `chunk`, whose next bytes (up to 2: the following chunk's first, none for a copy's last
 * chunk) are `next`: every trigram starting in `chunk`.
 */
export function chunkGrams(chunk: Uint8Array, next: Uint8Array = new Uint8Array(0)): Uint8Array {
  const mask = new Uint8Array(GRAM_BYTES);
  const length = chunk.length;
  const byteAt = (at: number): number => (at < length ? chunk[at] : at - length < next.length ? next[at - length] : -1);
  const ends = Math.min(length, length + next.length - 2);
  if (ends <= 0) return mask;
  let gram = (FOLD[byteAt(0)] << 8) | FOLD[byteAt(1)];
  const inside = Math.max(0, length - 2);
  // The trigrams whose three bytes are all in the chunk: the hot loop.
  for (let at = 0; at < inside; at++) {
    gram = ((gram << 8) | FOLD[chunk[at + 2]]) & 0xffffff;
    const bit = Math.imul(gram, 0x9e3779b1) >>> SHIFT;
    mask[bit >>> 3] |= 1 << (bit & 7);
  }
  for (let at = inside; at < ends; at++) {
    gram = ((gram << 8) | FOLD[byteAt(at + 2)]) & 0xffffff;
    const bit = bitOf(gram);
    mask[bit >>> 3] |= 1 << (bit & 7);
  }
  return mask;
}

const hasBit = (mask: Uint8Array, bit: number): boolean => (mask[bit >>> 3] & (1 << (bit & 7))) !== 0;

/** Set bits of each byte value. */
const ONES = new Uint8Array(256).map((_, byte) => (byte.toString(2).match(/1/g) ?? []).length);
/** A byte's four bit pairs, each ORed into one bit: half a byte of a mask of half the bits. */
const PAIRS = new Uint8Array(256).map((_, byte) => {
  let half = 0;
  for (let pair = 0; pair < 4; pair++) if ((byte >> (2 * pair)) & 3) half |= 1 << pair;
  return half;
});

/** The OR of masks of one length (a copy's chunks'): every trigram of the copy has its bit in it. */
export function orOfMasks(masks: readonly Uint8Array[]): Uint8Array {
  const summary = new Uint8Array(masks[0].length);
  for (const mask of masks) orInto(summary, mask);
  return summary;
}

/** ORs `mask` into `target` (of its length), 32 bits a step where both are so aligned. */
export function orInto(target: Uint8Array, mask: Uint8Array): void {
  if (target.length % 4 === 0 && target.byteOffset % 4 === 0 && mask.byteOffset % 4 === 0) {
    const words = new Uint32Array(target.buffer, target.byteOffset, target.length / 4);
    const other = new Uint32Array(mask.buffer, mask.byteOffset, words.length);
    for (let at = 0; at < words.length; at++) words[at] |= other[at];
  } else for (let at = 0; at < target.length; at++) target[at] |= mask[at];
}

/** Below this share of its bits set, a copy's summary is halved (it was sparse enough to stay useful). */
const SUMMARY_DENSITY = 1 / 3;
/** A summary is never halved below this many bytes. */
const SUMMARY_MIN_BYTES = 64;

/**
 * A copy's summary as the index keeps it (copySummaries.ts): the OR of its chunks' masks, halved while
 * the half has at most a third of its bits set. A trigram's bit in a mask of half the bits is its bit
 * in the whole one shifted right by one (`bitOf` takes the hash's top bits), so a half is each pair of
 * bits ORed, and `candidateChunks` reads it by its length like any mask. A small copy's summary is
 * then a few hundred bytes instead of 2 KiB, and as selective as a third of its bits set allows.
 */
export function compactSummary(summary: Uint8Array): Uint8Array {
  let mask = summary;
  while (mask.length > SUMMARY_MIN_BYTES) {
    const half = new Uint8Array(mask.length / 2);
    let ones = 0;
    for (let at = 0; at < half.length; at++) {
      half[at] = PAIRS[mask[2 * at]] | (PAIRS[mask[2 * at + 1]] << 4);
      ones += ONES[half[at]];
    }
    if (ones > half.length * 8 * SUMMARY_DENSITY) break;
    mask = half;
  }
  return mask;
}

/** The trigrams every occurrence of a literal holds (folded, as 24-bit numbers), in the literal's order. */
export interface LiteralGrams {
  grams: number[];
  /** Whether the first starts at the literal's first byte (then it starts in the chunk the occurrence does). */
  anchored: boolean;
}

/**
 * The trigrams every occurrence of `literal` holds; undefined when there are none (then any chunk may
 * hold it). Case-sensitive, every trigram of its UTF-8 bytes (folded as the masks are).
 * Case-insensitive, `variants` gives each character's case variants as RE2 folds them (scanners.ts
 * `caseVariants`): only a run of three characters whose every variant is one byte, the same once
 * folded, spells a trigram every match holds ('k' also matches U+212A KELVIN SIGN, 's' U+017F LONG S,
 * a non-ASCII letter other bytes).
 */
export function literalGrams(literal: string, caseSensitive: boolean, variants: (char: string) => string[]): LiteralGrams | undefined {
  // Per byte of a match, its folded value, or -1 where the byte is not known (a character of several spellings).
  const bytes: number[] = [];
  if (caseSensitive) for (const byte of Buffer.from(literal, 'utf8')) bytes.push(FOLD[byte]);
  else {
    for (const char of literal) {
      const spellings = variants(char).map((variant) => Buffer.from(variant, 'utf8'));
      const single = spellings.every((spelt) => spelt.length === 1);
      const folded = new Set(spellings.map((spelt) => FOLD[spelt[0]]));
      // One folded byte for every spelling: known; anything else breaks the run (and ends any trigram through it).
      bytes.push(single && folded.size === 1 ? [...folded][0] : -1);
    }
  }
  const grams: number[] = [];
  let anchored = false;
  for (let at = 0; at + 2 < bytes.length; at++) {
    const [a, b, c] = [bytes[at], bytes[at + 1], bytes[at + 2]];
    if (a < 0 || b < 0 || c < 0) continue;
    if (at === 0) anchored = true;
    grams.push((a << 16) | (b << 8) | c);
  }
  return grams.length > 0 ? { grams, anchored } : undefined;
}

/**
 * The chunks where an occurrence of one of the literals can start: chunk k is one when, for a
 * literal, its trigrams are a prefix in mask(k) (not empty when the first starts at the literal's
 * start) and the rest in mask(k + 1) (a literal starting in k ends in k or k + 1). A chunk without a
 * mask (`undefined`: written before masks, or not a mask) could hold anything.
 */
export function candidateChunks(masks: readonly (Uint8Array | undefined)[], literals: readonly LiteralGrams[]): number[] {
  // Each literal's bits, per mask size met.
  const bitsBySize = new Map<number, number[][]>();
  const bitsFor = (mask: Uint8Array): number[][] | undefined => {
    let bits = bitsBySize.get(mask.length);
    if (!bits) {
      const shift = shiftOf(mask.length);
      if (shift === undefined) return undefined;
      bits = literals.map(({ grams }) => grams.map((gram) => bitOf(gram, shift)));
      bitsBySize.set(mask.length, bits);
    }
    return bits;
  };
  const candidates: number[] = [];
  for (let k = 0; k < masks.length; k++) {
    const here = masks[k];
    const after = masks[k + 1];
    const hereBits = here && bitsFor(here);
    const afterBits = after && bitsFor(after);
    const possible = literals.some(({ anchored }, which) => {
      if (!here || !hereBits) return true;
      const bits = hereBits[which];
      let prefix = 0;
      while (prefix < bits.length && hasBit(here, bits[prefix])) prefix++;
      if (prefix === bits.length) return true;
      if (k + 1 >= masks.length || (anchored && prefix === 0)) return false;
      if (!after || !afterBits) return true;
      const next = afterBits[which];
      for (let at = prefix; at < next.length; at++) if (!hasBit(after, next[at])) return false;
      return true;
    });
    if (possible) candidates.push(k);
  }
  return candidates;
}
