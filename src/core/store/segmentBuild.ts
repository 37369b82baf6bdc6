/**
 * Writes a content segment's file: a SQLite database of one table of chunk rows, built page by page
 * (not through sql.js, whose in-memory file grew by copies and whose export copied it again: most of
 * a checkpoint's time for incompressible output). Its format is SQLite's own
 * (https://www.sqlite.org/fileformat2.html); SQLite's integrity check passes on it
 * (test/unit/storeSegmentFile.test.ts), and segmentFile.ts reads it back.
 */
import { INTERIOR_TABLE, LEAF_TABLE, localPayload } from './segmentFile';

/**
 * The table of a segment written by buildSegment: no key, so the file is the table alone (a primary
 * key would need its index b-tree written too). Chunks are found by the map above, never by SQL.
 * Segments written before by sql.js had `PRIMARY KEY (output_id, idx)`; they read the same way.
 */
export const SEGMENT_SCHEMA =
  'CREATE TABLE chunks (output_id TEXT NOT NULL, idx INTEGER NOT NULL, codec INTEGER NOT NULL, data BLOB NOT NULL)';

/**
 * The trigram masks (chunkGrams.ts) of a segment's chunks, in a table of their own so that a release
 * before masks, which reads the `chunks` table only, reads the segment as before: a row per run of a
 * copy's chunks from `first_idx`, `masks` the size of one mask (u32 BE) then the masks in chunk order.
 * A run's masks are one row, so their pages are consecutive and read in one go.
 */
export const GRAMS_SCHEMA = 'CREATE TABLE grams (output_id TEXT NOT NULL, first_idx INTEGER NOT NULL, masks BLOB NOT NULL)';

/** One row of the grams table. */
export interface GramsRow {
  outputId: string;
  first: number;
  masks: Uint8Array;
}

/** One row of a segment. */
export interface SegmentRow {
  outputId: string;
  idx: number;
  codec: number;
  data: Uint8Array;
}

const PAGE_SIZE = 4096;
/** The SQLite version a segment's header names as its writer's (the sql.js this store uses). */
const WRITER_VERSION = 3_054_001;

/** A SQLite varint. */
function putVarint(value: number): Buffer {
  if (value < 0x80) return Buffer.from([value]);
  const bytes: number[] = [];
  for (let rest = value; rest > 0; rest = Math.floor(rest / 128)) bytes.unshift(rest % 128);
  return Buffer.from(bytes.map((byte, i) => (i < bytes.length - 1 ? byte | 0x80 : byte)));
}

/** An integer column: its serial type and bytes (0 and 1 take none). */
function putInteger(value: number): [number, Buffer] {
  if (value === 0 || value === 1) return [8 + value, Buffer.alloc(0)];
  for (const [type, bytes] of [
    [1, 1],
    [2, 2],
    [3, 3],
    [4, 4],
    [5, 6],
  ] as const) {
    const limit = 2 ** (8 * bytes - 1);
    if (value >= -limit && value < limit) {
      const out = Buffer.alloc(bytes);
      out.writeIntBE(value, 0, bytes);
      return [type, out];
    }
  }
  throw new RangeError(`integer ${value} out of range`);
}

/** A record (SQLite's row format) of text, integer and blob columns, as the buffers that make it up. */
function record(columns: (string | number | Uint8Array)[]): { parts: Uint8Array[]; bytes: number } {
  const types: Buffer[] = [];
  const bodies: Uint8Array[] = [];
  for (const column of columns) {
    if (typeof column === 'number') {
      const [type, body] = putInteger(column);
      types.push(putVarint(type));
      bodies.push(body);
    } else if (typeof column === 'string') {
      const body = Buffer.from(column, 'utf8');
      types.push(putVarint(body.length * 2 + 13));
      bodies.push(body);
    } else {
      types.push(putVarint(column.length * 2 + 12));
      bodies.push(column);
    }
  }
  const typesBytes = types.reduce((sum, type) => sum + type.length, 0);
  // The header's size counts its own varint, whose length depends on the size (1 byte below 128).
  let headerBytes = typesBytes + 1;
  if (putVarint(headerBytes).length > 1) headerBytes = typesBytes + putVarint(typesBytes + 2).length;
  const parts = [putVarint(headerBytes), ...types, ...bodies];
  return { parts, bytes: parts.reduce((sum, part) => sum + part.length, 0) };
}

/**
 * A leaf cell laid out. Its payload is the record's head (header, output_id, idx, codec) and the
 * chunk's bytes, kept apart so the chunk is copied once, into its pages.
 */
