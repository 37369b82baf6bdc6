/**
 * One session's retained copies: the queries. The session is a small index database (sql.js, in
 * memory) beside content segments read on demand (segments.ts) and its journal; how changes become
 * durable (journal first, then a background checkpoint) is the checkpointer's (checkpointer.ts).
 * Opening replays the journal over the index. IDs are looked up only in this session.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Database } from 'sql.js';
import { RecallError, clipEcho, describeError } from '../errors';
import { newOutputId, isOutputIdShape } from '../ids';
import { capBytes, toBuffer } from '../bytes';
import type { OpenReport, RecallStore, RetainMeta, RetainResult, StoreStats } from '../types';
import { ChunkReader } from './chunkReader';
import { SessionReads, recordedLines, type CopyEngines } from './rowReads';
import { Checkpointer } from './checkpointer';
import { readLeftJournals, type LeftJournals, type RetainRecord } from './journal';
import { openDatabase } from './database';
import { forgetSummary } from './copySummaries';
import { SegmentCache, placedChunks } from './segments';
import { inMemory, type PendingContent } from './pendingContent';
import { deleteSessionFiles, sessionFile } from './sessionFiles';
import { checkStoreOptions, type OpenStoreOptions } from './storeOptions';
import { inTransaction } from './schema';
import { replayIndex, replaySteps } from './replayRule';
import { annotateRow, checkAnnotation, evictFor, insertOutputRow, lastSeq, outputStats, type OutputRow } from './outputRows';

/** Buffers their maker hands over to retain (no one else holds them), so it need not copy them: see handOver. */
const HANDED_OVER = new WeakSet<Uint8Array>();

/** Marks `bytes` as handed over to the store: the caller will neither change nor reuse them (the store worker's joined parts). */
export function handOver(bytes: Uint8Array): Uint8Array {
  HANDED_OVER.add(bytes);
  return bytes;
}

