import type { Database } from 'sql.js';

/**
 * Chunks [first_idx, last_idx] of a copy are in segment n, `bytes` of it (encoded); a segment's
 * `data_bytes` are all its chunks, `file_bytes` its file's size (a shorter file is torn).
 */
export const PLACEMENTS_SCHEMA = `
CREATE TABLE IF NOT EXISTS placements (
  output_id TEXT NOT NULL,
  first_idx INTEGER NOT NULL,
  last_idx INTEGER NOT NULL,
  segment INTEGER NOT NULL,
  bytes INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS placements_output ON placements (output_id, first_idx);
CREATE INDEX IF NOT EXISTS placements_segment ON placements (segment);
CREATE TABLE IF NOT EXISTS segments (n INTEGER PRIMARY KEY, data_bytes INTEGER NOT NULL, file_bytes INTEGER NOT NULL);
`;

/**
 * The trigram summaries of the copies a checkpoint wrote (copySummaries.ts), one row a checkpoint:
 * `copies` is JSON of [outputId, bytes] in the order of their summaries in `masks`. A summary is the
 * OR of a copy's chunk masks, halved while sparse (chunkGrams.ts `compactSummary`). A search across
 * outputs reads them from the index it holds in memory instead of every chunk's mask from the segments.
 */
export const COPY_GRAMS_SCHEMA =
  'CREATE TABLE IF NOT EXISTS copy_grams (n INTEGER PRIMARY KEY, copies TEXT NOT NULL, masks BLOB NOT NULL);';

/**
 * Bumped when the layout changes. 1: one file holding the outputs and their chunks (migrated on
 * open, migration.ts); 2: an index of outputs and placements beside content segments. A file of a
 * newer version is refused, never rewritten.
 */
export const SCHEMA_VERSION = 2;

/** The index database: the outputs, and which segment holds which chunks of each (segments.ts). */
export const SCHEMA = `
CREATE TABLE IF NOT EXISTS session (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS outputs (
  id TEXT PRIMARY KEY,
  seq INTEGER NOT NULL,
  tool TEXT,
  title TEXT,
  created_at INTEGER NOT NULL,
  total_bytes INTEGER NOT NULL,
  complete INTEGER NOT NULL,
  dropped_bytes INTEGER NOT NULL,
  gap_offset INTEGER,
  chunk_bytes INTEGER NOT NULL,
  evicted INTEGER NOT NULL DEFAULT 0,
  extra TEXT,
  notable TEXT
);
CREATE INDEX IF NOT EXISTS outputs_seq ON outputs (seq);
${PLACEMENTS_SCHEMA}
${COPY_GRAMS_SCHEMA}
`;

/**
 * Columns added since version 1, as `ALTER TABLE` clauses, and tables (COPY_GRAMS_SCHEMA). A file
 * written before a column or table existed gains it on open (NULL in old rows, an empty table), and a
 * file written since stays readable by an older build, which reads the columns and tables it knows;
 * so adding one needs no version bump.
 */
const ADDED_COLUMNS: { table: string; column: string; definition: string }[] = [
  // The notable lines a capture saw in the bytes it dropped (JSON of a NotableDigest).
  { table: 'outputs', column: 'notable', definition: 'notable TEXT' },
];

/** Adds what `ADDED_COLUMNS` lists, and the tables added since, to a database that lacks them. */
export function addMissingParts(db: Database): void {
  db.exec(COPY_GRAMS_SCHEMA);
  for (const { table, column, definition } of ADDED_COLUMNS) {
    const columns = queryRows<{ name: string }>(db, `PRAGMA table_info(${table})`);
    if (!columns.some((c) => c.name === column)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${definition}`);
  }
}

/**
 * Connection settings. sql.js's export() closes and reopens the connection, which resets these, so
 * they are applied again after every export. The journal lives in SQLite's heap rather than in a
 * growing MEMFS file: durability comes from the exported file, not from this in-memory database.
 */
export function applyPragmas(db: Database): void {
  db.exec('PRAGMA journal_mode=MEMORY; PRAGMA synchronous=OFF; PRAGMA temp_store=MEMORY;');
}

/** A small typed helper: all rows of a query with bound parameters (IDs never reach SQL text). */
export function queryRows<T>(db: Database, sql: string, params: (string | number | null)[] = []): T[] {
  const statement = db.prepare(sql);
  try {
    statement.bind(params);
    const rows: T[] = [];
    // A statement's column names are its own, read once: getAsObject reads each again for every row
    // (a call into SQLite and a string decode per column), half of listing a session's outputs.
    let names: string[] | undefined;
    while (statement.step()) {
      names ??= statement.getColumnNames();
      const values = statement.get();
      const row: Record<string, unknown> = {};
      for (let i = 0; i < names.length; i++) row[names[i]] = values[i];
      rows.push(row as T);
    }
    return rows;
  } finally {
    statement.free();
  }
}

export function inTransaction(db: Database, work: () => void): void {
  db.exec('BEGIN');
  try {
    work();
    db.exec('COMMIT');
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
}

/** Removed copies and annotations leave free pages that every durable write of the index would carry along. */
export function compactIfWasteful(db: Database): void {
  const [free] = queryRows<{ freelist_count: number }>(db, 'PRAGMA freelist_count');
  const [pages] = queryRows<{ page_count: number }>(db, 'PRAGMA page_count');
  if (free && pages && free.freelist_count > 256 && free.freelist_count * 3 > pages.page_count) db.exec('VACUUM');
}
