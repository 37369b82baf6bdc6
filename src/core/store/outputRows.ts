/** The outputs table: its rows, the queries on them, and what callers see of a row. */
import type { Database } from 'sql.js';
import { RecallError, describeError } from '../errors';
import { isOutputIdShape } from '../ids';
import { KiB } from '../limits';
import { LIST_TOOL_OUTPUTS_TOOL, SEARCH_TOOL_OUTPUT_TOOL } from '../toolNames';
import type { NotableDigest, OutputInfo } from '../types';
import { CHUNK_BYTES } from './chunks';
import { forgetSummary } from './copySummaries';
import type { RetainRecord } from './journal';
import { queryRows } from './schema';

export interface OutputRow {
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
  /** Absent in a row read from a file opened without the column (see addMissingParts). */
  notable?: string | null;
}

export function toInfo(row: OutputRow): OutputInfo {
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
    ...(row.notable ? { notable: JSON.parse(row.notable) as NotableDigest } : {}),
  };
}

/** The highest seq the database holds or has held (a removed copy's seq is not reused). */
export function lastSeq(db: Database): number {
  const [row] = queryRows<{ seq: number | null }>(db, 'SELECT max(seq) AS seq FROM outputs');
  const [last] = queryRows<{ value: string }>(db, "SELECT value FROM session WHERE key = 'last_seq'");
  return Math.max(row?.seq ?? 0, Number(last?.value ?? 0) || 0);
}

/**
 * The seq of the last retain the index's segments hold content for (checkpointed): journal
 * records up to it are skipped on replay. (A layout-1 file that lacks the key held all its rows.)
 */
export function checkpointedSeq(db: Database): number {
  const [last] = queryRows<{ value: string }>(db, "SELECT value FROM session WHERE key = 'last_seq'");
  if (last) return Number(last.value) || 0;
  const [row] = queryRows<{ seq: number | null }>(db, 'SELECT max(seq) AS seq FROM outputs');
  return row?.seq ?? 0;
}

/** Whether the copy is there and not evicted. */
export function isLive(db: Database, outputId: string): boolean {
  return queryRows(db, 'SELECT 1 FROM outputs WHERE id = ? AND evicted = 0', [outputId]).length > 0;
}

/**
 * For a journalled retain whose row the index holds: whether its content is still only in the
 * journal (the index was written while the copy waited for a checkpoint: live, not empty, placed
 * nowhere). Then replay takes the content from the record.
 */
export function awaitsContent(db: Database, outputId: string): boolean {
  return (
    queryRows(
      db,
      'SELECT 1 FROM outputs WHERE id = ? AND evicted = 0 AND total_bytes > 0 AND NOT EXISTS (SELECT 1 FROM placements WHERE output_id = ?)',
      [outputId, outputId],
    ).length > 0
  );
}

/** A copy's row by ID; NOT_FOUND (or EVICTED, unless allowed) otherwise. */
export function lookupRow(db: Database, outputId: string, quotaBytes: number, allowEvicted: boolean): OutputRow {
  if (typeof outputId !== 'string' || outputId.length === 0) {
    throw new RecallError(
      'INVALID_ARGUMENT',
      'outputId must be the string ID from a tool result, for example "out_0123456789abcdef01234567".',
    );
  }
  const [row] = isOutputIdShape(outputId) ? queryRows<OutputRow>(db, 'SELECT * FROM outputs WHERE id = ?', [outputId]) : [];
  if (!row) {
    throw new RecallError(
      'NOT_FOUND',
      `No retained output "${outputId}" in this session. IDs resolve only in the session that made them (not in another window's session, a fork, or a deleted session). Copy the outputId exactly from the tool result. If it came from an earlier session or another agent, find it with ${LIST_TOOL_OUTPUTS_TOOL} {"session":"all"} or ${SEARCH_TOOL_OUTPUT_TOOL} {"pattern":"…","session":"all"} and read it with the session they name; only if it is in none of them must the output be produced again.`,
    );
  }
  if (row.evicted && !allowEvicted) {
    throw new RecallError(
      'EVICTED',
      `Output "${outputId}" (${row.total_bytes} bytes) was evicted to keep this session within its ${Math.round(quotaBytes / 1048576)} MiB quota; its content is gone. Produce the output again if you need it.`,
    );
  }
  return row;
}

