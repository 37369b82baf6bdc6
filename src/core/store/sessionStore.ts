/**
 * One session's retained copies, in one SQLite file (sql.js) per session.
 *
 * The database lives in memory and is written out whole, atomically, after every change; a copy
 * is returned to the caller only once it is durable. IDs are looked up only in this session.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Database } from 'sql.js';
import { RecallError, describeError } from '../errors';
import { newOutputId, newSessionId, isOutputIdShape, isSessionIdShape } from '../ids';
import { DEFAULT_LIMITS } from '../limits';
import { PAGE_CONTEXT, pageFromWindow, validatePageRequest } from '../pager';
import { compileSearch, searchBytes } from '../search';
import { capBytes } from '../capture/headTailBuffer';
import { toBuffer } from '../preview';
import type { OpenReport, OutputInfo, ReadResult, RecallStore, RetainMeta, RetainResult, SearchOptions, SearchResult } from '../types';
import { atomicWriteFile } from './atomicWrite';
import { CHUNK_BYTES, decodeChunk, encodeChunks } from './chunks';
import { openDatabase, sessionFile } from './sessionFile';
import { loadSqlJs } from './sqljs';
import { applyPragmas, queryRows } from './schema';

export interface OpenStoreOptions {
  /** Folder that holds the session files. Created if missing. */
  dir: string;
  /** Resume this session (or create it under this id). Omit to start a new session. */
  sessionId?: string;
  /** Retained bytes before the oldest copies are evicted (default 64 MiB). */
  quotaBytes?: number;
  /** Largest copy (default 8 MiB); larger content keeps head and tail around a gap. */
  copyBytes?: number;
  /** @internal recorded in a fork's file. */
  forkedFrom?: string;
}

interface OutputRow {
  id: string;
  tool: string | null;
  title: string | null;
  created_at: number;
  total_bytes: number;
  complete: number;
  dropped_bytes: number;
  gap_offset: number | null;
  chunk_bytes: number;
  evicted: number;
  extra: string | null;
}

const CHUNK_CACHE_ENTRIES = 8;

export async function openStore(options: OpenStoreOptions): Promise<SessionStore> {
  const copyBytes = options.copyBytes ?? DEFAULT_LIMITS.copyBytes;
  const quotaBytes = options.quotaBytes ?? DEFAULT_LIMITS.sessionQuotaBytes;
  if (typeof options.dir !== 'string' || options.dir.length === 0) throw new RecallError('INVALID_ARGUMENT', 'openStore needs a "dir" folder for session files.');
  if (!Number.isInteger(copyBytes) || copyBytes < 4096) throw new RecallError('INVALID_ARGUMENT', `copyBytes must be an integer of at least 4096; got ${copyBytes}.`);
  if (!Number.isInteger(quotaBytes) || quotaBytes < copyBytes) throw new RecallError('INVALID_ARGUMENT', `quotaBytes must be an integer of at least copyBytes (${copyBytes}); got ${quotaBytes}.`);
  if (options.sessionId !== undefined && !isSessionIdShape(options.sessionId)) {
    throw new RecallError('INVALID_ARGUMENT', `"${options.sessionId}" is not a session id (letters, digits, "_" and "-", at most 64).`);
  }
  const sessionId = options.sessionId ?? newSessionId();
  const file = sessionFile(options.dir, sessionId);
  try {
    await fs.mkdir(options.dir, { recursive: true });
    const opened = await openDatabase(file, sessionId, options.forkedFrom);
    const store = new SessionStore(sessionId, file, opened.db, quotaBytes, copyBytes, opened.report, opened.resumed);
    if (!opened.resumed) await store.flush();
    return store;
  } catch (error) {
    if (error instanceof RecallError) throw error;
    throw new RecallError('STORE_UNAVAILABLE', `The session store at ${file} cannot be used (${describeError(error)}); outputs cannot be retained until that is fixed.`);
  }
}

export class SessionStore implements RecallStore {
  private closed: 'open' | 'closed' | 'deleted' = 'open';
  private readonly cache = new Map<string, Buffer>();
  private nextSeq: number;
  /** The latest durable write, and the one not yet started that new changes can join. */
  private writeChain: Promise<void> = Promise.resolve();
  private pendingWrite: Promise<void> | undefined;
  /** Retains and removals, one at a time (see retain). */
  private changes: Promise<unknown> = Promise.resolve();

