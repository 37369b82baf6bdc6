/**
 * Reads a content segment's chunks straight from its file. A segment is a SQLite database (written
 * by segmentBuild.ts, or by sql.js before it) of one rowid table, `chunks (output_id, idx, codec, data)`
 * (chunk rows, then their masks' rows); opening it in
 * sql.js means reading the whole file (about a MiB) into sql.js's file system and then SQLite's page
 * cache, which cost a cold page read 1.3-1.6 ms and left several MiB of garbage per segment. Here
 * the table's b-tree is walked once by positioned reads of its pages (a few KiB) into a map of where
 * each chunk's bytes are, and a chunk is then one read of its overflow pages. The format is SQLite's
 * own (https://www.sqlite.org/fileformat2.html); anything that does not check out is an error, which
 * the caller reports as a damaged segment. segmentBuild.ts writes them.
 */
import { readSync } from 'node:fs';

/** Where one chunk's bytes are in the segment file. */
export interface ChunkLocation {
  codec: number;
  /** The cell's payload: its size, where its local part starts in the file and how long it is, its first overflow page (0: none). */
  payloadBytes: number;
  localAt: number;
  localBytes: number;
  overflow: number;
  /** The data column inside the payload. */
  dataAt: number;
  dataBytes: number;
}

/** A segment's layout and its tables' roots; each table is mapped when first read (chunksOf, masksOf), and kept here. */
export interface SegmentMap {
  pageSize: number;
  /** Bytes of a page SQLite uses (the page size less the reserved bytes at its end). */
  usable: number;
  pages: number;
  /** The root pages of the `chunks` table and of the `grams` table (0: none, a segment written before masks). */
  roots: { chunks: number; grams: number };
  /** By `${outputId}:${idx}`. */
  chunks?: Map<string, ChunkLocation>;
  /** Rows of the `grams` table (segmentBuild.ts GRAMS_SCHEMA), by copy: each holds the masks of chunks `first` on. */
  masks?: Map<string, MaskRow[]>;
}

export interface MaskRow {
  first: number;
  row: ChunkLocation;
}

/** What walking a table needs of a map. */
type Layout = Pick<SegmentMap, 'pageSize' | 'usable' | 'pages'>;

const MAGIC = 'SQLite format 3\0';
/** B-tree page types: a table's leaf and interior pages. */
export const LEAF_TABLE = 0x0d;
export const INTERIOR_TABLE = 0x05;
/** Of a payload, enough to hold a chunk row's record header, output_id, idx and codec. */
const ROW_HEAD_BYTES = 256;

class Malformed extends Error {}
const check: (condition: unknown, what: string) => asserts condition = (condition, what) => {
  if (!condition) throw new Malformed(`not a valid segment: ${what}`);
};

/**
 * Pages read are copied out of this buffer, reused across reads: a fresh buffer per read costs page
 * faults (on the bench machine 2 ms for a MiB). It grows to the largest run read (about a chunk).
 */
let scratch = Buffer.allocUnsafe(0);

/** Bytes [at, at + length) of the file, valid until the next read; short only at its end, which is an error here. */
function readAt(fd: number, at: number, length: number): Buffer {
  if (scratch.length < length) scratch = Buffer.allocUnsafe(Math.max(length, 2 * scratch.length));
  return fill(fd, scratch.subarray(0, length), at);
}

/** Reads the file's bytes from `at` into all of `bytes`. */
function fill(fd: number, bytes: Buffer, at: number): Buffer {
  let done = 0;
  while (done < bytes.length) {
    const got = readSync(fd, bytes, done, bytes.length - done, at + done);
    check(got > 0, `it ends at ${at + done} bytes, inside a page`);
    done += got;
  }
  return bytes;
}

/** A SQLite varint at `at`: its value and its length. */
function varint(bytes: Uint8Array, at: number): [number, number] {
  let value = 0;
  for (let i = 0; i < 9; i++) {
    check(at + i < bytes.length, 'a varint runs past its page');
    const byte = bytes[at + i];
    if (i === 8) return [value * 256 + byte, 9];
    value = value * 128 + (byte & 0x7f);
    if (byte < 0x80) return [value, i + 1];
  }
  throw new Malformed('unreachable');
}