/** Opens (or resumes, or creates) a session in this thread; `engines`: what it uses of the rooms above it. */
export async function openSessionStore(options: OpenStoreOptions, engines: CopyEngines): Promise<SessionStore> {
  const { sessionId, quotaBytes, copyBytes, journalLimitBytes } = checkStoreOptions(options);
  const file = sessionFile(options.dir, sessionId);
  try {
    await fs.mkdir(options.dir, { recursive: true });
    const opened = await openDatabase(file, sessionId, options.forkedFrom, options.migration);
    const left = await readLeftJournals(file);
    const store = new SessionStore(
      sessionId,
      file,
      opened.db,
      { quotaBytes, copyBytes, journalLimitBytes, checkpoints: options.checkpoints ?? 'auto' },
      opened.report,
      opened.resumed,
      left,
      engines,
    );
    const replayed = store.replayJournals(left);
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

export class SessionStore extends SessionReads implements RecallStore {
  private closed: 'open' | 'closed' | 'deleted' = 'open';
  private readonly chunks = new ChunkReader((outputId, first, last) => placedChunks(this.db, this.segments, outputId, first, last));
  readonly segments: SegmentCache;
  private nextSeq: number;
  private readonly durability: Checkpointer;
  /** Retains begun and not yet settled (see retain). */
  private retaining = 0;
  /** close() or delete() has begun: changes already queued finish, new ones are refused. */
  private closing = false;
  readonly quotaBytes: number;
  readonly copyBytes: number;
  private readonly checkpoints: 'auto' | 'manual';

  /** @internal use openSessionStore */
  constructor(
    readonly sessionId: string,
    readonly file: string,
    private db: Database,
    limits: { quotaBytes: number; copyBytes: number; journalLimitBytes: number; checkpoints: 'auto' | 'manual' },
    /** What happened on open (a file moved aside), for the caller to show. */
    readonly openReport: OpenReport,
    /** Whether an existing session was resumed. */
    readonly resumed: boolean,
    left: LeftJournals,
    protected readonly engines: CopyEngines,
  ) {
    super();
    this.quotaBytes = limits.quotaBytes;
    this.copyBytes = limits.copyBytes;
    this.checkpoints = limits.checkpoints;
    this.nextSeq = lastSeq(this.db) + 1;
    this.segments = new SegmentCache(file);
    this.durability = new Checkpointer(
      file,
      {
        database: () => this.index(),
        segments: this.segments,
        isOpen: () => this.closed === 'open',
        lastSeq: () => this.nextSeq - 1,
      },
      { mode: limits.checkpoints, journalLimitBytes: limits.journalLimitBytes },
      left,
    );
  }

  get journalLimitBytes(): number {
    return this.durability.journalLimitBytes;
  }

  /**
   * @internal (openSessionStore) Applies the journals a previous run left over the index, oldest first, by
   * the replay rule (replayRule.ts, shared with the read-only view). Inserted retains evict for the
   * quota as a new one would, and their content waits for the next checkpoint. Damaged or torn bytes
   * were skipped (the records after them replay); such a file was kept aside and is reported.
   * Returns whether there were journals.
   */
  replayJournals(left: LeftJournals): boolean {
    for (const step of replaySteps(left.entries, replayIndex(this.db))) {
      switch (step.op) {
        case 'remove':
          inTransaction(this.db, () => this.removeOutput(step.outputId));
          this.durability.drop(step.outputId);
          break;
        case 'annotate':
          annotateRow(this.db, step.outputId, step.extra);
          break;
        case 'content':
          this.durability.hold(step.outputId, inMemory(step.content));
          break;
        case 'insert':
          this.applyRetain(step.record, inMemory(step.content));
          // Never hand out a seq a journal used: the next retain follows the highest replayed.
          this.nextSeq = Math.max(this.nextSeq, step.record.seq + 1);
          break;
      }
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
    // Counted from here: between its reservation and its turn a retain is in no queue close() can wait on.
    this.retaining++;
    try {
      const release = await this.durability.reserve(Math.min(this.copyBytes, byteLength(content)));
      try {
        return await this.durability.change(() => this.retainNow(content, meta));
      } finally {
        release();
      }
    } finally {
      this.retaining--;
    }
  }

  private async retainNow(content: string | Uint8Array, meta: RetainMeta): Promise<RetainResult> {
    if (typeof content !== 'string' && !(content instanceof Uint8Array)) {
      throw new RecallError('INVALID_ARGUMENT', 'retain() takes a string or a Uint8Array.');
    }
    const capped = capBytes(typeof content === 'string' ? Buffer.from(content, 'utf8') : toBuffer(content), this.copyBytes);
    // Own it: capBytes may return a view of the caller's buffer, which could change while the journal writes it.
    const bytes = typeof content === 'string' || HANDED_OVER.has(content) ? capped.bytes : Buffer.from(capped.bytes);
    this.ensureOpen();
    const outputId = meta.outputId ?? newOutputId();
    if (meta.outputId !== undefined && (!isOutputIdShape(meta.outputId) || this.has(meta.outputId))) {
      throw new RecallError(
        'INVALID_ARGUMENT',
        `"${clipEcho(String(meta.outputId))}" is not a new outputId; make one with newOutputId() or omit it.`,
      );
    }
    const complete = capped.complete && meta.complete !== false;
    const droppedBytes = capped.droppedBytes + Math.max(0, meta.droppedBytes ?? 0);
    const totalBytes = capped.bytes.length;
    // Every copy has its line facts (the inspector numbers lines from them): its maker's when they fit it, else one count here.
    const lines = recordedLines(meta.extra?.lines, totalBytes) ?? this.engines.countLines(bytes);
    const record: RetainRecord = {
      op: 'retain',
      outputId,
      seq: this.nextSeq,
      createdAt: Date.now(),
      totalBytes,
      complete,
      droppedBytes,
      gapOffset: capped.gapOffset ?? meta.gapOffset ?? null,
      meta: { tool: meta.tool, title: meta.title, extra: { ...meta.extra, lines }, notable: meta.notable },
    };
    try {
      await this.durability.record(record, bytes, (journalled) => {
        this.ensureOpen();
        this.applyRetain(record, journalled!);
        this.nextSeq = record.seq + 1;
      });
    } catch (error) {
      throw error instanceof RecallError
        ? error
        : new RecallError(
            'STORE_UNAVAILABLE',
            `The output could not be stored (${describeError(error)}), so it was not retained. Only the preview is available.`,
          );
    }
    this.durability.schedule();
    return { outputId, totalBytes, complete, droppedBytes };
  }

  /** Inserts a journalled copy's row (its content waits for the next checkpoint), evicting for the quota. */
  private applyRetain(record: RetainRecord, content: PendingContent): void {
    let evicted: string[] = [];
    inTransaction(this.db, () => {
      evicted = evictFor(this.db, this.quotaBytes, record.totalBytes);
      this.chunks.clear();
      insertOutputRow(this.db, record);
    });
    for (const id of evicted) this.durability.drop(id);
    this.durability.hold(record.outputId, content);
  }

  async stats(): Promise<StoreStats> {
    this.ensureOpen();
    const failure = this.durability.lastCheckpointError;
    return {
      ...outputStats(this.db),
      journalBytes: this.durability.journalBytes,
      journalLimitBytes: this.durability.journalLimitBytes,
      ...(failure ? { lastCheckpointError: failure } : {}),
    };
  }

  /**
   * Removes one copy; its ID stops resolving. The removal is journalled (durable) before it is
   * applied, then a checkpoint drops the content from the files on disk.
   */
  async remove(outputId: string): Promise<void> {
    this.lookup(outputId, true);
    this.ensureNotClosing();
    await this.durability.change(async () => {
      this.ensureOpen();
      if (!this.has(outputId)) return;
      await this.durability.record({ op: 'remove', outputId }, undefined, () => {
        this.ensureOpen();
        inTransaction(this.db, () => this.removeOutput(outputId));
        this.durability.drop(outputId);
      });
    });
    // Durable already; a failed checkpoint is surfaced in stats().lastCheckpointError and retried later.
    if (this.closed === 'open') await this.flush().catch(() => undefined);
  }

  /**
   * Merges `extra` into a copy's extra (see RecallStore.annotate). Journalled (durable) before it is
   * applied; the session file catches up at the next background checkpoint.
   */
  async annotate(outputId: string, extra: Record<string, unknown>): Promise<void> {
    this.ensureOpen();
    const fields = checkAnnotation(extra);
    this.lookup(outputId);
    this.ensureNotClosing();
    await this.durability.change(async () => {
      // Removed or evicted by a change queued before this one: the same error as a call after it.
      this.lookup(outputId);
      await this.durability.record({ op: 'annotate', outputId, extra: fields }, undefined, () => {
        this.ensureOpen();
        annotateRow(this.db, outputId, fields);
      });
    });
    this.durability.schedule();
  }

  /** A new session in the same folder that shares no copies with this one. */
  async fork(): Promise<SessionStore> {
    this.ensureOpen();
    await this.flush().catch(() => undefined);
    return openSessionStore(
      {
        dir: path.dirname(this.file),
        quotaBytes: this.quotaBytes,
        copyBytes: this.copyBytes,
        journalLimitBytes: this.journalLimitBytes,
        forkedFrom: this.sessionId,
        checkpoints: this.checkpoints,
      },
      this.engines,
    );
  }

  /** Deletes the session's files (index, segments, journals); this store is closed and its IDs resolve nowhere. */
  async delete(): Promise<void> {
    if (this.closed === 'deleted') return;
    this.closing = true;
    this.durability.stop();
    await this.durability.idle();
    await this.durability.shutdown();
    if (this.closed === 'open') this.db.close();
    this.closed = 'deleted';
    this.chunks.clear();
    this.segments.clear();
    await deleteSessionFiles(this.file);
  }

  /** Checkpoints (a failure leaves the journal, which replays on the next open) and closes. */
  async close(): Promise<void> {
    if (this.closed !== 'open') return;
    this.closing = true;
    await this.durability.idle();
    if (this.closed !== 'open') return;
    // A last checkpoint only when something changed since the last one or a retain is on its way: an
    // idle session closes at once (an MCP server asked to stop), its files already what a checkpoint writes.
    if (this.durability.journalBytes > 0 || this.retaining > 0) await this.flush().catch(() => undefined);
    await this.durability.shutdown();
    if (this.closed !== 'open') return;
    this.closed = 'closed';
    this.chunks.clear();
    this.segments.clear();
    this.db.close();
  }

  /**
   * Checkpoints now (see Checkpointer.flush): rejects with the write's error, which stats() also
   * reports until a checkpoint succeeds; journalled copies stay durable.
   */
  flush(): Promise<void> {
    this.ensureOpen();
    return this.durability.flush();
  }

  protected override async reading<T>(read: () => T): Promise<T> {
    return read();
  }

  /** Bytes [from, to) of a copy: pending content from memory, the rest from its segments. */
  protected override bytes(row: OutputRow, from: number, to: number, cache: boolean): Buffer {
    if (to <= from) return Buffer.alloc(0);
    const pending = this.durability.pending(row.id);
    if (pending) return pending.read(from, to);
    return this.chunks.bytes(row, from, to, cache);
  }

  private removeOutput(outputId: string): void {
    this.db.run('DELETE FROM placements WHERE output_id = ?', [outputId]);
    forgetSummary(this.db, outputId);
    this.db.run('DELETE FROM outputs WHERE id = ?', [outputId]);
    this.chunks.forget(outputId);
  }

  protected override index(): Database {
    this.ensureOpen();
    return this.db;
  }

  private ensureNotClosing(): void {
    if (this.closing)
      throw new RecallError(
        'STORE_CLOSED',
        `Session ${this.sessionId} is closing; nothing more can be retained, removed or annotated in it. Use the current session.`,
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

const byteLength = (content: unknown): number =>
  typeof content === 'string' ? Buffer.byteLength(content, 'utf8') : content instanceof Uint8Array ? content.length : 0;
