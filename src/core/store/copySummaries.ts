/**
 * Each copy's trigram summary, kept in the index (schema.ts COPY_GRAMS_SCHEMA): a checkpoint records the
 * summaries of the copies it wrote as one row, from their chunks' masks; eviction and removal take a
 * copy's out of its row at once (a summary tells which trigrams a copy held). A search across outputs in
 * a process that has not read a copy's masks yet rules the copy out by its summary without opening a
 * segment: reading every chunk's mask was a third of a fresh page.
 *
 * One row a checkpoint, not one a copy: a summary of 2 KiB is too long for two to share a page of the
 * index, so a row each took 4 KiB (+670 KiB an index of 210 copies), and reading them row by row cost a
 * fresh page 56 ms.
 */
import type { Database } from 'sql.js';
import { compactSummary, orInto } from './chunkGrams';
import { queryRows } from './schema';

/** A copy's masks as its chunks are encoded, one at a time: their OR, unless a chunk has none (written before masks) or another size. */
export class SummaryOfCopy {
  private summary: Uint8Array | undefined;
  private spoiled = false;

  add(grams: Uint8Array | undefined): void {
    if (this.spoiled) return;
    if (!grams || (this.summary && grams.length !== this.summary.length)) this.spoiled = true;
    else if (this.summary) orInto(this.summary, grams);
    else this.summary = grams.slice();
  }

  /** The summary as the index keeps it; undefined when a chunk had no mask, or the copy no chunk. */
  done(): Uint8Array | undefined {
    return this.spoiled || !this.summary ? undefined : compactSummary(this.summary);
  }
}

/** A row's copies, in the order of their summaries in its `masks`, with each one's length. */
type Entries = [outputId: string, bytes: number][];

/** Records the summaries of a checkpoint's copies as one row (nothing when there are none). */
export function recordSummaries(db: Database, summaries: Map<string, Uint8Array>): void {
  if (summaries.size === 0) return;
  const entries: Entries = [...summaries].map(([outputId, mask]) => [outputId, mask.length]);
  db.run('INSERT INTO copy_grams (copies, masks) VALUES (?, ?)', [JSON.stringify(entries), Buffer.concat([...summaries.values()])]);
}

/** Every summary the index holds, by copy (views into the rows' bytes). */
export function summariesOf(db: Database): Map<string, Uint8Array> {
  const summaries = new Map<string, Uint8Array>();
  for (const { copies, masks } of queryRows<{ copies: string; masks: Uint8Array }>(db, 'SELECT copies, masks FROM copy_grams')) {
    let at = 0;
    for (const [outputId, bytes] of JSON.parse(copies) as Entries) {
      summaries.set(outputId, masks.subarray(at, at + bytes));
      at += bytes;
    }
  }
  return summaries;
}

/** Takes a copy's summary out of its row (evicted or removed), the row with it when it was the last. */
export function forgetSummary(db: Database, outputId: string): void {
  // An outputId is `out_` and hex digits (ids.ts), so its JSON string is itself in quotes, found as it is.
  const rows = queryRows<{ n: number; copies: string }>(db, 'SELECT n, copies FROM copy_grams WHERE instr(copies, ?) > 0', [
    JSON.stringify(outputId),
  ]);
  dropFromRows(db, rows, (id) => id === outputId);
}

/**
 * Drops the summaries of copies the index no longer holds live, at open: a release before summaries evicted and
 * removed copies without taking theirs out.
 */
export function dropStaleSummaries(db: Database): void {
  const live = new Set(queryRows<{ id: string }>(db, 'SELECT id FROM outputs WHERE evicted = 0').map((row) => row.id));
  dropFromRows(db, queryRows<{ n: number; copies: string }>(db, 'SELECT n, copies FROM copy_grams'), (id) => !live.has(id));
}

/** Rewrites each row that holds a summary `drop` names without it (its masks read only then); a row left empty goes. */
function dropFromRows(db: Database, rows: { n: number; copies: string }[], drop: (outputId: string) => boolean): void {
  for (const { n, copies } of rows) {
    const entries = JSON.parse(copies) as Entries;
    if (!entries.some(([id]) => drop(id))) continue;
    const [{ masks }] = queryRows<{ masks: Uint8Array }>(db, 'SELECT masks FROM copy_grams WHERE n = ?', [n]);
    const kept: Entries = [];
    const parts: Uint8Array[] = [];
    let at = 0;
    for (const [id, bytes] of entries) {
      if (!drop(id)) {
        kept.push([id, bytes]);
        parts.push(masks.subarray(at, at + bytes));
      }
      at += bytes;
    }
    if (kept.length === 0) db.run('DELETE FROM copy_grams WHERE n = ?', [n]);
    else db.run('UPDATE copy_grams SET copies = ?, masks = ? WHERE n = ?', [JSON.stringify(kept), Buffer.concat(parts), n]);
  }
}
