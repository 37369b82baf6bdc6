/**
 * A session's append-only journal, beside its database: `<session>.sqlite.journal`, plus rotated
 * `<session>.sqlite.journal.<n>` files that a checkpoint has not yet made redundant.
 *
 * A retained copy is durable once its record is appended and fsync'd; the database file is
 * rewritten later, in the background (a checkpoint), and only then are the journal records dropped.
 *
 * Record layout (little endian):
 *   magic "TORJ" (4) | version (1) | header length (4) | header JSON | content length (4) | content | CRC32 of header+content (4)
 *
 * The header's `op`: `retain` (the copy is the content), `remove` and `annotate` (no content). A new
 * op keeps version 1: a reader that predates it skips the record as it would a damaged one (the
 * file is reported and kept aside, the records after it replay), which is all a new version would
 * get from it too, and records of the ops it knows stay readable to it.
 *
 * Damage does not end a file's replay: the reader skips to the next record that checks out (see
 * resync) and reports each range it skipped, so one damaged record loses only itself.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { syncDirectory } from './atomicWrite';
import { journalFiles, moveAside, readSessionFile, rotatedJournals } from './sessionFiles';
import type { NotableDigest } from '../types';

const MAGIC = Buffer.from('TORJ', 'latin1');
const VERSION = 1;
const PREFIX_BYTES = MAGIC.length + 1 + 4;

export interface RetainRecord {
  op: 'retain';
  outputId: string;
  seq: number;
  createdAt: number;
  totalBytes: number;
  complete: boolean;
  droppedBytes: number;
  gapOffset: number | null;
  meta: { tool?: string; title?: string; extra?: Record<string, unknown>; notable?: NotableDigest };
}

export interface RemoveRecord {
  op: 'remove';
  outputId: string;
}

/**
 * Fields merged into an output's `extra` (shallow). No content. A reader older than this record
 * rejects its op, as it would a damaged record: its replay of that file stops there (the file is
 * reported and kept aside), so it never misreads one.
 */
export interface AnnotateRecord {
  op: 'annotate';
  outputId: string;
  extra: Record<string, unknown>;
}

export type JournalHeader = RetainRecord | RemoveRecord | AnnotateRecord;

export interface JournalEntry {
  header: JournalHeader;
  content: Buffer;
}

// ---------------------------------------------------------------------------------------------
// CRC32 (IEEE). zlib.crc32 exists from Node 22.2; otherwise slicing-by-8 tables (exact, ~1 GB/s).

type Crc32 = (data: Uint8Array, value?: number) => number;
const nativeCrc32 = (zlib as unknown as { crc32?: Crc32 }).crc32;

const TABLES: Uint32Array[] = (() => {
  const tables = Array.from({ length: 8 }, () => new Uint32Array(256));
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    tables[0][n] = c >>> 0;
  }
  for (let n = 0; n < 256; n++) {
    for (let t = 1; t < 8; t++) tables[t][n] = (tables[t - 1][n] >>> 8) ^ tables[0][tables[t - 1][n] & 0xff];
  }
  return tables;
})();

function jsCrc32(data: Uint8Array, value = 0): number {
  const [t0, t1, t2, t3, t4, t5, t6, t7] = TABLES;
  let crc = ~value >>> 0;
  let i = 0;
  const end8 = data.length - (data.length % 8);
  for (; i < end8; i += 8) {
    const a = (data[i] | (data[i + 1] << 8) | (data[i + 2] << 16) | (data[i + 3] << 24)) ^ crc;
    crc =
      t7[a & 0xff] ^
      t6[(a >>> 8) & 0xff] ^
      t5[(a >>> 16) & 0xff] ^
      t4[a >>> 24] ^
      t3[data[i + 4]] ^
      t2[data[i + 5]] ^
      t1[data[i + 6]] ^
      t0[data[i + 7]];
  }
  for (; i < data.length; i++) crc = t0[(crc ^ data[i]) & 0xff] ^ (crc >>> 8);
  return ~crc >>> 0;
}

export function crc32(data: Uint8Array, value = 0): number {
  return nativeCrc32 ? nativeCrc32(data, value) >>> 0 : jsCrc32(data, value);
}

/** @internal exported for tests: the table implementation, whatever the Node version. */
export const crc32Portable = jsCrc32;

// ---------------------------------------------------------------------------------------------
// Encoding

