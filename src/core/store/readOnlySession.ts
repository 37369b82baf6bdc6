/**
 * Another process's session (an MCP server's, while it runs or after it ended), read without its
 * lock and without writing a byte: every file is opened read-only, nothing is renamed, removed or
 * created, and the index lives only in this process's memory.
 *
 * The owner keeps writing meanwhile, so a view is taken in a way that can never be torn:
 *   1. read the session file (the index) whole (checkpoints replace it by an atomic rename, so the
 *      descriptor holds one complete version, old or new);
 *   2. read its journals, rotated ones then the current one, keeping the records whose CRCs check
 *      out (a record being appended is cut off where it is incomplete; damaged bytes are skipped);
 *   3. look again: if the session file was replaced or a journal rotated or removed meanwhile (a
 *      checkpoint ran), the records read may not continue the file read, so start over.
 * A view is the file's version plus journal records appended after it in order: a state the owner
 * was in. Replay follows the owner's rule, the same function (replayRule.ts): a record the file
 * already holds is skipped.
 * Content is read from the segments the view's index names, on demand: they never change, and the
 * owner deletes one only once a newer index no longer names it, so a segment found gone means the
 * view is old: it is read again and the read retried. A layout-1 file (an owner of the previous
 * release) holds its chunks itself and is read as it is.
 */
import type { promises as fs } from 'node:fs';
import type { Database } from 'sql.js';
import { RecallError, describeError } from '../errors';
import { DEFAULT_LIMITS, JOURNAL_LIMIT_QUOTAS } from '../limits';
import type { StoreChanges, StoreReads, StoreStats } from '../types';
import { ChunkReader } from './chunkReader';
import { SessionReads, type CopyEngines } from './rowReads';
import { annotateRow, insertOutputRow, outputStats, type OutputRow } from './outputRows';
import { layoutOf } from './database';
import { addMissingParts, queryRows } from './schema';
import { SEGMENT_GONE, SegmentCache, placedChunks, type ChunkRow } from './segments';
import { currentSignature, readView, signatureAmong, signatureText, type RawView, type Signature } from './readOnlyView';
import { replayIndex, replaySteps } from './replayRule';
import { loadSqlJs } from './sqljs';
import { CHANGE_OPS, STORE_OPS, type ChangeOp } from './storeOps';

/** Reads the index again this many times when a segment it named is gone, then gives up. */
const SEGMENT_RETRIES = 5;

export interface ReadOnlySessionOptions {
  /** The owner's quota, for messages and stats (it is not recorded in the file); default 64 MiB. */
  quotaBytes?: number;
}

/** `engines`: what its reads use of the rooms above the store (workers/stores.ts gives them). */
export async function openReadOnlySession(
  file: string,
  engines: CopyEngines,
  options: ReadOnlySessionOptions = {},
): Promise<ReadOnlySession> {
  const session = new ReadOnlySession(file, options.quotaBytes ?? DEFAULT_LIMITS.sessionQuotaBytes, engines);
  await session.refresh();
  return session;
}

/** A loaded view: the database in memory, and the content of records no checkpoint has stored yet. */
interface View {
  /** Journal records applied over the file (those it did not hold yet). */
  journalRecords: number;
  /** The session file this view was read from, held open (see readView). */
  handle: fs.FileHandle;
  db: Database;
  layout: 1 | 2;
  pending: Map<string, Buffer>;
  journalBytes: number;
  signature: Signature;
  sessionId: string;
  createdAt: number | undefined;
}

/**
 * The reads every session has (rowReads.ts), and every operation of the store's table that changes a
 * session (`changes` in storeOps.ts) refused with REFUSED in the words the table gives: a new read or
 * change needs no code of its own here.
 */
abstract class Refusals extends SessionReads {
  static {
    for (const op of CHANGE_OPS) {
      Object.defineProperty(Refusals.prototype, op, {
        value(this: Refusals): Promise<never> {
          return Promise.reject(this.refusal(STORE_OPS[op].changes));
        },
        writable: true,
        configurable: true,
      });
    }
  }

