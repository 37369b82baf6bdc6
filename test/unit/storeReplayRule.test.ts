import assert from 'node:assert/strict';
import type { Database } from 'sql.js';
import type { JournalEntry, RetainRecord } from '../../src/core/store/journal';
import { insertOutputRow } from '../../src/core/store/outputRows';
import { replayIndex, replaySteps, type HeldRow, type ReplayIndex, type ReplayStep } from '../../src/core/store/replayRule';
import { SCHEMA } from '../../src/core/store/schema';
import { loadSqlJs } from '../../src/core/store/sqljs';

const retain = (outputId: string, seq: number, text = `copy ${outputId}`): JournalEntry => {
  const content = Buffer.from(text);
  const header: RetainRecord = {
    op: 'retain',
    outputId,
    seq,
    createdAt: 1,
    totalBytes: content.length,
    complete: true,
    droppedBytes: 0,
    gapOffset: null,
    meta: {},
  };
  return { header, content };
};
const remove = (outputId: string): JournalEntry => ({ header: { op: 'remove', outputId }, content: Buffer.alloc(0) });
const annotate = (outputId: string, extra: Record<string, unknown>): JournalEntry => ({
  header: { op: 'annotate', outputId, extra },
  content: Buffer.alloc(0),
});

/** An index as a map of what it holds, recording which outputs the rule asked about. */
function fakeIndex(
  checkpointedSeq: number,
  rows: Record<string, HeldRow> = {},
): ReplayIndex & { rows: Map<string, HeldRow>; asked: string[] } {
  const held = new Map(Object.entries(rows));
  const asked: string[] = [];
  return {
    checkpointedSeq,
    rows: held,
    asked,
    holds(outputId) {
      asked.push(outputId);
      return held.get(outputId) ?? 'absent';
    },
  };
}

/** The steps as plain values: a retain's content as text, its record by ID and seq. */
const summary = (steps: Iterable<ReplayStep>): unknown[] =>
  [...steps].map((step) => {
    switch (step.op) {
      case 'insert':
        return { op: 'insert', outputId: step.record.outputId, seq: step.record.seq, content: step.content.toString() };
      case 'content':
        return { op: 'content', outputId: step.outputId, content: step.content.toString() };
      default:
        return step;
    }
  });

