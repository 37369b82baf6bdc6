/** Opening a session's index database: a readable session of this layout (migrated if older), or a fresh one. */
import { promises as fs } from 'node:fs';
import type { Database } from 'sql.js';
import { RecallError, describeError } from '../errors';
import type { OpenReport } from '../types';
import { loadSqlJs } from './sqljs';
import { migrateLayout1, type MigrationHooks } from './migration';
import { SCHEMA, SCHEMA_VERSION, addMissingParts, applyPragmas, queryRows } from './schema';
import { dropStaleSummaries } from './copySummaries';
import { checkSegments, removeOrphanSegments } from './segmentChecks';
import { NotRegularFile, moveAside, readSessionFile, removeStaleTemporaries, segmentsOnDisk } from './sessionFiles';

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

/** The layout a session file was written in: what it can be read as, or why not. */
export function layoutOf(db: Database, file: string): 1 | 2 {
  const [version] = queryRows<{ value: string }>(db, "SELECT value FROM session WHERE key = 'schema_version'");
  const found = Number(version?.value);
  if (found > SCHEMA_VERSION) throw newerLayout(file, found);
  if (found !== 1 && found !== SCHEMA_VERSION) throw new Error(`schema version ${version?.value ?? 'missing'}, expected ${SCHEMA_VERSION}`);
  // From the schema, not by reading the tables: damage inside them is quick_check's to report (checkWhole).
  const tables = new Set(queryRows<{ name: string }>(db, "SELECT name FROM sqlite_master WHERE type = 'table'").map((row) => row.name));
  for (const table of found === 1 ? ['outputs', 'chunks'] : ['outputs', 'placements', 'segments'])
    if (!tables.has(table)) throw new Error(`no such table: ${table}`);
  return found;
}

const newerLayout = (file: string, found: number): RecallError =>
  new RecallError(
    'STORE_UNAVAILABLE',
    `The session file ${file} was written by a newer version of Tool Output Recall (layout ${found}; this version reads up to ${SCHEMA_VERSION}). It is left as it is: update the extension (or the MCP server) to use this session.`,
    { reason: 'newerLayout', layout: found },
  );

/**
 * Opens (or creates) a session's index. A file that is not a readable session is renamed aside
 * (with its segments), kept for the user, and reported; the session then starts empty instead of
 * failing. A file of a newer layout is refused, untouched. Segments the index names that are
 * missing or torn are moved aside and reported (their copies' parts read as missing); segments it
 * does not name (a crash's, before an index named them) are removed (segments.ts: checkSegments,
 * removeOrphanSegments, which also set aside what no checkpoint wrote).
 */
export async function openDatabase(
  file: string,
  sessionId: string,
  forkedFrom?: string,
  hooks?: MigrationHooks,
): Promise<{ db: Database; report: OpenReport; resumed: boolean }> {
  const SQL = await loadSqlJs();
  await removeStaleTemporaries(file);
  const report: OpenReport = {};
  // A FIFO or a link in the session's place is not a session: moved aside like a damaged file, below.
  const existing = await readSessionFile(file).catch((error: unknown) => {
    if (error instanceof NotRegularFile) return error;
    throw error;
  });
  if (existing) {
    let db: Database | undefined;
    try {
      if (existing instanceof NotRegularFile) throw existing;
      if (!existing.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC)) throw new Error('not an SQLite database');
      db = new SQL.Database(existing);
      applyPragmas(db);
      const layout = layoutOf(db, file);
      checkWhole(db, existing.length);
      await removeOrphanSegments(file, layout === 1 ? new Set() : namedSegments(db), report);
      if (layout === 1) await migrate(db, file, hooks);
      addMissingParts(db);
      dropStaleSummaries(db);
      await checkSegments(db, file, report);
      return { db, report, resumed: true };
    } catch (error) {
      db?.close();
      if (error instanceof RecallError) throw error;
      const aside = await moveAside(file, 'corrupt');
      report.movedAside = { path: aside, reason: describeError(error) };
      // Its content, kept beside it: without that index nothing names it.
      for (const segment of await segmentsOnDisk(file)) await fs.rename(segment.path, `${aside}.segment.${segment.n}`);
    }
  }
  await removeOrphanSegments(file, new Set(), report);
  const db = new SQL.Database();
  applyPragmas(db);
  db.exec(SCHEMA);
  const now = String(Date.now());
  const entries: [string, string][] = [
    ['schema_version', String(SCHEMA_VERSION)],
    ['session_id', sessionId],
    ['created_at', now],
  ];
  if (forkedFrom) entries.push(['forked_from', forkedFrom]);
  for (const entry of entries) db.run('INSERT INTO session (key, value) VALUES (?, ?)', entry);
  return { db, report, resumed: false };
}

/** A failed migration is not a damaged file: the old file is left as it was, and the next open tries again. */
async function migrate(db: Database, file: string, hooks: MigrationHooks | undefined): Promise<void> {
  try {
    await migrateLayout1(db, file, hooks);
  } catch (error) {
    throw new RecallError(
      'STORE_UNAVAILABLE',
      `The session file ${file}, written by an earlier version, could not be migrated to this version's layout (${describeError(error)}). It is left as it was; the next open tries again.`,
      { reason: 'migrationFailed' },
    );
  }
}

const namedSegments = (db: Database): Set<number> => new Set(queryRows<{ n: number }>(db, 'SELECT n FROM segments').map((row) => row.n));

/**
 * Damage the queries above miss, which SQLite would meet only later, reading a copy ("database disk
 * image is malformed", with no code for the caller), and bytes after the last page, which no
 * checkpoint writes (something else wrote to the file). PRAGMA quick_check reads every page: of
 * the index only (a few KiB per output; segments are checked by size here and by SQLite when read),
 * but of the whole session in a layout-1 file about to be migrated (on a 64 MiB session, measured
 * on a loaded 2-core VM, about +1 s to the first open in a process, median of 9). integrity_check would add index-against-table
 * checks, for damage that shows as a missing output rather than a malformed file. Runs before
 * anything is written to the database (a write can truncate the extra bytes away).
 */
function checkWhole(db: Database, fileBytes: number): void {
  let problems: string[];
  try {
    problems = queryRows<Record<string, string>>(db, 'PRAGMA quick_check(3)')
      .flatMap((row) => String(Object.values(row)[0]).split('\n'))
      .filter((line) => !line.startsWith('***'));
  } catch (error) {
    // Some damage stops the check itself ("database disk image is malformed").
    problems = [describeError(error)];
  }
  if (problems.join() !== 'ok') throw new Error(`damaged pages (PRAGMA quick_check: ${problems.join('; ')})`);
  const [{ page_count: pages }] = queryRows<{ page_count: number }>(db, 'PRAGMA page_count');
  const [{ page_size: pageSize }] = queryRows<{ page_size: number }>(db, 'PRAGMA page_size');
  if (fileBytes !== pages * pageSize) {
    throw new Error(
      `the file holds ${fileBytes} bytes, but its ${pages} pages of ${pageSize} bytes make ${pages * pageSize}: bytes were added to it or cut from it after it was written`,
    );
  }
}