/** Inserts a journalled copy's row (its content goes in separately). */
export function insertOutputRow(db: Database, record: RetainRecord): void {
  db.run(
    `INSERT INTO outputs (id, seq, tool, title, created_at, total_bytes, complete, dropped_bytes, gap_offset, chunk_bytes, extra, notable)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      record.outputId,
      record.seq,
      record.meta.tool ?? null,
      record.meta.title ?? null,
      record.createdAt,
      record.totalBytes,
      record.complete ? 1 : 0,
      record.droppedBytes,
      record.gapOffset,
      CHUNK_BYTES,
      record.meta.extra ? JSON.stringify(record.meta.extra) : null,
      record.meta.notable ? JSON.stringify(record.meta.notable) : null,
    ],
  );
}

/** Largest `extra` one `annotate` takes, as JSON (UTF-8 bytes). */
export const MAX_ANNOTATION_BYTES = 256 * KiB;

const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as object | null;
  // Object.prototype of this realm or another (a vm context's): a prototype with none of its own.
  return proto === null || Object.getPrototypeOf(proto) === null;
};

/**
 * The `extra` of an `annotate` call as it is journalled and merged: its JSON round trip (so a key
 * whose value JSON drops, like `undefined`, changes nothing). INVALID_ARGUMENT when it is not a
 * plain object, cannot be written as JSON, or its JSON is over MAX_ANNOTATION_BYTES.
 */
export function checkAnnotation(extra: unknown): Record<string, unknown> {
  if (!isPlainObject(extra)) {
    const got =
      extra === null
        ? 'null'
        : Array.isArray(extra)
          ? 'an array'
          : typeof extra === 'object'
            ? `a ${extra.constructor?.name || 'non-plain'} object`
            : `a ${typeof extra}`;
    throw new RecallError('INVALID_ARGUMENT', `annotate() takes a plain object of fields to merge into the output's extra; got ${got}.`);
  }
  let json: string;
  try {
    json = JSON.stringify(extra);
  } catch (error) {
    throw new RecallError(
      'INVALID_ARGUMENT',
      `annotate() takes JSON-serialisable fields; this extra cannot be written as JSON (${describeError(error)}).`,
    );
  }
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > MAX_ANNOTATION_BYTES) {
    throw new RecallError(
      'INVALID_ARGUMENT',
      `The extra given to annotate() is ${bytes} bytes as JSON, over the limit of ${MAX_ANNOTATION_BYTES}; record less (a summary, or an offset into the copy).`,
      { bytes, limitBytes: MAX_ANNOTATION_BYTES },
    );
  }
  return JSON.parse(json) as Record<string, unknown>;
}

/**
 * Merges `extra` into a row's extra (shallow: each key replaces the one it names). Idempotent, so a
 * journal replayed twice ends the same. Says whether the row changed: 'missing' when there is no
 * such row (removed since), 'same' when it held these fields already (a record the file holds).
 */
export function annotateRow(db: Database, outputId: string, extra: Record<string, unknown>): 'changed' | 'same' | 'missing' {
  const [row] = queryRows<{ extra: string | null }>(db, 'SELECT extra FROM outputs WHERE id = ?', [outputId]);
  if (!row) return 'missing';
  let current: unknown;
  try {
    current = row.extra ? JSON.parse(row.extra) : undefined;
  } catch {
    current = undefined;
  }
  // Keys already there keep their place, so merging the same fields again gives the same text.
  const merged = JSON.stringify({ ...(isPlainObject(current) ? current : {}), ...extra });
  if (merged === row.extra) return 'same';
  db.run('UPDATE outputs SET extra = ? WHERE id = ?', [merged, outputId]);
  return 'changed';
}

/** Evicts the oldest live copies until `incoming` more bytes fit the quota; returns their IDs. */
export function evictFor(db: Database, quotaBytes: number, incoming: number): string[] {
  const live = queryRows<{ id: string; total_bytes: number }>(db, 'SELECT id, total_bytes FROM outputs WHERE evicted = 0 ORDER BY seq');
  let used = live.reduce((sum, row) => sum + row.total_bytes, 0);
  const evicted: string[] = [];
  for (const row of live) {
    if (used + incoming <= quotaBytes) break;
    db.run('DELETE FROM placements WHERE output_id = ?', [row.id]);
    forgetSummary(db, row.id);
    db.run('UPDATE outputs SET evicted = 1 WHERE id = ?', [row.id]);
    evicted.push(row.id);
    used -= row.total_bytes;
  }
  return evicted;
}

export function outputStats(db: Database): { outputs: number; retainedBytes: number; evicted: number } {
  const [row] = queryRows<{ outputs: number; bytes: number | null; evicted: number }>(
    db,
    'SELECT sum(evicted = 0) AS outputs, sum(CASE WHEN evicted = 0 THEN total_bytes END) AS bytes, sum(evicted) AS evicted FROM outputs',
  );
  return { outputs: row?.outputs ?? 0, retainedBytes: row?.bytes ?? 0, evicted: row?.evicted ?? 0 };
}
