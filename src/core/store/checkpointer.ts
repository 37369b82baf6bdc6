/**
 * The durability protocol of one session: the journal, the copies waiting in it, and the
 * background checkpoint that moves them into the database file.
 *
 * A change (a retained copy, a removal, an annotation) is appended to the journal and fsync'd before it is
 * applied to the in-memory index: that is when it is acknowledged. A checkpoint, in the
 * background, rotates the journal, deflates the waiting copies into new content segments
 * (segments.ts), writes the small index out whole and atomically, and only then deletes the
 * segments no index names any more and the rotated journals it made redundant.
 *
 * While checkpoints fail (a full disk, a folder that turned read-only) nothing acknowledged is
 * lost, but the journal grows: it is bounded (`journalLimitBytes`), past which new copies are
 * refused with the reason. Failed checkpoints are retried with backoff, and a copy that finds the
 * journal full tries one first, so a recovered disk catches up without a restart.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Database } from 'sql.js';
import { RecallError, describeError } from '../errors';
import { atomicWriteFile, syncDirectory } from './atomicWrite';
import { placeRewritten, writeSegments } from './checkpointSegments';
import { collectGarbageInWorker } from '../worker/collectGarbage';
import { JournalWriter, encodeRecord, type JournalHeader, type LeftJournals } from './journal';
import { JournalSpans, type PendingContent } from './pendingContent';
import { applyPragmas, compactIfWasteful, queryRows } from './schema';
import { SegmentWriter, unnameDeadSegments, type SegmentCache } from './segments';
import { journalFile, rotatedJournals, segmentFile } from './sessionFiles';

/** First retry of a failed background checkpoint; doubled on each failure up to the maximum. */
const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 30_000;
/** How long a segment no index names stays on disk for readers of an older index (see removeDoomed). */
const SEGMENT_GRACE_MS = 10_000;
/** A retain that finds the journal full tries a checkpoint first, unless one failed this recently. */
const CATCH_UP_AFTER_MS = 1000;

/** What the checkpointer needs of the store it keeps durable. */
export interface CheckpointSource {
  /** The open index (throws STORE_CLOSED once the store is closed). */
  database(): Database;
  /** The store's open segments (a rewrite reads through them; a deleted one is dropped). */
  readonly segments: SegmentCache;
  isOpen(): boolean;
  /** The highest change number handed out so far. */
  lastSeq(): number;
}

export interface CheckpointerOptions {
  /** 'manual': no background checkpoints and no retries (tests simulate a crash before one runs). */
  mode: 'auto' | 'manual';
  /** Journal bytes on disk past which new copies are refused. */
  journalLimitBytes: number;
}

export interface CheckpointFailure {
  message: string;
  /** The system error code (EISDIR, EFBIG, ENOSPC…) when there is one: the same failure again has the same code, not the same message (temporary file names differ). */
  code?: string;
  /** Epoch ms. */
  at: number;
}

/** What a record that could not be appended means for its change, by op (removals and annotations hold no content). */
const FAILED_RECORD: Record<JournalHeader['op'], (outputId: string) => { what: string; outcome: string }> = {
  retain: () => ({
    what: 'The output could not be saved',
    outcome: 'so it was not retained and cannot be read back. Only the preview is available.',
  }),
  remove: (outputId) => ({ what: `The removal of "${outputId}" could not be saved`, outcome: 'so the output was not removed.' }),
  annotate: (outputId) => ({ what: `The annotation of "${outputId}" could not be saved`, outcome: 'so the output was not annotated.' }),
};

export class Checkpointer {
  private readonly journal: JournalWriter;
  /** The next rotated journal's number (`<file>.journal.<n>`), and the sizes of those on disk. */
  private nextRotation: number;
  private readonly rotatedBytes: Map<number, number>;
  /**
   * Copies journalled since the last checkpoint: their rows are in the index, their content only
   * here (and in the journal) until a checkpoint has written it into segments.
   */
  private readonly pendingContent = new Map<string, PendingContent>();
  /** Where pending copies' content is read from (their journal records). */
  private readonly spans: JournalSpans;
  /** The next segment's number: never reused, so no reader's index can name another segment's content. */
  private nextSegment: number;
  /**
   * Segments the in-memory index names that may not be durable yet: a checkpoint that failed after
   * writing them. The next one fsyncs them before its index names them on disk.
   */
  private readonly notDurable = new Set<number>();
  /** Segments no durable index names, waiting out the grace period before they are deleted. */
  private doomed: { n: number; at: number }[] = [];
  /** Retains, removals, annotations and journal rotations, one at a time. */
  private changes: Promise<unknown> = Promise.resolve();
  /** The latest checkpoint, and the one not yet started that new changes can join. */
  private writeChain: Promise<void> = Promise.resolve();
  private pendingWrite: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private timerDue = 0;
  private stopped = false;
  private failure: { error: Error; at: number } | undefined;
  private failures = 0;
  /** Bytes of the retains queued but not yet appended (see reserve). */
  private reservedBytes = 0;