/** The record as buffers for one writev: no copy of the content. */
export function encodeRecord(header: JournalHeader, content: Uint8Array = new Uint8Array(0)): Buffer[] {
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const prefix = Buffer.alloc(PREFIX_BYTES);
  MAGIC.copy(prefix, 0);
  prefix.writeUInt8(VERSION, 4);
  prefix.writeUInt32LE(headerBytes.length, 5);
  const contentLength = Buffer.alloc(4);
  contentLength.writeUInt32LE(content.length, 0);
  const crc = Buffer.alloc(4);
  crc.writeUInt32LE(crc32(content, crc32(headerBytes)), 0);
  return [prefix, headerBytes, contentLength, Buffer.from(content.buffer, content.byteOffset, content.byteLength), crc];
}

/** A range of a journal file that was not replayed: a damaged record, bytes between records, a torn tail. */
export interface SkippedBytes {
  offset: number;
  bytes: number;
}

export interface ParsedJournal {
  entries: JournalEntry[];
  /** The ranges not replayed, in file order; empty when the file is whole. */
  skipped: SkippedBytes[];
  /** Their total: 0 when the file is whole. */
  bytesIgnored: number;
  /** The highest retain seq among the entries, or `afterSeq` if higher: the floor for the next file. */
  lastSeq: number;
}

/**
 * Parses every record that checks out. Where one does not (short, damaged, of another version or op),
 * the bytes up to the next one that does are skipped and reported, and parsing goes on from there.
 * `afterSeq`: the highest retain seq of the files replayed before this one (see resync).
 */
export function parseJournal(data: Buffer, afterSeq = 0): ParsedJournal {
  const parsed: ParsedJournal = { entries: [], skipped: [], bytesIgnored: 0, lastSeq: afterSeq };
  const budget = { bytes: RESYNC_CRC_FILES * data.length + RESYNC_CRC_SLACK };
  let at = 0;
  while (at < data.length) {
    let record = parseRecord(data, at);
    if (!record) {
      const found = resync(data, at, parsed.lastSeq, budget);
      const to = found?.at ?? data.length;
      parsed.skipped.push({ offset: at, bytes: to - at });
      parsed.bytesIgnored += to - at;
      if (!found?.record) break;
      record = found.record;
    }
    parsed.entries.push(record.entry);
    const { header } = record.entry;
    if (header.op === 'retain') parsed.lastSeq = Math.max(parsed.lastSeq, header.seq);
    at = record.next;
  }
  return parsed;
}

export interface LeftJournals {
  /** Records of every journal left on disk, oldest file first. */
  entries: JournalEntry[];
  /** Damaged files, renamed aside (kept for the user): the bytes not replayed, and where they were. */
  torn: { path: string; bytesIgnored: number; skipped: SkippedBytes[] }[];
  /** Whether any journal was found. */
  found: boolean;
  /** The number the next rotation gets. */
  nextRotation: number;
  /** Sizes of the rotated journals still on disk, by rotation number, and of the current one. */
  rotatedBytes: Map<number, number>;
  currentBytes: number;
}

/** Reads the journals a session left behind (rotated ones by number, then the current one). */
export async function readLeftJournals(sessionFile: string): Promise<LeftJournals> {
  const rotated = await rotatedJournals(sessionFile);
  const paths = await journalFiles(sessionFile);
  const left: LeftJournals = {
    entries: [],
    torn: [],
    found: paths.length > 0,
    nextRotation: (rotated.at(-1)?.n ?? 0) + 1,
    rotatedBytes: new Map(),
    currentBytes: 0,
  };
  let lastSeq = 0;
  for (const journalPath of paths) {
    // Not fs.readFile: a FIFO in a journal's place would wedge the open (NotRegularFile, reported).
    const data = (await readSessionFile(journalPath)) ?? Buffer.alloc(0);
    const parsed = parseJournal(data, lastSeq);
    lastSeq = parsed.lastSeq;
    left.entries.push(...parsed.entries);
    if (parsed.bytesIgnored > 0) {
      const { bytesIgnored, skipped } = parsed;
      left.torn.push({ path: await moveAside(journalPath, 'torn'), bytesIgnored, skipped });
      continue;
    }
    const n = rotated.find((each) => each.path === journalPath)?.n;
    if (n === undefined) left.currentBytes = data.length;
    else left.rotatedBytes.set(n, data.length);
  }
  return left;
}