  /** @internal use openStore */
  constructor(
    readonly sessionId: string,
    readonly file: string,
    private db: Database,
    readonly quotaBytes: number,
    readonly copyBytes: number,
    /** What happened on open (a file moved aside), for the caller to show. */
    readonly openReport: OpenReport,
    /** Whether an existing session was resumed. */
    readonly resumed: boolean,
  ) {
    const [row] = queryRows<{ seq: number | null }>(db, 'SELECT max(seq) AS seq FROM outputs');
    this.nextSeq = (row?.seq ?? 0) + 1;
  }

  /**
   * Retains a copy and resolves once it is durable. Changes are serialised: when a write fails,
   * the in-memory database is put back to what the file holds, so neither the new copy nor the
   * evictions it caused survive a failed save.
   */
  async retain(content: string | Uint8Array, meta: RetainMeta = {}): Promise<RetainResult> {
    this.ensureOpen();
    return this.serializedChange(() => this.retainNow(content, meta));
  }

  private async retainNow(content: string | Uint8Array, meta: RetainMeta): Promise<RetainResult> {
    if (typeof content !== 'string' && !(content instanceof Uint8Array)) {
      throw new RecallError('INVALID_ARGUMENT', 'retain() takes a string or a Uint8Array.');
    }
    const capped = capBytes(typeof content === 'string' ? Buffer.from(content, 'utf8') : toBuffer(content), this.copyBytes);
    const chunks = await encodeChunks(capped.bytes);
    this.ensureOpen();
    const outputId = newOutputId();
    const complete = capped.complete && meta.complete !== false;
    const droppedBytes = capped.droppedBytes + Math.max(0, meta.droppedBytes ?? 0);
    const totalBytes = capped.bytes.length;

    this.transaction(() => {
      this.evictFor(totalBytes);
      this.db.run(
        `INSERT INTO outputs (id, seq, tool, title, created_at, total_bytes, complete, dropped_bytes, gap_offset, chunk_bytes, extra)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [outputId, this.nextSeq++, meta.tool ?? null, meta.title ?? null, Date.now(), totalBytes, complete ? 1 : 0, droppedBytes,
          capped.gapOffset ?? meta.gapOffset ?? null, CHUNK_BYTES, meta.extra ? JSON.stringify(meta.extra) : null],
      );
      const insert = this.db.prepare('INSERT INTO chunks (output_id, idx, codec, data) VALUES (?, ?, ?, ?)');
      try {
        chunks.forEach((chunk, index) => insert.run([outputId, index, chunk.codec, chunk.data]));
      } finally {
        insert.free();
      }
    });

    try {
      await this.flush();
    } catch (error) {
      if (this.closed === 'open') await this.restoreFromFile(outputId);
      throw new RecallError(
        'STORE_UNAVAILABLE',
        `The output could not be saved to the session file ${this.file} (${describeError(error)}), so it was not retained and cannot be read back. Only the preview is available.`,
      );
    }
    return { outputId, totalBytes, complete, droppedBytes };
  }

  async read(outputId: string, offset = 0, maxBytes: number = DEFAULT_LIMITS.pageBytes): Promise<ReadResult> {
    const row = this.lookup(outputId);
    const pageBytes = validatePageRequest(outputId, offset, maxBytes, row.total_bytes);
    const request = { outputId, offset, maxBytes: pageBytes, totalBytes: row.total_bytes, complete: row.complete === 1 };
    if (offset === row.total_bytes) return pageFromWindow(request, new Uint8Array(0), offset);
    const windowStart = Math.max(0, offset - PAGE_CONTEXT);
    const windowEnd = Math.min(row.total_bytes, offset + pageBytes + PAGE_CONTEXT);
    return pageFromWindow(request, this.bytes(row, windowStart, windowEnd, true), windowStart);
  }

  async search(outputId: string, pattern: string, options: SearchOptions = {}): Promise<SearchResult> {
    const row = this.lookup(outputId);
    const compiled = compileSearch(outputId, pattern, options);
    const found = searchBytes(this.bytes(row, 0, row.total_bytes, false), compiled);
    return { ...found, totalBytes: row.total_bytes, complete: row.complete === 1 };
  }

  /** The whole copy (at most the copy cap), e.g. to open it in an editor or save it as a file. */
  async readAll(outputId: string): Promise<Buffer> {
    const row = this.lookup(outputId);
    return this.bytes(row, 0, row.total_bytes, false);
  }

  async info(outputId: string): Promise<OutputInfo> {
    return toInfo(this.lookup(outputId, { allowEvicted: true }));
  }

  /** Every copy of this session, newest first (evicted ones included, flagged). */
  async list(): Promise<OutputInfo[]> {
    this.ensureOpen();
    return queryRows<OutputRow>(this.db, 'SELECT * FROM outputs ORDER BY seq DESC').map(toInfo);
  }

  async stats(): Promise<{ outputs: number; retainedBytes: number; evicted: number }> {
    this.ensureOpen();
    const [row] = queryRows<{ outputs: number; bytes: number | null; evicted: number }>(
      this.db,
      'SELECT sum(evicted = 0) AS outputs, sum(CASE WHEN evicted = 0 THEN total_bytes END) AS bytes, sum(evicted) AS evicted FROM outputs',
    );
    return { outputs: row?.outputs ?? 0, retainedBytes: row?.bytes ?? 0, evicted: row?.evicted ?? 0 };
  }

  /** Removes one copy; its ID stops resolving. */
  async remove(outputId: string): Promise<void> {
    this.lookup(outputId, { allowEvicted: true });
    return this.serializedChange(async () => {
      this.transaction(() => this.removeOutput(outputId));
      await this.flush();
    });
  }

  private serializedChange<T>(change: () => Promise<T>): Promise<T> {
    const run = this.changes.then(change, change);
    this.changes = run.catch(() => undefined);
    return run;
  }

  /** After a failed write: reload the last durable state; if even that fails, drop the new copy. */
  private async restoreFromFile(failedOutputId: string): Promise<void> {
    try {
      const SQL = await loadSqlJs();
      const restored = new SQL.Database(await fs.readFile(this.file));
      applyPragmas(restored);
      this.db.close();
      this.db = restored;
      this.cache.clear();
    } catch {
      this.transaction(() => this.removeOutput(failedOutputId));
    }
  }

  /** A new session in the same folder that shares no copies with this one. */
  fork(): Promise<SessionStore> {
    this.ensureOpen();
    return openStore({ dir: path.dirname(this.file), quotaBytes: this.quotaBytes, copyBytes: this.copyBytes, forkedFrom: this.sessionId });
  }

  /** Deletes the session file; this store is closed and its IDs resolve nowhere. */
  async delete(): Promise<void> {
    if (this.closed === 'deleted') return;
    await this.settleWrites();
    if (this.closed === 'open') this.db.close();
    this.closed = 'deleted';
    this.cache.clear();
    await fs.rm(this.file, { force: true });
  }

  async close(): Promise<void> {
    if (this.closed !== 'open') return;
    await this.settleWrites();
    this.closed = 'closed';
    this.cache.clear();
    this.db.close();
  }

  /**
   * Writes the database out durably. Calls that arrive while a write runs share the next write, so a
   * burst of retains costs two writes, not one per retain.
   */
  flush(): Promise<void> {
    this.ensureOpen();
    if (this.pendingWrite) return this.pendingWrite;
    const write = this.writeChain.catch(() => undefined).then(() => {
      this.pendingWrite = undefined;
      this.ensureOpen();
      this.compactIfWasteful();
      const data = this.db.export();
      applyPragmas(this.db);
      return atomicWriteFile(this.file, data);
    });
    this.pendingWrite = write;
    this.writeChain = write;
    return write;
  }

  private async settleWrites(): Promise<void> {
    await this.writeChain.catch(() => undefined);
  }

  private lookup(outputId: string, { allowEvicted = false } = {}): OutputRow {
    this.ensureOpen();
    if (typeof outputId !== 'string' || outputId.length === 0) {
      throw new RecallError('INVALID_ARGUMENT', 'outputId must be the string ID from a tool result, for example "out_0123456789abcdef01234567".');
    }
    const [row] = isOutputIdShape(outputId) ? queryRows<OutputRow>(this.db, 'SELECT * FROM outputs WHERE id = ?', [outputId]) : [];
    if (!row) {
      throw new RecallError(
        'NOT_FOUND',
        `No retained output "${outputId}" in this session. IDs resolve only in the session that made them (not in another window's session, a fork, or a deleted session). Copy the outputId exactly from the tool result; if it is gone, the output must be produced again.`,
      );
    }
    if (row.evicted && !allowEvicted) {
      throw new RecallError(
        'EVICTED',
        `Output "${outputId}" (${row.total_bytes} bytes) was evicted to keep this session within its ${Math.round(this.quotaBytes / 1048576)} MiB quota; its content is gone. Produce the output again if you need it.`,
      );
    }
    return row;
  }

  /** Bytes [from, to) of a copy, fetched chunk by chunk. */
  private bytes(row: OutputRow, from: number, to: number, cache: boolean): Buffer {
    if (to <= from) return Buffer.alloc(0);
    const first = Math.floor(from / row.chunk_bytes);
    const last = Math.floor((to - 1) / row.chunk_bytes);
    const parts: Buffer[] = [];
    const missing: number[] = [];
    for (let index = first; index <= last; index++) if (!this.cache.has(`${row.id}:${index}`)) missing.push(index);
    const fetched = new Map<number, Buffer>();
    if (missing.length > 0) {
      const rows = queryRows<{ idx: number; codec: number; data: Uint8Array }>(
        this.db,
        'SELECT idx, codec, data FROM chunks WHERE output_id = ? AND idx BETWEEN ? AND ?',
        [row.id, missing[0], missing[missing.length - 1]],
      );
      for (const chunk of rows) {
        try {
          fetched.set(chunk.idx, decodeChunk(chunk.codec, chunk.data));
        } catch (error) {
          throw new RecallError('STORE_UNAVAILABLE', `Chunk ${chunk.idx} of output "${row.id}" is damaged in the session file (${describeError(error)}); that part cannot be read.`);
        }
      }
    }
    for (let index = first; index <= last; index++) {
      const key = `${row.id}:${index}`;
      const chunk = this.cache.get(key) ?? fetched.get(index);
      if (!chunk) throw new RecallError('STORE_UNAVAILABLE', `Chunk ${index} of output "${row.id}" is missing from the session file; that part cannot be read.`);
      if (cache) this.remember(key, chunk);
      parts.push(chunk);
    }
    const joined = parts.length === 1 ? parts[0] : Buffer.concat(parts);
    const base = first * row.chunk_bytes;
    return joined.subarray(from - base, to - base);
  }

  private remember(key: string, chunk: Buffer): void {
    this.cache.delete(key);
    this.cache.set(key, chunk);
    if (this.cache.size > CHUNK_CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
  }

  /** Evicts the oldest live copies until `incoming` more bytes fit the quota. */
  private evictFor(incoming: number): void {
    const live = queryRows<{ id: string; total_bytes: number }>(this.db, 'SELECT id, total_bytes FROM outputs WHERE evicted = 0 ORDER BY seq');
    let used = live.reduce((sum, row) => sum + row.total_bytes, 0);
    for (const row of live) {
      if (used + incoming <= this.quotaBytes) break;
      this.db.run('DELETE FROM chunks WHERE output_id = ?', [row.id]);
      this.db.run('UPDATE outputs SET evicted = 1 WHERE id = ?', [row.id]);
      used -= row.total_bytes;
    }
    this.cache.clear();
  }

  private removeOutput(outputId: string): void {
    this.db.run('DELETE FROM chunks WHERE output_id = ?', [outputId]);
    this.db.run('DELETE FROM outputs WHERE id = ?', [outputId]);
    for (const key of [...this.cache.keys()]) if (key.startsWith(`${outputId}:`)) this.cache.delete(key);
  }

  /** Evicted and removed copies leave free pages that every durable write would carry along. */
  private compactIfWasteful(): void {
    const [free] = queryRows<{ freelist_count: number }>(this.db, 'PRAGMA freelist_count');
    const [pages] = queryRows<{ page_count: number }>(this.db, 'PRAGMA page_count');
    if (free && pages && free.freelist_count > 256 && free.freelist_count * 3 > pages.page_count) this.db.exec('VACUUM');
  }

  private transaction(work: () => void): void {
    this.db.exec('BEGIN');
    try {
      work();
      this.db.exec('COMMIT');
    } catch (error) {
      this.db.exec('ROLLBACK');
      throw error;
    }
  }

  private ensureOpen(): void {
    if (this.closed !== 'open') {
      throw new RecallError('STORE_CLOSED', `Session ${this.sessionId} is ${this.closed}; its outputs can no longer be read. Use the current session.`);
    }
  }
}

function toInfo(row: OutputRow): OutputInfo {
  return {
    outputId: row.id,
    tool: row.tool ?? undefined,
    title: row.title ?? undefined,
    createdAt: row.created_at,
    totalBytes: row.total_bytes,
    complete: row.complete === 1,
    droppedBytes: row.dropped_bytes,
    gapOffset: row.gap_offset ?? undefined,
    evicted: row.evicted === 1,
    extra: row.extra ? (JSON.parse(row.extra) as Record<string, unknown>) : undefined,
  };
}
