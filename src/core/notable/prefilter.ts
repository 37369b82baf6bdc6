/**
 * A prefilter for the scanner's patterns: where in a text a hit may start, at memory speed.
 *
 * Every hit starts with one of its pattern's `starts` (4 characters or more; in either case when the
 * pattern ignores case), so a position whose 4 bytes, each OR 0x20 (which maps a letter of either
 * case to its lower case, and so keeps every case variant), are not the first 4 of one (so folded)
 * holds no hit. The prefilter lists the other positions: a superset of where hits start. The
 * scanner then runs its patterns only there, anchored, and so finds exactly the hits a pass of them
 * over the whole text finds (a hit at a position is the same whichever way the pattern got there).
 *
 * It is a small WebAssembly function using 128-bit SIMD: per 16 positions, each of the 4 bytes
 * after them is looked up by its two nibbles in tables that say which of 8 groups of starts can
 * have that byte there ("shufti"); a position every lookup agrees on is checked exactly against a
 * hash table of the folded 4-byte starts. Where WebAssembly is not available, there is no
 * prefilter and the scanner runs its patterns over the whole text, with the same result.
 *
 * The module also counts line breaks, 16 bytes a step (`countLineBreaks`), for the scanner's line
 * numbers and the preview's marker.
 */

import { countNewlines } from '../utf8';

/** Largest text checked at once (the scanner's window). */
export const PREFILTER_SPAN = 64 * 1024;

const LENGTH = 4;
/** Memory: the nibble tables, the hash table of starts, the input, the positions found. */
const TABLES = 0;
const HASH = 1024;
const HASH_SLOTS = 256;
const INPUT = 4096;
/** Bytes read past a position: the prefix's 3, and a 16-byte load from the last block's start. */
const OVERREAD = LENGTH - 1 + 16;
const OUTPUT = INPUT + PREFILTER_SPAN + 4096;
const PAGES = Math.ceil((OUTPUT + PREFILTER_SPAN * 4) / 65536);
/** Multiplier of the hash table's hash (top 8 bits of the product). */
const GOLDEN = 0x9e3779b1;

const fold = (byte: number): number => byte | 0x20;
/**
 * The high nibbles of the bytes that fold to `folded`: the tables take the bytes as they are (the
 * case bit, 0x20, is in the high nibble), and the exact check folds them.
 */
const highNibbles = (folded: number): number[] => [folded >> 4, (folded & ~0x20) >> 4];
const slotOf = (value: number): number => Math.imul(value, GOLDEN) >>> 24;

export interface Prefilter {
  /**
   * Positions in `text[start, end)` (at most PREFILTER_SPAN) where a hit may start, ascending; the
   * view is valid until the next call of any prefilter.
   */
  candidates(text: Uint8Array, start: number, end: number): { count: number; at(index: number): number };
}