describe('store replay rule: which journal records change an index (owner and read-only view alike)', () => {
  it('a removal always applies, whether or not the index holds the output, without asking the index', () => {
    const index = fakeIndex(10, { out_a: 'present' });
    assert.deepEqual(summary(replaySteps([remove('out_a'), remove('out_gone')], index)), [
      { op: 'remove', outputId: 'out_a' },
      { op: 'remove', outputId: 'out_gone' },
    ]);
    assert.deepEqual(index.asked, []);
  });

  it('an annotation always applies (merging again gives the same result), with its fields', () => {
    const index = fakeIndex(10, { out_a: 'present' });
    assert.deepEqual(summary(replaySteps([annotate('out_a', { pinned: true }), annotate('out_gone', { n: 1 })], index)), [
      { op: 'annotate', outputId: 'out_a', extra: { pinned: true } },
      { op: 'annotate', outputId: 'out_gone', extra: { n: 1 } },
    ]);
    assert.deepEqual(index.asked, []);
  });

  it('a retain at or below the index last_seq is skipped, even when the index lacks its row (removed or evicted since)', () => {
    const index = fakeIndex(5);
    assert.deepEqual(summary(replaySteps([retain('out_a', 4), retain('out_b', 5)], index)), []);
    assert.deepEqual(index.asked, [], 'not even asked');
  });

  it('a retain past last_seq whose row the index lacks is inserted, with the record and its content', () => {
    const entry = retain('out_a', 6, 'the bytes');
    const [step, ...rest] = replaySteps([entry], fakeIndex(5));
    assert.deepEqual(rest, []);
    assert.equal(step.op, 'insert');
    assert.equal(step.op === 'insert' && step.record, entry.header, 'the record itself');
    assert.equal(step.op === 'insert' && step.content, entry.content, 'the record’s content, not a copy');
  });

  it('a retain past last_seq whose row the index holds with its content (placed, evicted or empty) is skipped', () => {
    const index = fakeIndex(5, { out_a: 'present' });
    assert.deepEqual(summary(replaySteps([retain('out_a', 6)], index)), []);
    assert.deepEqual(index.asked, ['out_a']);
  });

  it('a retain whose row the index holds without placement takes its content from the record', () => {
    const index = fakeIndex(5, { out_a: 'awaitsContent' });
    assert.deepEqual(summary(replaySteps([retain('out_a', 6, 'only in the journal')], index)), [
      { op: 'content', outputId: 'out_a', content: 'only in the journal' },
    ]);
  });

  it('the index is asked as each retain is reached, after the caller applied the steps before it', () => {
    // The caller applies each step to the fake index as the owner does to its database: an insert
    // makes a row awaiting content, a removal drops one, and the insert of out_b evicts out_c.
    const index = fakeIndex(5, { out_c: 'awaitsContent' });
    const applied: ReplayStep[] = [];
    for (const step of replaySteps(
      [retain('out_a', 6), retain('out_a', 6), remove('out_a'), retain('out_a', 6), retain('out_b', 7), retain('out_c', 8)],
      index,
    )) {
      applied.push(step);
      if (step.op === 'insert') index.rows.set(step.record.outputId, 'awaitsContent');
      if (step.op === 'insert' && step.record.outputId === 'out_b') index.rows.set('out_c', 'present');
      if (step.op === 'remove') index.rows.delete(step.outputId);
    }
    assert.deepEqual(summary(applied), [
      { op: 'insert', outputId: 'out_a', seq: 6, content: 'copy out_a' },
      // The same record again (an index that reflects it now, awaiting content): the content again.
      { op: 'content', outputId: 'out_a', content: 'copy out_a' },
      { op: 'remove', outputId: 'out_a' },
      { op: 'insert', outputId: 'out_a', seq: 6, content: 'copy out_a' },
      { op: 'insert', outputId: 'out_b', seq: 7, content: 'copy out_b' },
      // Evicted by out_b's insert before its record was reached: nothing to take.
    ]);
    assert.deepEqual(index.asked, ['out_a', 'out_a', 'out_a', 'out_b', 'out_c']);
  });

  it('keeps the records’ order across ops, and the seq bound is exact (last_seq skipped, last_seq + 1 applied)', () => {
    const steps = summary(
      replaySteps(
        [retain('out_old', 9), retain('out_a', 10), annotate('out_a', { k: 'v' }), remove('out_old'), retain('out_b', 11)],
        fakeIndex(9, { out_old: 'present' }),
      ),
    );
    assert.deepEqual(steps, [
      { op: 'insert', outputId: 'out_a', seq: 10, content: 'copy out_a' },
      { op: 'annotate', outputId: 'out_a', extra: { k: 'v' } },
      { op: 'remove', outputId: 'out_old' },
      { op: 'insert', outputId: 'out_b', seq: 11, content: 'copy out_b' },
    ]);
  });

  describe('replayIndex: what a session index holds', () => {
    let db: Database;
    beforeEach(async () => {
      const SQL = await loadSqlJs();
      db = new SQL.Database();
      db.run(SCHEMA);
    });
    afterEach(() => db.close());

    const row = (outputId: string, seq: number, bytes = 10): void =>
      insertOutputRow(db, { ...(retain(outputId, seq).header as RetainRecord), totalBytes: bytes });

    it('last_seq from the session table, else the highest seq (a layout-1 file without the key)', () => {
      row('out_a', 3);
      assert.equal(replayIndex(db).checkpointedSeq, 3);
      db.run("INSERT INTO session (key, value) VALUES ('last_seq', '7')");
      assert.equal(replayIndex(db).checkpointedSeq, 7);
    });

    it('absent, awaiting content (live, not empty, placed nowhere), or present (placed, evicted or empty)', () => {
      row('out_waits', 1);
      row('out_placed', 2);
      db.run("INSERT INTO placements (output_id, first_idx, last_idx, segment, bytes) VALUES ('out_placed', 0, 0, 1, 10)");
      row('out_evicted', 3);
      db.run("UPDATE outputs SET evicted = 1 WHERE id = 'out_evicted'");
      row('out_empty', 4, 0);
      const index = replayIndex(db);
      assert.deepEqual(
        ['out_none', 'out_waits', 'out_placed', 'out_evicted', 'out_empty'].map((id) => index.holds(id)),
        ['absent', 'awaitsContent', 'present', 'present', 'present'],
      );
    });

    it('answers from the database as it is when asked (steps applied since are seen)', () => {
      const index = replayIndex(db);
      assert.equal(index.holds('out_a'), 'absent');
      row('out_a', 1);
      assert.equal(index.holds('out_a'), 'awaitsContent');
    });

    it('layout 1 (chunks inside the file, no placements table) never awaits content', async () => {
      const SQL = await loadSqlJs();
      const old = new SQL.Database();
      try {
        old.run(SCHEMA.slice(0, SCHEMA.indexOf('CREATE INDEX IF NOT EXISTS outputs_seq')));
        insertOutputRow(old, retain('out_a', 1).header as RetainRecord);
        assert.deepEqual([replayIndex(old, 1).holds('out_a'), replayIndex(old, 1).holds('out_b')], ['present', 'absent']);
      } finally {
        old.close();
      }
    });
  });
});