  constructor(
    readonly file: string,
    private readonly source: CheckpointSource,
    private readonly options: CheckpointerOptions,
    left: Pick<LeftJournals, 'nextRotation' | 'rotatedBytes' | 'currentBytes'>,
  ) {
    this.journal = new JournalWriter(journalFile(file), left.currentBytes);
    this.spans = new JournalSpans(journalFile(file));
    const db = source.database();
    const [stored] = queryRows<{ value: string }>(db, "SELECT value FROM session WHERE key = 'next_segment'");
    const [highest] = queryRows<{ n: number | null }>(db, 'SELECT max(n) AS n FROM segments');
    this.nextSegment = Math.max(Number(stored?.value) || 1, (highest?.n ?? 0) + 1);
    this.nextRotation = left.nextRotation;
    this.rotatedBytes = new Map(left.rotatedBytes);
  }

  get journalLimitBytes(): number {
    return this.options.journalLimitBytes;
  }

  /** Bytes of journal on disk: changes acknowledged since the last checkpoint that succeeded. */
  get journalBytes(): number {
    let total = this.journal.bytes;
    for (const bytes of this.rotatedBytes.values()) total += bytes;
    return total;
  }

  /**
   * Why the latest checkpoint failed, while it did (undefined once one succeeds): the one name this
   * failure has, here, in stats() and in a journalFull refusal's details. Acknowledged changes stay
   * durable in the journal meanwhile; only the session file is behind.
   */
  get lastCheckpointError(): CheckpointFailure | undefined {
    if (!this.failure) return undefined;
    const { code } = this.failure.error as NodeJS.ErrnoException;
    return { message: describeError(this.failure.error), ...(typeof code === 'string' ? { code } : {}), at: this.failure.at };
  }

  /** Runs changes one at a time, in order; a rotation waits for the change before it. */
  change<T>(run: () => Promise<T>): Promise<T> {
    const next = this.changes.then(run, run);
    // Not the value: a rotation resolves with the copies it batched, which must not outlive the checkpoint.
    this.changes = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  }

  /** Resolves once the changes queued so far have finished. */
  idle(): Promise<void> {
    return this.changes.then(() => undefined);
  }

  /**
   * Called before a retain of about `bytes` is queued; returns the release of its reservation.
   * When the journal, with the retains queued before, would pass its bound, checkpoints first
   * (which empties it of everything queued so far), unless one just failed: a healthy store under
   * a burst slows down instead of refusing.
   */
  async reserve(bytes: number): Promise<() => void> {
    const limit = this.options.journalLimitBytes;
    // Checked and reserved in one turn: callers released by the same checkpoint queue in order. Each
    // checkpoint that succeeds empties the journal of what was queued before it, so this ends.
    while (this.journalBytes + this.reservedBytes + bytes > limit) {
      if (this.journalBytes === 0 && this.reservedBytes === 0) break;
      if (this.failure && Date.now() - this.failure.at < CATCH_UP_AFTER_MS) break;
      const saved = await this.flush().then(
        () => true,
        () => false,
      );
      if (!saved) break;
    }
    this.reservedBytes += bytes;
    let released = false;
    return () => {
      if (!released) this.reservedBytes -= bytes;
      released = true;
    };
  }