interface Cell {
  rowid: number;
  head: Buffer;
  data: Uint8Array;
  payloadBytes: number;
  local: number;
  onPage: number;
  overflowPages: number;
}

function leafCell(rowid: number, head: Buffer, data: Uint8Array): Cell {
  const payloadBytes = head.length + data.length;
  const local = localPayload(PAGE_SIZE, payloadBytes);
  const overflowPages = Math.ceil((payloadBytes - local) / (PAGE_SIZE - 4));
  const onPage = putVarint(payloadBytes).length + putVarint(rowid).length + local + (overflowPages > 0 ? 4 : 0);
  return { rowid, head, data, payloadBytes, local, onPage, overflowPages };
}

/** Copies a cell's payload bytes [from, to) into `target` at `at`. */
function copyPayload(cell: Cell, from: number, to: number, target: Buffer, at: number): void {
  const end = Math.min(to, cell.payloadBytes);
  const headEnd = cell.head.length;
  if (from < headEnd) {
    const n = Math.min(end, headEnd) - from;
    cell.head.copy(target, at, from, from + n);
    at += n;
    from += n;
  }
  if (from < end) target.set(cell.data.subarray(from - headEnd, end - headEnd), at);
}

/** Splits items into pages: each takes `header` bytes plus, per item, its size and a 2-byte pointer. */
function pack<T>(items: T[], size: (item: T) => number, header: number): T[][] {
  const pages: T[][] = [[]];
  let used = header;
  for (const item of items) {
    const need = size(item) + 2;
    if (used + need > PAGE_SIZE && pages[pages.length - 1].length > 0) {
      pages.push([]);
      used = header;
    }
    pages[pages.length - 1].push(item);
    used += need;
  }
  return pages;
}

/** Writes a b-tree page: its header at `base`, cell pointers after it, the cells from the page's end down. */
function writeBtreePage(page: Buffer, base: number, type: number, cells: Buffer[], rightChild?: number): void {
  const header = type === LEAF_TABLE ? 8 : 12;
  let content = PAGE_SIZE;
  page[base] = type;
  page.writeUInt16BE(cells.length, base + 3);
  cells.forEach((cell, i) => {
    content -= cell.length;
    cell.copy(page, content);
    page.writeUInt16BE(content, base + header + 2 * i);
  });
  page.writeUInt16BE(content, base + 5);
  if (rightChild !== undefined) page.writeUInt32BE(rightChild, base + 8);
}

type Node = { maxRowid: number; page: number };

/** A table's b-tree laid out: its cells, leaves and interior levels, and the numbers of its pages. */
interface TablePlan {
  cells: Cell[];
  leaves: Cell[][];
  levels: Node[][][];
  root: number;
  interiorNumbers: number[][];
  leafNumbers: number[];
  overflowStart: number[];
}

/** Lays out a table of `cells` from page `next` on (its root first); returns the plan and the next free page. */
function planTable(cells: Cell[], next: number): { plan: TablePlan; next: number } {
  // Levels from the leaves up, each a list of pages; a page is its cells (leaves) or children (interior).
  const leaves = pack(cells, (cell) => cell.onPage, 8);
  const levels: Node[][][] = [];
  let below: Node[] = leaves.map((leaf) => ({ maxRowid: leaf.length > 0 ? leaf[leaf.length - 1].rowid : 0, page: 0 }));
  while (below.length > 1) {
    // An interior page of n children holds n - 1 cells (child, key) and the last child in its header.
    const pages = pack(below, (child) => 4 + putVarint(child.maxRowid).length, 12);
    levels.push(pages);
    below = pages.map((children) => ({ maxRowid: children[children.length - 1].maxRowid, page: 0 }));
  }
  // Numbers: the root, then the interior levels top down, the leaves, the overflow pages.
  const root = next;
  const interiorNumbers = [...levels].reverse().map((pages) => pages.map(() => next++));
  const leafNumbers = leaves.map(() => next++);
  const overflowStart: number[] = [];
  for (const cell of cells) {
    overflowStart.push(cell.overflowPages > 0 ? next : 0);
    next += cell.overflowPages;
  }
  return { plan: { cells, leaves, levels, root, interiorNumbers, leafNumbers, overflowStart }, next };
}