/** What the prefilter uses of WebAssembly (the engine's types leave it out: no DOM library). */
interface Wasm {
  Memory: new (limits: { initial: number; maximum: number }) => { buffer: ArrayBuffer };
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

interface Machine {
  memory: { buffer: ArrayBuffer };
  bytes: Uint8Array;
  scan: (from: number, to: number) => number;
  breaks: (from: number, to: number) => number;
  /** Which tables are loaded. */
  loaded?: Tables;
}

interface Tables {
  nibbles: Uint8Array;
  hash: Uint32Array;
}

/** The instance: undefined until first needed, null when WebAssembly is not there (not tried again). */
let machine: Machine | null | undefined;
const theMachine = (): Machine | null => (machine === undefined ? (machine = instantiate()) : machine);

/** A prefilter for hits starting with one of `starts` (latin1), or undefined without WebAssembly. */
export function makePrefilter(starts: readonly string[]): Prefilter | undefined {
  const m = theMachine();
  if (!m) return undefined;
  const tables = buildTables(starts);
  if (!tables) return undefined;
  const view = new Int32Array(m.memory.buffer, OUTPUT, PREFILTER_SPAN);
  let base = 0;
  let count = 0;
  const result = { count: 0, at: (index: number): number => view[index] - INPUT + base };
  return {
    candidates(text, start, end) {
      if (m.loaded !== tables) {
        m.bytes.set(tables.nibbles, TABLES);
        new Uint32Array(m.memory.buffer, HASH, HASH_SLOTS).set(tables.hash);
        m.loaded = tables;
      }
      const length = end - start;
      const copied = Math.min(text.length, end + OVERREAD) - start;
      m.bytes.set(text.subarray(start, start + copied), INPUT);
      m.bytes.fill(0, INPUT + copied, INPUT + length + OVERREAD);
      count = m.scan(INPUT, INPUT + length);
      base = start;
      result.count = count;
      return result;
    },
  };
}

/** Below this many bytes, line breaks are counted with `indexOf`. */
const FEW_BYTES = 4096;

/**
 * Line breaks in `bytes[from, to)`, as `countNewlines` counts them, 16 bytes at a step where
 * WebAssembly runs (`indexOf` finds one break a call: dense breaks, as in a log, cost more). It
 * uses the memory the prefilter reads its text from, not the positions it lists.
 */
export function countLineBreaks(bytes: Uint8Array, from = 0, to = bytes.length): number {
  if (to - from < FEW_BYTES) return countNewlines(bytes, from, to);
  const m = theMachine();
  if (!m) return countNewlines(bytes, from, to);
  let count = 0;
  for (let at = from; at < to; at += PREFILTER_SPAN) {
    const length = Math.min(to, at + PREFILTER_SPAN) - at;
    const padded = (length + 15) & ~15;
    m.bytes.set(bytes.subarray(at, at + length), INPUT);
    m.bytes.fill(0, INPUT + length, INPUT + padded);
    count += m.breaks(INPUT, INPUT + padded);
  }
  return count;
}

/** The nibble tables and the hash table for `starts`; undefined when they do not fit. */
function buildTables(starts: readonly string[]): Tables | undefined {
  const unique = new Map(
    starts.map((start) => [...start.slice(0, LENGTH)].map((c) => fold(c.charCodeAt(0)))).map((bytes) => [bytes.join(), bytes]),
  );
  const prefixes = [...unique.values()];
  if (prefixes.some((bytes) => bytes.length < LENGTH || bytes.some((byte) => byte > 0xff))) return undefined;
  if (prefixes.length > HASH_SLOTS / 2) return undefined;
  // Eight groups, each a byte's bit. A group lets through every position whose k-th byte has a low
  // and a high nibble that some member has there (a 16-bit mask of each per k): the product over k
  // of how many it allows is its volume. Each prefix joins the group it widens least.
  const bits = (mask: number): number => {
    let count = 0;
    for (let m = mask; m; m &= m - 1) count++;
    return count;
  };
  const masks = (prefix: number[]): number[] =>
    prefix.flatMap((byte) => [1 << (byte & 15), highNibbles(byte).reduce((mask, nibble) => mask | (1 << nibble), 0)]);
  const volume = (group: number[]): number => group.reduce((product, mask) => product * bits(mask), 1);
  const groups = Array.from({ length: 8 }, () => new Array<number>(LENGTH * 2).fill(0));
  const nibbles = new Uint8Array(LENGTH * 32);
  for (const prefix of prefixes) {
    const own = masks(prefix);
    let best = 0;
    let bestGrowth = Infinity;
    for (let g = 0; g < groups.length; g++) {
      const growth = volume(groups[g].map((mask, i) => mask | own[i])) - volume(groups[g]);
      if (growth < bestGrowth) {
        best = g;
        bestGrowth = growth;
      }
    }
    groups[best] = groups[best].map((mask, i) => mask | own[i]);
    for (let k = 0; k < LENGTH; k++) {
      nibbles[k * 32 + (prefix[k] & 15)] |= 1 << best;
      for (const nibble of highNibbles(prefix[k])) nibbles[k * 32 + 16 + nibble] |= 1 << best;
    }
  }
  const hash = new Uint32Array(HASH_SLOTS);
  for (const prefix of prefixes) {
    const value = (prefix[0] | (prefix[1] << 8) | (prefix[2] << 16) | (prefix[3] << 24)) >>> 0;
    let slot = slotOf(value);
    while (hash[slot] !== 0) slot = (slot + 1) & (HASH_SLOTS - 1);
    hash[slot] = value;
  }
  return { nibbles, hash };
}

function instantiate(): Machine | null {
  try {
    const wasm = (globalThis as { WebAssembly?: Wasm }).WebAssembly;
    if (!wasm) return null;
    const memory = new wasm.Memory({ initial: PAGES, maximum: PAGES });
    const module = new wasm.Module(assemble());
    const instance = new wasm.Instance(module, { m: { memory } });
    const scan = instance.exports.scan as (from: number, to: number) => number;
    const breaks = instance.exports.breaks as (from: number, to: number) => number;
    return { memory, bytes: new Uint8Array(memory.buffer), scan, breaks };
  } catch {
    return null; // no WebAssembly, or no SIMD: the scanner runs its patterns over the whole text
  }
}

// --- The WebAssembly module, assembled from the instructions below ------------------------------

const uleb = (value: number): number[] => {
  const out: number[] = [];
  let v = value >>> 0;
  do {
    const byte = v & 0x7f;
    v >>>= 7;
    out.push(v ? byte | 0x80 : byte);
  } while (v);
  return out;
};
const sleb = (value: number): number[] => {
  const out: number[] = [];
  let v = value | 0;
  for (;;) {
    const byte = v & 0x7f;
    v >>= 7;
    if ((v === 0 && (byte & 0x40) === 0) || (v === -1 && (byte & 0x40) !== 0)) return [...out, byte];
    out.push(byte | 0x80);
  }
};
const name = (text: string): number[] => [text.length, ...Buffer.from(text, 'latin1')];
const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];
const vector = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];