  /**
   * Appends a record durably (inside a change), then applies it to the database. Nothing changes
   * when the append fails; when applying fails the record is cut back off, so no replay brings it.
   */
  async record(
    header: JournalHeader,
    content: Uint8Array | undefined,
    apply: (journalled: PendingContent | undefined) => void,
  ): Promise<void> {
    const buffers = encodeRecord(header, content);
    if (header.op === 'retain') this.ensureRoom(buffers.reduce((sum, buffer) => sum + buffer.length, 0));
    let start: number;
    try {
      if (this.journal.damaged) await this.rotate();
      start = await this.journal.append(buffers);
    } catch (error) {
      const { what, outcome } = FAILED_RECORD[header.op](header.outputId);
      throw new RecallError(
        'STORE_UNAVAILABLE',
        `${what} to the session journal ${this.journal.path} (${describeError(error)}), ${outcome}`,
      );
    }
    try {
      // A retain's content is read back from its record (the buffers before it: prefix, header, length).
      const before = buffers[0].length + buffers[1].length + buffers[2].length;
      apply(header.op === 'retain' ? this.spans.span(start + before, buffers[3].length) : undefined);
    } catch (error) {
      await this.journal.cutBack(start);
      throw error;
    }
  }

  private ensureRoom(bytes: number): void {
    const used = this.journalBytes;
    const limit = this.options.journalLimitBytes;
    // An empty journal takes any one copy, however the limit compares with the copy cap.
    if (used === 0 || used + bytes <= limit) return;
    const why = this.failure
      ? `checkpoints into the session file keep failing (the last, at ${new Date(this.failure.at).toISOString()}: ${describeError(this.failure.error)})`
      : 'no checkpoint has emptied it yet';
    throw new RecallError(
      'STORE_UNAVAILABLE',
      `The output was not retained: the session journal holds ${used} bytes not yet saved into the session file, and this output ` +
        `(${bytes} bytes) would pass its limit of ${limit} bytes, because ${why}. Only the preview is available; outputs retained ` +
        'before stay readable. The user must free disk space or make the session folder writable; saving then resumes by itself.',
      {
        reason: 'journalFull',
        journalBytes: used,
        journalLimitBytes: limit,
        ...(this.lastCheckpointError ? { lastCheckpointError: this.lastCheckpointError } : {}),
      },
    );
  }

  /** Keeps a journalled copy's content until a checkpoint stores it in segments. */
  hold(outputId: string, content: PendingContent): void {
    this.pendingContent.set(outputId, content);
  }

  /** A copy removed or evicted: its content no longer waits for a checkpoint. */
  drop(outputId: string): void {
    this.pendingContent.delete(outputId);
  }

  pending(outputId: string): PendingContent | undefined {
    return this.pendingContent.get(outputId);
  }

