/**
 * One session's retained copies, in one SQLite file (sql.js) per session plus its journal.
 *
 * The database lives in memory. A retained copy (or a removal) is first appended to the session's
 * journal and fsync'd: that is when retain() resolves, so its cost follows the new copy, not the
 * session. Checkpoints, in the background (and on flush, close, remove and fork), deflate the new
 * chunks, write the database out whole and atomically, and only then drop the journal records it
 * now holds. Opening replays the journal over the database. IDs are looked up only in this session.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Database } from 'sql.js';
import { RecallError, describeError } from '../errors';
import { newOutputId, newSessionId, isSessionIdShape } from '../ids';
import { DEFAULT_LIMITS } from '../limits';
import { PAGE_CONTEXT, pageFromWindow, validatePageRequest } from '../pager';
import { compileSearch, searchBytes } from '../search';
import { capBytes } from '../capture/headTailBuffer';
import { toBuffer } from '../preview';
import type { OpenReport, OutputInfo, ReadResult, RecallStore, RetainMeta, RetainResult, SearchOptions, SearchResult } from '../types';
import { atomicWriteFile } from './atomicWrite';
import { encodeChunks, type EncodedChunk } from './chunks';
import { ChunkReader } from './chunkReader';
import {
  JournalWriter,
  deleteSessionFiles,
  encodeRecord,
  journalFile,
  readLeftJournals,
  rotatedJournals,
  type JournalHeader,
  type RetainRecord,
} from './journal';
import { openDatabase, sessionFile } from './sessionFile';
import { applyPragmas, compactIfWasteful, inTransaction, queryRows } from './schema';
import { evictFor, insertOutputRow, lastSeq, lookupRow, outputStats, rawChunks, toInfo, type OutputRow } from './outputRows';

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
  /**
   * @internal 'manual' turns off background checkpoints (tests simulate a crash before one runs);
   * flush(), close(), remove() and fork() still checkpoint.
   */
  checkpoints?: 'auto' | 'manual';
}

export async function openStore(options: OpenStoreOptions): Promise<SessionStore> {
  const copyBytes = options.copyBytes ?? DEFAULT_LIMITS.copyBytes;
  const quotaBytes = options.quotaBytes ?? DEFAULT_LIMITS.sessionQuotaBytes;
  if (typeof options.dir !== 'string' || options.dir.length === 0)
    throw new RecallError('INVALID_ARGUMENT', 'openStore needs a "dir" folder for session files.');
  if (!Number.isInteger(copyBytes) || copyBytes < 4096)
    throw new RecallError('INVALID_ARGUMENT', `copyBytes must be an integer of at least 4096; got ${copyBytes}.`);
  if (!Number.isInteger(quotaBytes) || quotaBytes < copyBytes)
    throw new RecallError('INVALID_ARGUMENT', `quotaBytes must be an integer of at least copyBytes (${copyBytes}); got ${quotaBytes}.`);
  if (options.sessionId !== undefined && !isSessionIdShape(options.sessionId)) {
    throw new RecallError('INVALID_ARGUMENT', `"${options.sessionId}" is not a session id (letters, digits, "_" and "-", at most 64).`);
  }
  const sessionId = options.sessionId ?? newSessionId();
  const file = sessionFile(options.dir, sessionId);
  try {
    await fs.mkdir(options.dir, { recursive: true });
    const opened = await openDatabase(file, sessionId, options.forkedFrom);
    const store = new SessionStore(
      sessionId,
      file,
      opened.db,
      quotaBytes,
      copyBytes,
      opened.report,
      opened.resumed,
      options.checkpoints ?? 'auto',
    );
    const replayed = await store.replayJournals();
    if (!opened.resumed) await store.flush();
    // Replayed records are durable in the journal already: a failed checkpoint is retried later.
    else if (replayed) await store.flush().catch(() => undefined);
    return store;
  } catch (error) {
    if (error instanceof RecallError) throw error;
    throw new RecallError(
      'STORE_UNAVAILABLE',
      `The session store at ${file} cannot be used (${describeError(error)}); outputs cannot be retained until that is fixed.`,
    );
  }
}