/** Walks the table b-tree rooted at `root`, calling `cell` with each leaf cell's payload location. */
function walkTable(fd: number, map: Layout, root: number, cell: (location: PayloadLocation) => void): void {
  const seen = new Set<number>();
  const pending = [root];
  // Children of an interior page that are consecutive pages (as buildSegment lays them out) are read in one go.
  const preloaded = new Map<number, Buffer>();
  while (pending.length > 0) {
    const n = pending.pop() as number;
    check(Number.isInteger(n) && n >= 1 && n <= map.pages && !seen.has(n), `page ${n} is out of range or met twice`);
    seen.add(n);
    // A copy: reading a cell's spilled head (below) reuses the scratch buffer.
    const page = preloaded.get(n) ?? Buffer.from(readAt(fd, (n - 1) * map.pageSize, map.pageSize));
    preloaded.delete(n);
    const base = n === 1 ? 100 : 0;
    const type = page[base];
    check(type === LEAF_TABLE || type === INTERIOR_TABLE, `page ${n} is not a table b-tree page (type ${type})`);
    const cells = page.readUInt16BE(base + 3);
    const pointers = base + (type === LEAF_TABLE ? 8 : 12);
    check(pointers + 2 * cells <= map.usable, `page ${n} claims ${cells} cells`);
    if (type === INTERIOR_TABLE) pending.push(page.readUInt32BE(base + 8));
    for (let i = cells - 1; i >= 0; i--) {
      const at = page.readUInt16BE(pointers + 2 * i);
      check(at >= pointers + 2 * cells && at < map.usable, `a cell of page ${n} is outside it`);
      if (type === INTERIOR_TABLE) {
        check(at + 4 <= map.usable, `a cell of page ${n} is outside it`);
        pending.push(page.readUInt32BE(at));
        continue;
      }
      const [payloadBytes, sizeLength] = varint(page, at);
      const [, rowidLength] = varint(page, at + sizeLength);
      const localStart = at + sizeLength + rowidLength;
      const localBytes = localPayload(map.usable, payloadBytes);
      check(localStart + localBytes + (localBytes < payloadBytes ? 4 : 0) <= map.usable, `a cell of page ${n} runs past it`);
      const overflow = localBytes < payloadBytes ? page.readUInt32BE(localStart + localBytes) : 0;
      cell({
        payloadBytes,
        localAt: (n - 1) * map.pageSize + localStart,
        localBytes,
        overflow,
        local: page.subarray(localStart, localStart + localBytes),
      });
    }
    if (type === INTERIOR_TABLE) preload(fd, map, pending.slice(pending.length - cells - 1), seen, preloaded);
  }
}

/** At most this many pages are read in one go (1 MiB of 4 KiB pages). */
const PRELOAD_PAGES = 256;

/** Reads `children` (an interior page's) in one read when they are consecutive pages in range, none met yet. */
function preload(fd: number, map: Layout, children: number[], seen: Set<number>, into: Map<number, Buffer>): void {
  const low = Math.min(...children);
  const count = children.length;
  if (count < 2 || count > PRELOAD_PAGES || !Number.isInteger(low) || low < 1 || low + count - 1 > map.pages) return;
  const distinct = new Set(children);
  if (distinct.size !== count || Math.max(...children) !== low + count - 1 || children.some((n) => seen.has(n))) return;
  const run = Buffer.from(readAt(fd, (low - 1) * map.pageSize, count * map.pageSize));
  for (let i = 0; i < count; i++) into.set(low + i, run.subarray(i * map.pageSize, (i + 1) * map.pageSize));
}

interface PayloadLocation {
  payloadBytes: number;
  localAt: number;
  localBytes: number;
  overflow: number;
  /** The local part's bytes, as read with its page. */
  local: Buffer;
}

/** How much of a table leaf cell's payload is on the page itself (the rest is in overflow pages). */
export function localPayload(usable: number, payloadBytes: number): number {
  const max = usable - 35;
  if (payloadBytes <= max) return payloadBytes;
  const min = Math.floor(((usable - 12) * 32) / 255) - 23;
  const spill = min + ((payloadBytes - min) % (usable - 4));
  return spill <= max ? spill : min;
}

/**
 * Bytes [from, from + length) of a cell's payload: from its local part, then its overflow pages.
 * Pages of one payload are written one after another, so they are read in one go and their links
 * checked; where a link points elsewhere the walk goes on from there.
 */