  /**
   * Checkpoints in the background (auto mode only): after a change, soon; after a failure, with
   * backoff. A change while checkpoints fail brings the retry forward, at most one per second, so a
   * recovered disk is caught up with at the next change.
   */
  schedule(delayMs?: number): void {
    if (this.options.mode !== 'auto' || this.stopped) return;
    const now = Date.now();
    const earliest = this.failure ? this.failure.at + CATCH_UP_AFTER_MS : now;
    const due = delayMs !== undefined ? now + delayMs : Math.max(now, earliest);
    if (this.timer && this.timerDue <= due) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerDue = due;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.source.isOpen() && !this.stopped) this.flush().catch(() => undefined);
    }, due - now);
    this.timer.unref?.();
  }

  /**
   * Checkpoints: writes the database out durably, then drops the journal records it holds. Calls
   * that arrive while one runs share the next, so a burst of retains costs two checkpoints.
   * Rejects with the write's error (also kept in lastCheckpointError, and retried with backoff); journalled
   * copies stay durable.
   */
  flush(): Promise<void> {
    if (this.pendingWrite) return this.pendingWrite;
    const write = this.writeChain
      .catch(() => undefined)
      .then(async () => {
        this.pendingWrite = undefined;
        this.source.database();
        try {
          // Collected by what it left: the first checkpoint of a new session leaves a few KiB, and a
          // full collection then (100-170 ms of this thread) held up the close of a server stopped
          // just after it started.
          collectGarbageInWorker(await this.checkpointNow());
          this.failure = undefined;
          this.failures = 0;
        } catch (error) {
          this.failure = { error: error instanceof Error ? error : new Error(String(error)), at: Date.now() };
          this.failures++;
          if (this.source.isOpen()) this.schedule(Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** (this.failures - 1)));
          throw error;
        }
      });
    this.pendingWrite = write;
    this.writeChain = write;
    return write;
  }

  /** No more background checkpoints (close or delete has begun). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Stops, waits for the running checkpoint, removes the segments no index names, and closes the journal. */
  async shutdown(): Promise<void> {
    this.stop();
    await this.writeChain.catch(() => undefined);
    await this.removeDoomed(Infinity);
    this.spans.closeAll();
    await this.journal.close();
  }

  /**
   * Deletes the unnamed segments unnamed before `before`. A reader of this session in another
   * process (readOnlySession.ts) may hold an older index that names one: the grace period lets it
   * finish the reads of that view; one that finds a segment gone reads the index again. A failed
   * removal leaves an orphan, removed at the next open.
   */
  private async removeDoomed(before: number): Promise<void> {
    const due = this.doomed.filter((segment) => segment.at <= before);
    this.doomed = this.doomed.filter((segment) => segment.at > before);
    for (const { n } of due) await fs.rm(segmentFile(this.file, n), { force: true }).catch(() => undefined);
  }

  /** Resolves with the bytes of garbage it left (copies read back, segments built, the index exported). */
  private async checkpointNow(): Promise<number> {
    // 1. Rotate, between changes: the copies pending then are those the rotated journals hold. Later
    //    ones stay pending (their rows go out in this index without placements; replay restores
    //    their content from the current journal).
    const { upTo, seq, batch } = await this.change(async () => ({
      upTo: await this.rotate(),
      seq: this.source.lastSeq(),
      batch: [...this.pendingContent],
    }));
    const readBack = batch.reduce((sum, [, content]) => sum + content.length, 0);
    // 2. Their chunks, and the live chunks of segments worth rewriting, into new segments.
    const writer = new SegmentWriter(this.file, () => this.nextSegment++);
    const recorded = new Set<number>();
    let exported: number;
    try {
      const rewrites = await writeSegments(writer, batch, {
        index: () => this.source.database(),
        segments: this.source.segments,
        pending: this.pendingContent,
        sealed: (n) => {
          recorded.add(n);
          this.notDurable.add(n);
        },
      });
      await writer.sync();
      await this.syncEarlierSegments(writer.written);
      await syncDirectory(path.dirname(this.file));
      // 3. The index, naming only segments that are durable. From here to the export nothing awaits.
      const db = this.source.database();
      placeRewritten(db, rewrites);
      const dead = unnameDeadSegments(db);
      db.run("INSERT OR REPLACE INTO session (key, value) VALUES ('last_seq', ?)", [String(seq)]);
      db.run("INSERT OR REPLACE INTO session (key, value) VALUES ('next_segment', ?)", [String(this.nextSegment)]);
      compactIfWasteful(db);
      const data = db.export();
      exported = data.byteLength;
      applyPragmas(db);
      await atomicWriteFile(this.file, data);
      // 4. No durable index names these now; they go after a grace period (see removeDoomed).
      for (const n of dead) {
        this.source.segments.drop(n);
        this.doomed.push({ n, at: Date.now() });
      }
      await this.removeDoomed(Date.now() - SEGMENT_GRACE_MS);
    } catch (error) {
      await writer.discard();
      for (const n of writer.written) if (!recorded.has(n)) await fs.rm(segmentFile(this.file, n), { force: true }).catch(() => undefined);
      throw error;
    }
    this.spans.release(this.pendingContent.values());
    // 5. Only now are the rotated records redundant. (Should a removal fail, the next checkpoint retries;
    //    a leftover record is skipped on replay: its seq is at most the index's last_seq.)
    for (const rotated of await rotatedJournals(this.file)) {
      if (rotated.n > upTo) continue;
      await fs.rm(rotated.path, { force: true });
      this.rotatedBytes.delete(rotated.n);
    }
    return readBack + writer.builtBytes + exported;
  }

  /** See notDurable. A segment gone since was dead and removed: nothing names it. */
  private async syncEarlierSegments(justSynced: number[]): Promise<void> {
    for (const n of justSynced) this.notDurable.delete(n);
    for (const n of [...this.notDurable]) {
      const handle = await fs.open(segmentFile(this.file, n), 'r').catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw error;
      });
      try {
        await handle?.sync();
      } finally {
        await handle?.close();
      }
      this.notDurable.delete(n);
    }
  }

  /** Renames the current journal to `<file>.journal.<n>` (new records start a new file); returns n. */
  private async rotate(): Promise<number> {
    const n = this.nextRotation;
    const moved = await this.journal.moveTo(`${journalFile(this.file)}.${n}`);
    this.spans.rotated();
    if (moved !== undefined) {
      this.rotatedBytes.set(n, moved);
      this.nextRotation++;
    }
    return this.nextRotation - 1;
  }
}