/** The log line for a journal kept aside: what was not replayed, and where (the first ranges). */
export function journalDamageText(torn: LeftJournals['torn'][number]): string {
  const where = torn.skipped
    .slice(0, 5)
    .map((range) => `${range.bytes} at byte ${range.offset}`)
    .join(', ');
  const more = torn.skipped.length > 5 ? ` and ${torn.skipped.length - 5} more ranges` : '';
  return (
    `the session journal held damaged or incomplete records (a crash while saving, or damage): ${torn.bytesIgnored} bytes ` +
    `not replayed (${where}${more}), the records around them replayed; kept the journal as ${torn.path}`
  );
}

const OPS = new Set<string>(['retain', 'remove', 'annotate'] satisfies JournalHeader['op'][]);

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Where a record's parts lie, from its prefix and length fields, when they fit in the data (nothing verified yet). */
interface Frame {
  headerStart: number;
  headerLength: number;
  contentStart: number;
  contentLength: number;
  /** Just past its CRC: where the next record starts. */
  next: number;
}

function frameAt(data: Buffer, at: number): Frame | undefined {
  if (data.length - at < PREFIX_BYTES) return undefined;
  if (!data.subarray(at, at + 4).equals(MAGIC) || data.readUInt8(at + 4) !== VERSION) return undefined;
  const headerLength = data.readUInt32LE(at + 5);
  const headerStart = at + PREFIX_BYTES;
  // A length pointing past the end (torn, or itself damaged) is no frame: never read beyond the data.
  if (data.length - headerStart < headerLength + 4) return undefined;
  const contentLength = data.readUInt32LE(headerStart + headerLength);
  const contentStart = headerStart + headerLength + 4;
  if (data.length - contentStart < contentLength + 4) return undefined;
  return { headerStart, headerLength, contentStart, contentLength, next: contentStart + contentLength + 4 };
}

/** The record in a frame, when its CRC holds and its header is one this reader knows, well formed. */
function verify(data: Buffer, frame: Frame): JournalEntry | undefined {
  const { headerStart, headerLength, contentStart, contentLength } = frame;
  const headerBytes = data.subarray(headerStart, headerStart + headerLength);
  const content = data.subarray(contentStart, contentStart + contentLength);
  const stored = data.readUInt32LE(contentStart + contentLength);
  if (crc32(content, crc32(headerBytes)) !== stored) return undefined;
  let header: JournalHeader;
  try {
    header = JSON.parse(headerBytes.toString('utf8')) as JournalHeader;
  } catch {
    return undefined;
  }
  if (!header || typeof header.outputId !== 'string' || !OPS.has(header.op)) return undefined;
  if (header.op === 'retain' && (!Number.isInteger(header.seq) || header.totalBytes !== contentLength)) return undefined;
  if (header.op === 'annotate' && (!isPlainObject(header.extra) || contentLength !== 0)) return undefined;
  return { header, content };
}

type Parsed = { entry: JournalEntry; next: number };

function parseRecord(data: Buffer, at: number): Parsed | undefined {
  const frame = frameAt(data, at);
  const entry = frame && verify(data, frame);
  return entry && frame && { entry, next: frame.next };
}

/**
 * Resync's CRC work over candidates found by scanning is bounded by this many times the file's size
 * (plus the slack): ordinary damage needs at most one (each candidate that checks out is consumed),
 * while bytes crafted as many overlapping frames would otherwise cost time quadratic in the size.
 * Past it the rest of the file is skipped, as a torn tail.
 */
const RESYNC_CRC_FILES = 2;
const RESYNC_CRC_SLACK = 64 * 1024;

/**
 * Where replay resumes after the bytes at `from`, which are no record: `at`, and the record there (none
 * when the damage runs to the end of the file); undefined when no record follows.
 *
 * A record counts only if its frame fits in the file and its CRC and header check out, so bytes that
 * merely look like a header are never replayed. First the damaged record's own frame is tried: when
 * its lengths are intact (damage in its header or content), the next record begins right after it
 * and nothing inside it is looked at. Otherwise its lengths may be what is damaged, and the bytes are
 * scanned for the next magic. A scan can meet whole records that are not this journal's own, inside a
 * copy's content (an output that printed a journal): a retain found so must carry a seq above every
 * retain replayed before it, as the journal's own records do (seqs only grow), so an earlier record
 * copied there never comes back out of order (a copy removed since, say).
 */