export function readPayload(fd: number, map: Layout, cell: Omit<PayloadLocation, 'local'>, from: number, length: number): Buffer {
  check(from >= 0 && from + length <= cell.payloadBytes, 'a column runs past its row');
  const out = Buffer.allocUnsafe(length);
  let done = 0;
  if (from < cell.localBytes) {
    const take = Math.min(length, cell.localBytes - from);
    const local = readAt(fd, cell.localAt + from, take);
    local.copy(out, 0);
    done = take;
  }
  const perPage = map.usable - 4;
  let page = cell.overflow;
  let pageStart = cell.localBytes; // the payload offset page `page` holds from
  const seen = new Set<number>();
  while (done < length) {
    check(page >= 1 && page <= map.pages, `an overflow page number ${page} is out of range`);
    const wantedEnd = from + length;
    // Pages from `page` on, assumed consecutive, up to the last one the range needs.
    const count = Math.min(map.pages - page + 1, Math.max(1, Math.ceil((wantedEnd - pageStart) / perPage)));
    const run = readAt(fd, (page - 1) * map.pageSize, count * map.pageSize);
    let i = 0;
    for (; i < count && done < length; i++) {
      // A chain that comes back to a page would repeat its bytes: damage, not data.
      check(!seen.has(page + i), `the overflow chain comes back to page ${page + i}`);
      seen.add(page + i);
      const at = i * map.pageSize;
      const next = run.readUInt32BE(at);
      const pageEnd = pageStart + perPage;
      const copyFrom = Math.max(from + done, pageStart);
      if (copyFrom < pageEnd) {
        const take = Math.min(pageEnd, wantedEnd) - copyFrom;
        run.copy(out, done, at + 4 + (copyFrom - pageStart), at + 4 + (copyFrom - pageStart) + take);
        done += take;
      }
      pageStart = pageEnd;
      if (done >= length) break;
      check(next !== 0, 'an overflow chain ends before its payload');
      if (next !== page + i + 1) {
        page = next;
        break;
      }
    }
    if (i === count) page += count;
  }
  return out;
}

/** The column values' serial types and offsets in a record, read from its first bytes. */
function recordColumns(head: Uint8Array): { type: number; at: number; bytes: number }[] {
  const [headerBytes, length] = varint(head, 0);
  check(headerBytes <= head.length, 'a record header is too long');
  const columns: { type: number; at: number; bytes: number }[] = [];
  let at = headerBytes;
  for (let offset = length; offset < headerBytes;) {
    const [type, typeLength] = varint(head, offset);
    offset += typeLength;
    const bytes = type >= 12 ? Math.floor((type - 12) / 2) : ([0, 1, 2, 3, 4, 6, 8, 8, 0, 0][type] ?? -1);
    check(bytes >= 0, `serial type ${type}`);
    columns.push({ type, at, bytes });
    at += bytes;
  }
  return columns;
}

/** An integer column (serial types 1-6, 8 and 9). */
function integer(head: Uint8Array, column: { type: number; at: number; bytes: number }): number {
  if (column.type === 8 || column.type === 9) return column.type - 8;
  check(column.type >= 1 && column.type <= 6 && column.at + column.bytes <= head.length, 'an integer column');
  let value = head[column.at] >= 0x80 ? -1 : 0;
  for (let i = 0; i < column.bytes; i++) value = value * 256 + head[column.at + i];
  return value;
}

function text(head: Uint8Array, column: { type: number; at: number; bytes: number }): string {
  check(column.type >= 13 && column.type % 2 === 1 && column.at + column.bytes <= head.length, 'a text column');
  return Buffer.from(head.buffer, head.byteOffset + column.at, column.bytes).toString('utf8');
}

/** The first bytes of a payload (its record header and leading columns). */
const rowHead = (fd: number, map: Layout, cell: PayloadLocation): Buffer =>
  cell.local.length >= Math.min(cell.payloadBytes, ROW_HEAD_BYTES)
    ? cell.local
    : readPayload(fd, map, cell, 0, Math.min(cell.payloadBytes, ROW_HEAD_BYTES));

/**
 * Reads a segment's header and finds its tables. Their rows are mapped when first read: a search that
 * reads only masks walked every chunk row too (a leaf page each, 0.5 ms a segment), for 209 segments
 * most of a fresh search's time before its first match.
 */