const I32 = 0x7f;
const V128 = 0x7b;
const VOID = 0x40;
const op = {
  block: [0x02, VOID],
  loop: [0x03, VOID],
  if: [0x04, VOID],
  end: [0x0b],
  br: (depth: number) => [0x0c, ...uleb(depth)],
  brIf: (depth: number) => [0x0d, ...uleb(depth)],
  get: (local: number) => [0x20, ...uleb(local)],
  set: (local: number) => [0x21, ...uleb(local)],
  tee: (local: number) => [0x22, ...uleb(local)],
  i32: (value: number) => [0x41, ...sleb(value)],
  i32Load: (offset: number) => [0x28, 0, ...uleb(offset)],
  i32Store: (offset: number) => [0x36, 0, ...uleb(offset)],
  i32Eqz: [0x45],
  i32Eq: [0x46],
  i32LtU: [0x49],
  i32GeU: [0x4f],
  i32Ctz: [0x68],
  select: [0x1b],
  i32Add: [0x6a],
  i32Sub: [0x6b],
  i32Mul: [0x6c],
  i32And: [0x71],
  i32Or: [0x72],
  i32Shl: [0x74],
  i32ShrU: [0x76],
  // 128-bit SIMD: 0xfd, then the instruction's number.
  v128Load: (offset: number) => [0xfd, 0x00, 0, ...uleb(offset)],
  v128Const: (byte: number) => [0xfd, 0x0c, ...new Array<number>(16).fill(byte)],
  swizzle: [0xfd, 0x0e],
  splat8: [0xfd, 0x0f],
  eq8: [0xfd, 0x23],
  ne8: [0xfd, 0x24],
  sub8: [0xfd, 0x71],
  /** i16x8.extadd_pairwise_i8x16_u, i32x4.extadd_pairwise_i16x8_u */
  widen8: [0xfd, 0x7d],
  widen16: [0xfd, 0x7f],
  lane32: (lane: number) => [0xfd, 0x1b, lane],
  add32x4: [0xfd, 0xae, 0x01],
  and: [0xfd, 0x4e],
  anyTrue: [0xfd, 0x53],
  bitmask8: [0xfd, 0x64],
  shrU8: [0xfd, 0x6d],
};

/**
 * The module: `scan(from, to)`, the positions in memory `[from, to)` that may start a prefix, at
 * OUTPUT, and their count; `breaks(from, to)`, the line breaks in memory `[from, to)` (a multiple
 * of 16 bytes long).
 */
function assemble(): Uint8Array {
  const functions = [assembleScan(), assembleBreaks()];
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, vector([[0x60, ...vector([[I32], [I32]]), ...vector([[I32]])]])),
    ...section(2, vector([[...name('m'), ...name('memory'), 0x02, 0x01, ...uleb(PAGES), ...uleb(PAGES)]])),
    ...section(3, vector(functions.map(() => [0]))),
    ...section(
      7,
      vector([
        [...name('scan'), 0x00, 0],
        [...name('breaks'), 0x00, 1],
      ]),
    ),
    ...section(10, vector(functions.map((body) => [...uleb(body.length), ...body]))),
  ]);
}

/**
 * `breaks`: per 16 bytes, the lanes equal to a line break (all ones, -1) are taken from 16 byte
 * counters, which are widened and added up every 255 steps (before one could overflow).
 */