export class SessionStore implements RecallStore {
  private closed: 'open' | 'closed' | 'deleted' = 'open';
  private readonly chunks = new ChunkReader(() => this.db);
  private nextSeq: number;
  /** The latest checkpoint, and the one not yet started that new changes can join. */
  private writeChain: Promise<void> = Promise.resolve();
  private pendingWrite: Promise<void> | undefined;
  /** Retains, removals and journal rotations, one at a time (see retain). */
  private changes: Promise<unknown> = Promise.resolve();
  private readonly journal: JournalWriter;
  /** The next rotated journal's number (`<file>.journal.<n>`). */
  private nextRotation = 1;
  /**
   * Copies journalled since the last checkpoint: their rows are in the database, their content only
   * here (and in the journal) until a checkpoint deflates it into chunk rows. Inserting 8 MiB of raw
   * chunks into sql.js costs 200-400 ms, far more than the journal append.
   */
  private readonly pendingContent = new Map<string, Buffer>();
  private checkpointTimer: NodeJS.Timeout | undefined;
  /** close() or delete() has begun: changes already queued finish, new ones are refused. */
  private closing = false;
  private persistError: Error | undefined;

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
    private readonly checkpoints: 'auto' | 'manual' = 'auto',
  ) {
    this.nextSeq = lastSeq(this.db) + 1;
    this.journal = new JournalWriter(journalFile(file));
  }

  /**
   * The last checkpoint's error, if the latest one failed (cleared by the next that succeeds).
   * Retained copies stay durable in the journal meanwhile; the database file is just behind.
   */
  get lastPersistError(): Error | undefined {
    return this.persistError;
  }

  /**
   * @internal (openStore) Applies the journal files over the database, oldest first: retains the
   * database does not hold yet, and removals. A damaged or torn tail ends that file's replay; the
   * file is kept aside and reported. Returns whether there were journal files.
   */
  async replayJournals(): Promise<boolean> {
    const left = await readLeftJournals(this.file);
    this.nextRotation = left.nextRotation;
    const applied = lastSeq(this.db);
    for (const { header, content } of left.entries) {
      if (header.op === 'remove') {
        inTransaction(this.db, () => this.removeOutput(header.outputId));
        this.pendingContent.delete(header.outputId);
        continue;
      }
      if (header.seq <= applied) continue;
      if (queryRows(this.db, 'SELECT 1 FROM outputs WHERE id = ?', [header.outputId]).length > 0) continue;
      this.applyRetain(header, content);
      this.nextSeq = Math.max(this.nextSeq, header.seq + 1);
    }
    if (left.torn.length > 0) (this.openReport.journalTruncated ??= []).push(...left.torn);
    return left.found;
  }

  /**
   * Retains a copy and resolves once it is durable (its journal record is fsync'd). Changes are
   * serialised; the record is written before the database changes, so when the write fails neither
   * the new copy nor the evictions it would cause happen.
   */
  async retain(content: string | Uint8Array, meta: RetainMeta = {}): Promise<RetainResult> {
    this.ensureOpen();
    this.ensureNotClosing();
    return this.serializedChange(() => this.retainNow(content, meta));
  }

  private async retainNow(content: string | Uint8Array, meta: RetainMeta): Promise<RetainResult> {
    if (typeof content !== 'string' && !(content instanceof Uint8Array)) {
      throw new RecallError('INVALID_ARGUMENT', 'retain() takes a string or a Uint8Array.');
    }
    const capped = capBytes(typeof content === 'string' ? Buffer.from(content, 'utf8') : toBuffer(content), this.copyBytes);
    // Kept in memory until the next checkpoint: own it (capBytes may return a view of the caller's buffer).
    const bytes = typeof content === 'string' ? capped.bytes : Buffer.from(capped.bytes);
    this.ensureOpen();
    const outputId = newOutputId();
    const complete = capped.complete && meta.complete !== false;
    const droppedBytes = capped.droppedBytes + Math.max(0, meta.droppedBytes ?? 0);
    const totalBytes = capped.bytes.length;
    const record: RetainRecord = {
      op: 'retain',
      outputId,
      seq: this.nextSeq,
      createdAt: Date.now(),
      totalBytes,
      complete,
      droppedBytes,
      gapOffset: capped.gapOffset ?? meta.gapOffset ?? null,
      meta: { tool: meta.tool, title: meta.title, extra: meta.extra },
    };
    const start = await this.appendRecord(record, bytes);
    try {
      this.ensureOpen();
      this.applyRetain(record, bytes);
      this.nextSeq = record.seq + 1;
    } catch (error) {
      // Not in the database: take the record back so a replay cannot bring it back either.
      await this.journal.cutBack(start);
      throw error instanceof RecallError
        ? error
        : new RecallError(
            'STORE_UNAVAILABLE',
            `The output could not be stored (${describeError(error)}), so it was not retained. Only the preview is available.`,
          );
    }
    this.scheduleCheckpoint();
    return { outputId, totalBytes, complete, droppedBytes };
  }

  /** Appends a record durably; a failure is STORE_UNAVAILABLE naming the errno, and nothing changed. */
  private async appendRecord(header: JournalHeader, content?: Uint8Array): Promise<number> {
    try {
      if (this.journal.damaged) await this.rotateJournal();
      return await this.journal.append(encodeRecord(header, content));
    } catch (error) {
      const what = header.op === 'retain' ? 'The output could not be saved' : `The removal of "${header.outputId}" could not be saved`;
      const outcome =
        header.op === 'retain'
          ? 'so it was not retained and cannot be read back. Only the preview is available.'
          : 'so the output was not removed.';
      throw new RecallError(
        'STORE_UNAVAILABLE',
        `${what} to the session journal ${this.journal.path} (${describeError(error)}), ${outcome}`,
      );
    }
  }

  /** Inserts a journalled copy's row (its content waits for the next checkpoint), evicting for the quota. */
  private applyRetain(record: RetainRecord, content: Buffer): void {
    let evicted: string[] = [];
    inTransaction(this.db, () => {
      evicted = evictFor(this.db, this.quotaBytes, record.totalBytes);
      this.chunks.clear();
      insertOutputRow(this.db, record);
    });
    for (const id of evicted) this.pendingContent.delete(id);
    this.pendingContent.set(record.outputId, content);
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
    return outputStats(this.db);
  }

  /**
   * Removes one copy; its ID stops resolving. The removal is journalled (durable) before it is
   * applied, then a checkpoint drops the content from the files on disk.
   */
  async remove(outputId: string): Promise<void> {
    this.lookup(outputId, { allowEvicted: true });
    this.ensureNotClosing();
    await this.serializedChange(async () => {
      this.ensureOpen();
      if (queryRows(this.db, 'SELECT 1 FROM outputs WHERE id = ?', [outputId]).length === 0) return;
      await this.appendRecord({ op: 'remove', outputId });
      this.ensureOpen();
      inTransaction(this.db, () => this.removeOutput(outputId));
      this.pendingContent.delete(outputId);
    });
    // Durable already; a failed checkpoint is surfaced in lastPersistError and retried later.
    if (this.closed === 'open') await this.flush().catch(() => undefined);
  }

  private serializedChange<T>(change: () => Promise<T>): Promise<T> {
    const run = this.changes.then(change, change);
    this.changes = run.catch(() => undefined);
    return run;
  }

  /** A new session in the same folder that shares no copies with this one. */
  async fork(): Promise<SessionStore> {
    this.ensureOpen();
    await this.flush().catch(() => undefined);
    return openStore({
      dir: path.dirname(this.file),
      quotaBytes: this.quotaBytes,
      copyBytes: this.copyBytes,
      forkedFrom: this.sessionId,
      checkpoints: this.checkpoints,
    });
  }

  /** Deletes the session file and its journals; this store is closed and its IDs resolve nowhere. */
  async delete(): Promise<void> {
    if (this.closed === 'deleted') return;
    this.closing = true;
    this.cancelCheckpoint();
    await this.changes.catch(() => undefined);
    await this.settleWrites();
    await this.journal.close();
    if (this.closed === 'open') this.db.close();
    this.closed = 'deleted';
    this.chunks.clear();
    await deleteSessionFiles(this.file);
  }

  /** Checkpoints (a failure leaves the journal, which replays on the next open) and closes. */
  async close(): Promise<void> {
    if (this.closed !== 'open') return;
    this.closing = true;
    await this.changes.catch(() => undefined);
    if (this.closed !== 'open') return;
    await this.flush().catch(() => undefined);
    this.cancelCheckpoint();
    await this.settleWrites();
    await this.journal.close();
    if (this.closed !== 'open') return;
    this.closed = 'closed';
    this.chunks.clear();
    this.db.close();
  }

  /**
   * Checkpoints: writes the database out durably, then drops the journal records it holds. Calls
   * that arrive while one runs share the next, so a burst of retains costs two checkpoints.
   * Rejects with the write's error (also kept in lastPersistError); journalled copies stay durable.
   */
  flush(): Promise<void> {
    this.ensureOpen();
    if (this.pendingWrite) return this.pendingWrite;
    const write = this.writeChain
      .catch(() => undefined)
      .then(async () => {
        this.pendingWrite = undefined;
        this.ensureOpen();
        try {
          await this.checkpointNow();
          this.persistError = undefined;
        } catch (error) {
          this.persistError = error instanceof Error ? error : new Error(String(error));
          throw error;
        }
      });
    this.pendingWrite = write;
    this.writeChain = write;
    return write;
  }

  private async checkpointNow(): Promise<void> {
    // 1. Rotate, between changes: every record in the rotated files is in the database from now on.
    const upTo = await this.serializedChange(() => this.rotateJournal());
    // 2. Deflate the pending copies into chunk rows (retains go on meanwhile). The export must hold
    //    the content of every row it holds, since replay skips records the database has: so from the
    //    check that nothing is pending to the export, nothing awaits. Retains that keep arriving are
    //    stored raw after a few rounds rather than deflated.
    for (let round = 0; ; round++) {
      await this.encodePending();
      this.ensureOpen();
      if (this.pendingContent.size === 0) break;
      if (round >= 2) {
        for (const [outputId, content] of [...this.pendingContent]) this.insertChunks(outputId, rawChunks(content));
        break;
      }
    }
    // 3. Write the database out.
    this.db.run("INSERT OR REPLACE INTO session (key, value) VALUES ('last_seq', ?)", [String(this.nextSeq - 1)]);
    compactIfWasteful(this.db);
    const data = this.db.export();
    applyPragmas(this.db);
    await atomicWriteFile(this.file, data);
    // 4. Only now are the rotated records redundant. (Should a removal fail, the next checkpoint retries;
    //    a leftover record is skipped on replay: its seq is at most the database's last_seq.)
    for (const rotated of await rotatedJournals(this.file)) {
      if (rotated.n <= upTo) await fs.rm(rotated.path, { force: true });
    }
  }

  /** Renames the current journal to `<file>.journal.<n>` (new records start a new file); returns n. */
  private async rotateJournal(): Promise<number> {
    await this.journal.close();
    const current = journalFile(this.file);
    const n = this.nextRotation;
    try {
      await fs.rename(current, `${current}.${n}`);
      this.nextRotation++;
      this.journal.damaged = false;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    return this.nextRotation - 1;
  }

  /** Deflates the pending copies (where it pays, as encodeChunks decides) into chunk rows. */
  private async encodePending(): Promise<void> {
    for (const [outputId, content] of [...this.pendingContent]) {
      const encoded = await encodeChunks(content);
      if (this.closed !== 'open') return;
      // Evicted or removed meanwhile: then it is no longer pending, and there is nothing to store.
      if (this.pendingContent.get(outputId) !== content) continue;
      this.insertChunks(outputId, encoded);
    }
  }

  private insertChunks(outputId: string, chunks: EncodedChunk[]): void {
    inTransaction(this.db, () => {
      const insert = this.db.prepare('INSERT INTO chunks (output_id, idx, codec, data) VALUES (?, ?, ?, ?)');
      try {
        chunks.forEach((chunk, index) => insert.run([outputId, index, chunk.codec, chunk.data]));
      } finally {
        insert.free();
      }
    });
    this.pendingContent.delete(outputId);
  }

  private scheduleCheckpoint(): void {
    if (this.checkpoints !== 'auto' || this.checkpointTimer) return;
    this.checkpointTimer = setTimeout(() => {
      this.checkpointTimer = undefined;
      if (this.closed === 'open') this.flush().catch(() => undefined);
    }, 0);
    this.checkpointTimer.unref?.();
  }

  private cancelCheckpoint(): void {
    if (this.checkpointTimer) clearTimeout(this.checkpointTimer);
    this.checkpointTimer = undefined;
  }

  private async settleWrites(): Promise<void> {
    await this.writeChain.catch(() => undefined);
  }

  /** Bytes [from, to) of a copy: pending content from memory, the rest from its chunk rows. */
  private bytes(row: OutputRow, from: number, to: number, cache: boolean): Buffer {
    if (to <= from) return Buffer.alloc(0);
    const pending = this.pendingContent.get(row.id);
    if (pending) return pending.subarray(from, to);
    return this.chunks.bytes(row, from, to, cache);
  }

  private lookup(outputId: string, { allowEvicted = false } = {}): OutputRow {
    this.ensureOpen();
    return lookupRow(this.db, outputId, this.quotaBytes, allowEvicted);
  }

  private removeOutput(outputId: string): void {
    this.db.run('DELETE FROM chunks WHERE output_id = ?', [outputId]);
    this.db.run('DELETE FROM outputs WHERE id = ?', [outputId]);
    this.chunks.forget(outputId);
  }

  private ensureNotClosing(): void {
    if (this.closing)
      throw new RecallError(
        'STORE_CLOSED',
        `Session ${this.sessionId} is closing; nothing more can be retained or removed in it. Use the current session.`,
      );
  }

  private ensureOpen(): void {
    if (this.closed !== 'open') {
      throw new RecallError(
        'STORE_CLOSED',
        `Session ${this.sessionId} is ${this.closed}; its outputs can no longer be read. Use the current session.`,
      );
    }
  }
}