  protected abstract refusal(what: string): RecallError;
}
/** Called with or without the arguments a store would take: every call is refused alike. */
type RefusedChanges = { [K in ChangeOp & keyof StoreChanges]: (...args: Parameters<StoreChanges[K]> | []) => ReturnType<StoreChanges[K]> };
const WithRefusals = Refusals as abstract new () => Refusals & RefusedChanges;

export class ReadOnlySession extends WithRefusals implements StoreReads {
  readonly copyBytes = DEFAULT_LIMITS.copyBytes;
  readonly journalLimitBytes: number;
  private view: View | undefined;
  private closed = false;
  private readonly chunks = new ChunkReader((outputId, first, last) => this.fetch(outputId, first, last));
  /** Segments are never changed, so what is open stays valid across views. */
  protected readonly segments: SegmentCache;
  private refreshing: Promise<boolean> | undefined;
  /** How the current view was read: the reads it took, and the journal records applied over the file. */
  lastRead = { attempts: 0, journalRecords: 0 };

  /** @internal use openReadOnlySession */
  constructor(
    readonly file: string,
    readonly quotaBytes: number,
    protected readonly engines: CopyEngines,
  ) {
    super();
    this.journalLimitBytes = JOURNAL_LIMIT_QUOTAS * quotaBytes;
    this.segments = new SegmentCache(file);
  }

  get sessionId(): string {
    return this.current().sessionId;
  }

  /** When the owner created the session (epoch ms), as its file records it. */
  get createdAt(): number | undefined {
    return this.current().createdAt;
  }

  /** Whether the files on disk differ from the view (cheap: stats only). */
  async stale(names?: string[]): Promise<boolean> {
    if (!this.view) return true;
    const now = names ? signatureAmong(this.file, names) : await currentSignature(this.file);
    return now === undefined || signatureText(now) !== signatureText(this.view.signature);
  }

  /**
   * Reads the session again when its files changed; resolves whether the view changed. Calls that
   * overlap share one read. NOT_FOUND once the session file is gone (the view read before stays).
   */
  refresh(names?: string[]): Promise<boolean> {
    this.refreshing ??= this.reload(names).finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /** `names`: a listing of the session's folder just taken, for the look at its files (signatureAmong). */
  private async reload(names?: string[]): Promise<boolean> {
    this.ensureOpen();
    if (this.view && !(await this.stale(names))) return false;
    const raw = await readView(this.file);
    if (this.view && signatureText(this.view.signature) === signatureText(raw.signature)) {
      await raw.handle.close();
      return false;
    }
    const view = await buildView(this.file, raw).catch(async (error: unknown) => {
      await raw.handle.close();
      throw error;
    });
    if (this.closed) {
      await dropView(view);
      return false;
    }
    const old = this.view;
    this.view = view;
    this.lastRead = { attempts: raw.attempts, journalRecords: view.journalRecords };
    this.chunks.clear();
    if (old) await dropView(old);
    return true;
  }

  /** Runs a read of the view; when a segment its index named is gone (a newer index dropped it), reads the session again and retries. */
  protected override async reading<T>(read: () => T): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return read();
      } catch (error) {
        if (attempt >= SEGMENT_RETRIES || !(error instanceof RecallError) || error.details.reason !== SEGMENT_GONE) throw error;
        await this.refresh();
      }
    }
  }

  async stats(): Promise<StoreStats> {
    const view = this.current();
    return { ...outputStats(view.db), journalBytes: view.journalBytes, journalLimitBytes: this.journalLimitBytes };
  }

  /** Frees the view; nothing on disk is touched. */
  async close(): Promise<void> {
    this.closed = true;
    await this.refreshing?.catch(() => undefined);
    const view = this.view;
    this.view = undefined;
    if (view) await dropView(view);
    this.chunks.clear();
    this.segments.clear();
  }

  protected refusal(what: string): RecallError {
    return new RecallError(
      'REFUSED',
      `Session ${this.view?.sessionId ?? this.file} belongs to another process (an MCP server's, for an agent outside VS Code) and is shown read-only: VS Code does not ${what} it. Its owner (or the user, once it has ended) manages it.`,
    );
  }

  protected override bytes(row: OutputRow, from: number, to: number, cache: boolean): Buffer {
    if (to <= from) return Buffer.alloc(0);
    const pending = this.current().pending.get(row.id);
    if (pending) return pending.subarray(from, to);
    return this.chunks.bytes(row, from, to, cache);
  }

  protected fetch(outputId: string, first: number, last: number): ChunkRow[] {
    const { db, layout } = this.current();
    if (layout === 2) return placedChunks(db, this.segments, outputId, first, last);
    return queryRows<ChunkRow>(db, 'SELECT idx, codec, data FROM chunks WHERE output_id = ? AND idx BETWEEN ? AND ?', [
      outputId,
      first,
      last,
    ]);
  }

  protected override index(): Database {
    return this.current().db;
  }

  private current(): View {
    this.ensureOpen();
    if (!this.view) throw new RecallError('STORE_UNAVAILABLE', `The session ${this.file} has not been read yet.`);
    return this.view;
  }

  private ensureOpen(): void {
    if (this.closed) throw new RecallError('STORE_CLOSED', `The read-only view of ${this.file} is closed.`);
  }
}