function assembleBreaks(): number[] {
  const [from, to, limit, counters, total, newline] = [0, 1, 2, 3, 4, 5];
  const code: number[][] = [];
  code.push(op.i32(0x0a), op.splat8, op.set(newline), op.v128Const(0), op.set(total));
  code.push(op.block, op.loop, op.get(from), op.get(to), op.i32GeU, op.brIf(1));
  code.push(
    op.get(from),
    op.i32(255 * 16),
    op.i32Add,
    op.tee(limit),
    op.get(to),
    op.get(limit),
    op.get(to),
    op.i32LtU,
    op.select,
    op.set(limit),
  );
  code.push(op.v128Const(0), op.set(counters), op.loop);
  code.push(op.get(counters), op.get(from), op.v128Load(0), op.get(newline), op.eq8, op.sub8, op.set(counters));
  code.push(op.get(from), op.i32(16), op.i32Add, op.tee(from), op.get(limit), op.i32LtU, op.brIf(0), op.end);
  code.push(op.get(total), op.get(counters), op.widen8, op.widen16, op.add32x4, op.set(total), op.br(0));
  code.push(op.end, op.end);
  code.push(op.get(total), op.lane32(0), op.get(total), op.lane32(1), op.i32Add, op.get(total), op.lane32(2), op.i32Add);
  code.push(op.get(total), op.lane32(3), op.i32Add, op.end);
  return [
    ...vector(
      [
        [1, I32],
        [3, V128],
      ].map(([n, type]) => [...uleb(n), type]),
    ),
    ...code.flat(),
  ];
}

/** `scan`: see the module's comment. */
function assembleScan(): number[] {
  // Locals: 0 from, 1 to (parameters); i32: 2 count, 3 mask, 4 position, 5 value, 6 slot, 7 held;
  // v128: 8-15 the nibble tables (low and high per byte of the prefix), 16 nibble mask, 17 the
  // groups a position may be in, 18 the bytes at an offset.
  const [from, to, count, mask, position, value, slot, held] = [0, 1, 2, 3, 4, 5, 6, 7];
  const table = (k: number, high: boolean) => 8 + k * 2 + (high ? 1 : 0);
  const [low4, groups, bytes] = [16, 17, 18];
  const code: number[][] = [];
  for (let t = 0; t < 8; t++) code.push(op.i32(TABLES + t * 16), op.v128Load(0), op.set(8 + t));
  code.push(op.i32(0x0f), op.splat8, op.set(low4));
  code.push(op.block, op.loop, op.get(from), op.get(to), op.i32GeU, op.brIf(1));
  for (let k = 0; k < LENGTH; k++) {
    code.push(op.get(table(k, false)), op.get(from), op.v128Load(k), op.tee(bytes), op.get(low4), op.and, op.swizzle);
    code.push(op.get(table(k, true)), op.get(bytes), op.i32(4), op.shrU8, op.swizzle, op.and);
    if (k > 0) code.push(op.get(groups), op.and);
    code.push(op.set(groups));
  }
  code.push(op.get(groups), op.anyTrue, op.if);
  code.push(op.get(groups), op.v128Const(0), op.ne8, op.bitmask8, op.set(mask));
  code.push(op.block, op.loop, op.get(mask), op.i32Eqz, op.brIf(1));
  code.push(op.get(from), op.get(mask), op.i32Ctz, op.i32Add, op.tee(position), op.get(to), op.i32LtU, op.if);
  code.push(op.get(position), op.i32Load(0), op.i32(0x20202020), op.i32Or, op.set(value));
  code.push(op.get(value), op.i32(GOLDEN | 0), op.i32Mul, op.i32(24), op.i32ShrU, op.set(slot));
  code.push(op.block, op.loop);
  code.push(op.get(slot), op.i32(2), op.i32Shl, op.i32Load(HASH), op.tee(held), op.i32Eqz, op.brIf(1));
  code.push(op.get(held), op.get(value), op.i32Eq, op.if);
  code.push(op.get(count), op.i32(2), op.i32Shl, op.get(position), op.i32Store(OUTPUT));
  code.push(op.get(count), op.i32(1), op.i32Add, op.set(count), op.br(2), op.end);
  code.push(op.get(slot), op.i32(1), op.i32Add, op.i32(HASH_SLOTS - 1), op.i32And, op.set(slot), op.br(0));
  code.push(op.end, op.end); // probe loop, probe block
  code.push(op.end); // if position < to
  code.push(op.get(mask), op.get(mask), op.i32(1), op.i32Sub, op.i32And, op.set(mask), op.br(0));
  code.push(op.end, op.end); // bit loop, bit block
  code.push(op.end); // if any
  code.push(op.get(from), op.i32(16), op.i32Add, op.set(from), op.br(0));
  code.push(op.end, op.end); // block loop, block
  code.push(op.get(count), op.end);
  return [
    ...vector(
      [
        [6, I32],
        [11, V128],
      ].map(([n, type]) => [...uleb(n), type]),
    ),
    ...code.flat(),
  ];
}