function resync(data: Buffer, from: number, afterSeq: number, budget: { bytes: number }): { at: number; record?: Parsed } | undefined {
  const follows = (record: Parsed): boolean => record.entry.header.op !== 'retain' || record.entry.header.seq > afterSeq;
  const own = frameAt(data, from);
  if (own) {
    if (own.next === data.length) return { at: own.next };
    const next = parseRecord(data, own.next);
    if (next && follows(next)) return { at: own.next, record: next };
  }
  for (let at = data.indexOf(MAGIC, from + 1); at !== -1; at = data.indexOf(MAGIC, at + 1)) {
    const frame = frameAt(data, at);
    if (!frame) continue;
    budget.bytes -= frame.next - at;
    if (budget.bytes < 0) return undefined;
    const entry = verify(data, frame);
    const record = entry && { entry, next: frame.next };
    if (record && follows(record)) return { at, record };
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Appending

/**
 * The current journal, opened in append mode on first use. An append that fails is cut back off
 * (so later records never follow a torn one); if even that fails the file is abandoned and the next
 * append starts a new one after rotating it away.
 */
export class JournalWriter {
  private handle: fs.FileHandle | undefined;
  /** The current file holds bytes that could not be cut off: rotate before appending again. */
  damaged = false;

  private identity: string | undefined;

  /** `size`: the file's length when it is not open yet (what a previous session left). */
  constructor(
    readonly path: string,
    private size = 0,
  ) {}

  private async stillLinked(): Promise<boolean> {
    const st = await fs.stat(this.path).catch(() => undefined);
    if (!st) return false;
    return this.identity === undefined || st.ino === 0 || `${st.dev}:${st.ino}` === this.identity;
  }

  /** Appends one record durably (fdatasync; the folder is fsync'd when the file is new); returns where it starts. */
  async append(buffers: Buffer[]): Promise<number> {
    // The folder or the file may have been removed or replaced under an open handle: appending to an
    // unlinked file would look durable and be lost. Check the path still names the open file.
    if (this.handle && !(await this.stillLinked())) await this.close();
    const created = !this.handle;
    if (!this.handle) {
      const handle = await fs.open(this.path, 'a', 0o600);
      try {
        this.size = (await handle.stat()).size;
      } catch (error) {
        await handle.close().catch(() => undefined);
        throw error;
      }
      this.handle = handle;
      this.identity = await handle.stat().then(
        (st) => `${st.dev}:${st.ino}`,
        () => undefined,
      );
    }
    const handle = this.handle;
    const before = this.size;
    const total = buffers.reduce((sum, buffer) => sum + buffer.length, 0);
    try {
      let written = (await handle.writev(buffers)).bytesWritten;
      while (written < total) {
        // A short write (e.g. the file size limit): write the rest, which reports the error.
        const rest = Buffer.concat(buffers).subarray(written);
        const { bytesWritten } = await handle.write(rest);
        if (bytesWritten === 0) throw new Error('short write to the journal');
        written += bytesWritten;
      }
      await handle.datasync();
      if (created) await syncDirectory(path.dirname(this.path));
      this.size = before + total;
    } catch (error) {
      await this.cutBack(before);
      throw error;
    }
    return before;
  }

  /** Drops bytes appended after `size` (a failed append, or a record that could not be applied). */
  async cutBack(size: number): Promise<void> {
    if (!this.handle) return;
    try {
      await this.handle?.truncate(size);
      await this.handle?.datasync();
      this.size = size;
    } catch {
      this.damaged = true;
      await this.close();
    }
  }

  /** The file's length: records not yet moved aside by a rotation. */
  get bytes(): number {
    return this.size;
  }

  /**
   * Closes the file and renames it to `target` (a rotation); new records start a new file.
   * Returns the bytes moved, or undefined when there was no file (nothing appended since).
   */
  async moveTo(target: string): Promise<number | undefined> {
    await this.close();
    // The file's own length: a damaged one holds more than was acknowledged.
    const moved = (await fs.stat(this.path).catch(() => undefined))?.size ?? this.size;
    try {
      await fs.rename(this.path, target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      this.size = 0;
      return undefined;
    }
    this.size = 0;
    this.damaged = false;
    return moved;
  }

  async close(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close().catch(() => undefined);
  }
}