/** The view in memory: the file's index with the journal records it does not hold yet applied. */
async function buildView(file: string, raw: RawView): Promise<View> {
  const SQL = await loadSqlJs();
  let db: Database | undefined;
  try {
    db = new SQL.Database(raw.bytes);
    const values = new Map(queryRows<{ key: string; value: string }>(db, 'SELECT key, value FROM session').map((r) => [r.key, r.value]));
    const layout = layoutOf(db, file);
    // Only this in-memory copy gains the columns a newer layout has (the file is never written).
    addMissingParts(db);
    const pending = new Map<string, Buffer>();
    // Counts the steps that changed the view (a record the file already reflects changes nothing).
    let journalRecords = 0;
    for (const step of replaySteps(raw.entries, replayIndex(db, layout))) {
      switch (step.op) {
        case 'remove':
          if (queryRows(db, 'SELECT 1 FROM outputs WHERE id = ?', [step.outputId]).length > 0) journalRecords++;
          // Its row is what reads look up; its chunks are left (unreachable without it).
          db.run('DELETE FROM outputs WHERE id = ?', [step.outputId]);
          pending.delete(step.outputId);
          break;
        case 'annotate':
          if (annotateRow(db, step.outputId, step.extra) === 'changed') journalRecords++;
          break;
        case 'content':
          pending.set(step.outputId, step.content);
          journalRecords++;
          break;
        case 'insert':
          // No eviction: the file does not record the owner's quota (quotaBytes here may be a default).
          // Evictions are not journalled, so until the owner's next checkpoint a copy it evicted may
          // still read here.
          insertOutputRow(db, step.record);
          pending.set(step.record.outputId, step.content);
          journalRecords++;
          break;
      }
    }
    const createdAt = Number(values.get('created_at'));
    return {
      journalRecords,
      handle: raw.handle,
      db,
      layout,
      pending,
      journalBytes: raw.journalBytes,
      signature: raw.signature,
      sessionId: values.get('session_id') ?? file,
      createdAt: Number.isFinite(createdAt) && createdAt > 0 ? createdAt : undefined,
    };
  } catch (error) {
    db?.close();
    if (error instanceof RecallError) throw error;
    throw new RecallError('STORE_UNAVAILABLE', `The session file ${file} cannot be read (${describeError(error)}).`);
  }
}

async function dropView(view: View): Promise<void> {
  view.db.close();
  await view.handle.close().catch(() => undefined);
}
