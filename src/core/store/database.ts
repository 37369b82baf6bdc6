/** Opening a session's database file: a readable session of this schema, or a fresh one. */
import { promises as fs } from 'node:fs';
import type { Database } from 'sql.js';
import { describeError } from '../errors';
import type { OpenReport } from '../types';
import { loadSqlJs } from './sqljs';
import { SCHEMA, SCHEMA_VERSION, addMissingColumns, applyPragmas, queryRows } from './schema';
import { moveAside, removeStaleTemporaries } from './sessionFiles';

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * Opens (or creates) a session database. A file that is not a readable session of this schema is
 * renamed aside, kept for the user, and reported; the session then starts empty instead of failing.
 */
export async function openDatabase(
  file: string,
  sessionId: string,
  forkedFrom?: string,
): Promise<{ db: Database; report: OpenReport; resumed: boolean }> {
  const SQL = await loadSqlJs();
  await removeStaleTemporaries(file);
  const report: OpenReport = {};
  const existing = await fs.readFile(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (existing) {
    let db: Database | undefined;
    try {
      if (!existing.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC)) throw new Error('not an SQLite database');
      db = new SQL.Database(existing);
      applyPragmas(db);
      const [version] = queryRows<{ value: string }>(db, "SELECT value FROM session WHERE key = 'schema_version'");
      if (Number(version?.value) !== SCHEMA_VERSION)
        throw new Error(`schema version ${version?.value ?? 'missing'}, expected ${SCHEMA_VERSION}`);
      queryRows(db, 'SELECT count(*) FROM outputs');
      queryRows(db, 'SELECT count(*) FROM chunks');
      checkWhole(db, existing.length);
      addMissingColumns(db);
      return { db, report, resumed: true };
    } catch (error) {
      db?.close();
      report.movedAside = { path: await moveAside(file, 'corrupt'), reason: describeError(error) };
    }
  }
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

/**
 * Damage the queries above miss, which SQLite would meet only later, reading a copy ("database disk
 * image is malformed", with no code for the caller), and bytes after the last page, which no
 * checkpoint writes (something else wrote to the file). PRAGMA quick_check reads every page, the
 * copies' content too (its NOT NULL check), so it costs about what reading the whole session once
 * does: on a 64 MiB session, measured on a loaded 2-core VM, about +1 s to the first open in a
 * process (median of 9) and 20 to 140 ms after. integrity_check would add index-against-table
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