export function mapSegment(fd: number, fileBytes: number): SegmentMap {
  check(fileBytes >= 100, `${fileBytes} bytes`);
  const header = readAt(fd, 0, 100);
  check(header.toString('latin1', 0, 16) === MAGIC, 'no SQLite header');
  const sizeField = header.readUInt16BE(16);
  const pageSize = sizeField === 1 ? 65536 : sizeField;
  check(pageSize >= 512 && (pageSize & (pageSize - 1)) === 0, `page size ${pageSize}`);
  check(header.readUInt32BE(56) === 1, 'text not in UTF-8');
  // The database's size is the page count in its header when that is valid (its writer's change
  // counter is the one the count is valid for), as SQLite reads it: bytes after those pages were
  // appended to the file, not written with it, and no page number may point into them.
  const filePages = Math.floor(fileBytes / pageSize);
  const counted = header.readUInt32BE(28);
  const pages = counted > 0 && header.readUInt32BE(24) === header.readUInt32BE(92) ? counted : filePages;
  check(pages <= filePages, `its header counts ${pages} pages, the file holds ${filePages}`);
  const layout = { pageSize, usable: pageSize - header[20], pages };
  check(layout.usable >= 480, 'reserved bytes');
  let root = 0;
  let gramsRoot = 0;
  walkTable(fd, layout, 1, (cell) => {
    const head = rowHead(fd, layout, cell);
    const [type, name, , rootpage] = recordColumns(head);
    if (!type || !name || !rootpage || text(head, type) !== 'table') return;
    if (text(head, name) === 'chunks') root = integer(head, rootpage);
    if (text(head, name) === 'grams') gramsRoot = integer(head, rootpage);
  });
  check(root > 1, 'no chunks table');
  check(gramsRoot !== root, 'the grams table is the chunks table');
  return { ...layout, roots: { chunks: root, grams: gramsRoot > 1 ? gramsRoot : 0 } };
}

/** Where each chunk of the segment is, by `${outputId}:${idx}` (mapped once per map). */
export function chunksOf(fd: number, map: SegmentMap): Map<string, ChunkLocation> {
  if (map.chunks) return map.chunks;
  const chunks = new Map<string, ChunkLocation>();
  walkTable(fd, map, map.roots.chunks, (cell) => {
    const head = rowHead(fd, map, cell);
    const columns = recordColumns(head);
    check(columns.length === 4, `a row of ${columns.length} columns`);
    const [outputId, idx, codec, data] = columns;
    check(data.type >= 12 && data.type % 2 === 0 && data.at + data.bytes <= cell.payloadBytes, 'a data column');
    const location = {
      payloadBytes: cell.payloadBytes,
      localAt: cell.localAt,
      localBytes: cell.localBytes,
      overflow: cell.overflow,
      codec: integer(head, codec),
      dataAt: data.at,
      dataBytes: data.bytes,
    };
    chunks.set(`${text(head, outputId)}:${integer(head, idx)}`, location);
  });
  return (map.chunks = chunks);
}

/** The rows of the segment's masks, by copy (mapped once per map; none in a segment written before masks). */
export function masksOf(fd: number, map: SegmentMap): Map<string, MaskRow[]> {
  if (map.masks) return map.masks;
  const masks = new Map<string, MaskRow[]>();
  if (map.roots.grams)
    walkTable(fd, map, map.roots.grams, (cell) => {
      const head = rowHead(fd, map, cell);
      const columns = recordColumns(head);
      check(columns.length === 3, `a grams row of ${columns.length} columns`);
      const [outputId, first, data] = columns;
      check(data.type >= 12 && data.type % 2 === 0 && data.at + data.bytes <= cell.payloadBytes, 'a masks column');
      const id = text(head, outputId);
      let rows = masks.get(id);
      if (!rows) masks.set(id, (rows = []));
      const { payloadBytes, localAt, localBytes, overflow } = cell;
      rows.push({
        first: integer(head, first),
        row: { payloadBytes, localAt, localBytes, overflow, codec: 0, dataAt: data.at, dataBytes: data.bytes },
      });
    });
  return (map.masks = masks);
}

/** A mapped chunk's data column. */
export function readChunk(fd: number, map: SegmentMap, chunk: ChunkLocation): Buffer {
  return readPayload(fd, map, chunk, chunk.dataAt, chunk.dataBytes);
}

/**
 * The trigram masks of chunks [first, last] of `outputId` (undefined for one without), from its rows of
 * masks: the masks' size first, then for each row the masks wanted, in one read of its consecutive pages.
 */
export function readMasks(fd: number, map: SegmentMap, outputId: string, first: number, last: number): (Buffer | undefined)[] {
  const masks = new Array<Buffer | undefined>(last - first + 1).fill(undefined);
  for (const { first: from, row } of masksOf(fd, map).get(outputId) ?? []) {
    check(row.dataBytes >= 4, 'a row of masks');
    const size = readPayload(fd, map, row, row.dataAt, 4).readUInt32BE(0);
    check(size > 0 && (row.dataBytes - 4) % size === 0, 'a row of masks');
    const count = (row.dataBytes - 4) / size;
    const low = Math.max(first, from);
    const high = Math.min(last, from + count - 1);
    if (high < low) continue;
    const bytes = readPayload(fd, map, row, row.dataAt + 4 + (low - from) * size, (high - low + 1) * size);
    for (let idx = low; idx <= high; idx++) masks[idx - first] = bytes.subarray((idx - low) * size, (idx - low + 1) * size);
  }
  return masks;
}