/** Writes a planned table's pages into the file (`page(n)` is page n's bytes). */
function writeTable({ leaves, levels, interiorNumbers, leafNumbers, overflowStart }: TablePlan, page: (n: number) => Buffer): void {
  // Leaves, and each cell's overflow pages.
  let row = 0;
  leaves.forEach((leaf, l) => {
    const onPage = leaf.map((cell) => {
      const i = row++;
      const local = Buffer.allocUnsafe(cell.local);
      copyPayload(cell, 0, cell.local, local, 0);
      const parts = [putVarint(cell.payloadBytes), putVarint(cell.rowid), local];
      if (cell.overflowPages > 0) {
        const link = Buffer.alloc(4);
        link.writeUInt32BE(overflowStart[i]);
        parts.push(link);
        for (let k = 0; k < cell.overflowPages; k++) {
          const n = overflowStart[i] + k;
          if (k < cell.overflowPages - 1) page(n).writeUInt32BE(n + 1, 0);
          copyPayload(cell, cell.local + k * (PAGE_SIZE - 4), cell.local + (k + 1) * (PAGE_SIZE - 4), page(n), 4);
        }
      }
      return Buffer.concat(parts);
    });
    writeBtreePage(page(leafNumbers[l]), 0, LEAF_TABLE, onPage);
  });

  // Interior levels, bottom up: children are the level below's page numbers.
  let childNumbers = leafNumbers;
  let childMax = leaves.map((leaf) => (leaf.length > 0 ? leaf[leaf.length - 1].rowid : 0));
  levels.forEach((pages, level) => {
    const numbers = interiorNumbers[levels.length - 1 - level];
    let child = 0;
    const max: number[] = [];
    pages.forEach((children, p) => {
      const first = child;
      child += children.length;
      const cellsHere = children.slice(0, -1).map((_, k) => {
        const link = Buffer.alloc(4);
        link.writeUInt32BE(childNumbers[first + k]);
        return Buffer.concat([link, putVarint(childMax[first + k])]);
      });
      writeBtreePage(page(numbers[p]), 0, INTERIOR_TABLE, cellsHere, childNumbers[child - 1]);
      max.push(childMax[child - 1]);
    });
    childNumbers = numbers;
    childMax = max;
  });
}

/**
 * The bytes of a segment file holding `rows`, and `grams` when there are masks: a SQLite database
 * (format 4, 4 KiB pages, UTF-8) of the table SEGMENT_SCHEMA (and GRAMS_SCHEMA) whose b-trees are
 * built here bottom up, each row's overflow pages consecutive so that a chunk reads in one go. SQLite
 * reads it as any database (its integrity check passes: test/unit/storeSegmentFile.test.ts).
 */
export function buildSegment(rows: SegmentRow[], grams: GramsRow[] = []): Buffer {
  const cells = rows.map((row, i) => {
    const { parts } = record([row.outputId, row.idx, row.codec, row.data]);
    return leafCell(i + 1, Buffer.concat(parts.slice(0, -1)), row.data);
  });
  // Page 1 is sqlite_master; the chunks table from page 2, then the grams table.
  const chunks = planTable(cells, 2);
  let next = chunks.next;
  let masks: TablePlan | undefined;
  if (grams.length > 0) {
    const gramCells = grams.map((row, i) => {
      const { parts } = record([row.outputId, row.first, row.masks]);
      return leafCell(i + 1, Buffer.concat(parts.slice(0, -1)), row.masks);
    });
    ({ plan: masks, next } = planTable(gramCells, next));
  }
  const pageCount = next - 1;
  const file = Buffer.alloc(pageCount * PAGE_SIZE);
  const page = (n: number): Buffer => file.subarray((n - 1) * PAGE_SIZE, n * PAGE_SIZE);

  // Page 1: the header, then sqlite_master's rows.
  const head = page(1);
  head.write('SQLite format 3\0', 0, 'latin1');
  head.writeUInt16BE(PAGE_SIZE, 16);
  head.set([1, 1, 0, 64, 32, 32], 18);
  head.writeUInt32BE(1, 24); // file change counter
  head.writeUInt32BE(pageCount, 28);
  head.writeUInt32BE(1, 40); // schema cookie
  head.writeUInt32BE(4, 44); // schema format
  head.writeUInt32BE(1, 56); // UTF-8
  head.writeUInt32BE(1, 92); // valid for change counter 1
  head.writeUInt32BE(WRITER_VERSION, 96);
  const tables: [string, number, string][] = [['chunks', chunks.plan.root, SEGMENT_SCHEMA]];
  if (masks) tables.push(['grams', masks.root, GRAMS_SCHEMA]);
  const masterCells = tables.map(([name, root, schema], i) => {
    const master = record(['table', name, name, root, schema]);
    return Buffer.concat([putVarint(master.bytes), putVarint(i + 1), ...master.parts]);
  });
  writeBtreePage(head, 100, LEAF_TABLE, masterCells);

  writeTable(chunks.plan, page);
  if (masks) writeTable(masks, page);
  return file;
}
