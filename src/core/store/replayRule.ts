/**
 * The journal replay rule: which journal records change an index, and how. The owner at open
 * (SessionStore.replayJournals) and a read-only view of another process's session (buildView in
 * readOnlySession.ts) both replay through it, so the view always shows a state the owner was in.
 * What applying a step does is each caller's own: the owner evicts for its quota and keeps the
 * content for its next checkpoint; the view only fills its in-memory copy.
 */
import type { Database } from 'sql.js';
import type { AnnotateRecord, JournalEntry, RetainRecord } from './journal';
import { awaitsContent, checkpointedSeq } from './outputRows';
import { queryRows } from './schema';

/**
 * What the index holds for an output when its retain record is reached:
 * - 'absent': no row (never checkpointed, or removed since the index was written);
 * - 'awaitsContent': a live, non-empty row placed in no segment (the index was written while the
 *   copy waited for a checkpoint), so its content exists only in the record;
 * - 'present': a row that needs nothing from the record (its content is placed, it was evicted, or
 *   it is empty).
 */
export type HeldRow = 'absent' | 'awaitsContent' | 'present';

export interface ReplayIndex {
  /** The index's `last_seq`: the last retain its segments hold content for (see checkpointedSeq). */
  checkpointedSeq: number;
  /**
   * Asked as each retain is reached, after the steps before it were applied (removals, inserts, the
   * evictions those made), so the answer is the index's at that point of the replay, as when the
   * owner applied the records one by one.
   */
  holds(outputId: string): HeldRow;
}

export type ReplayStep =
  /** Remove the output (it may be absent: removed again, or never checkpointed and evicted). */
  | { op: 'remove'; outputId: string }
  /** Merge the fields again (annotateRow: idempotent; an output gone since is skipped there). */
  | { op: 'annotate'; outputId: string; extra: AnnotateRecord['extra'] }
  /** Insert the retain's row; its content is the record's until a checkpoint stores it. */
  | { op: 'insert'; record: RetainRecord; content: Buffer }
  /** The index holds the row without content: take the content from the record. */
  | { op: 'content'; outputId: string; content: Buffer };

/**
 * The steps that replaying `entries` (oldest first) over `index` applies, in order; a record that
 * changes nothing yields none. Removals and annotations always apply: a record the index already
 * reflects applies again to the same result. A retain applies only when its seq is past the index's
 * `last_seq` (at or below it, the index holds its outcome: the content in segments, or the copy
 * gone) and the index lacks the row, or holds it awaiting content (a row the checkpoint wrote out
 * for a copy retained after its rotation). Retain seqs only grow
 * along the journals, so an inserted retain's seq is the highest so far: the owner's next seq
 * follows it.
 *
 * Lazy (a generator): the caller applies each step before the next record is decided.
 */
export function* replaySteps(entries: Iterable<JournalEntry>, index: ReplayIndex): Generator<ReplayStep, void, undefined> {
  for (const { header, content } of entries) {
    if (header.op === 'remove') {
      yield { op: 'remove', outputId: header.outputId };
      continue;
    }
    if (header.op === 'annotate') {
      yield { op: 'annotate', outputId: header.outputId, extra: header.extra };
      continue;
    }
    if (header.seq <= index.checkpointedSeq) continue;
    const held = index.holds(header.outputId);
    if (held === 'absent') yield { op: 'insert', record: header, content };
    else if (held === 'awaitsContent') yield { op: 'content', outputId: header.outputId, content };
  }
}

/**
 * What a session index holds, for replaySteps. `layout` 1 (the previous release, read by the
 * read-only view as it is) keeps its chunks in the file itself, so a row there never awaits content.
 */
export function replayIndex(db: Database, layout: 1 | 2 = 2): ReplayIndex {
  return {
    checkpointedSeq: checkpointedSeq(db),
    holds(outputId) {
      if (queryRows(db, 'SELECT 1 FROM outputs WHERE id = ?', [outputId]).length === 0) return 'absent';
      return layout === 2 && awaitsContent(db, outputId) ? 'awaitsContent' : 'present';
    },
  };
}
