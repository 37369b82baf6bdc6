import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Database } from 'sql.js';
import { describeError } from '../errors';
import { isSessionIdShape } from '../ids';
import type { OpenReport } from '../types';
import { loadSqlJs } from './sqljs';
import { SCHEMA, SCHEMA_VERSION, applyPragmas, queryRows } from './schema';

const SUFFIX = '.sqlite';
const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

export const sessionFile = (dir: string, sessionId: string): string => path.join(dir, `${sessionId}${SUFFIX}`);

export interface SessionFileInfo {
  sessionId: string;
  file: string;
  bytes: number;
  modifiedAt: number;
}

/** The sessions stored in `dir`, most recently written first. */
export async function listSessions(dir: string): Promise<SessionFileInfo[]> {
  const names = await fs.readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  const sessions: SessionFileInfo[] = [];
  for (const name of names) {
    const sessionId = name.slice(0, -SUFFIX.length);
    if (!name.endsWith(SUFFIX) || !isSessionIdShape(sessionId)) continue;
    const file = path.join(dir, name);
    const stat = await fs.stat(file).catch(() => undefined);
    if (stat?.isFile()) sessions.push({ sessionId, file, bytes: stat.size, modifiedAt: stat.mtimeMs });
  }
  return sessions.sort((a, b) => b.modifiedAt - a.modifiedAt);
}

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
      return { db, report, resumed: true };
    } catch (error) {
      db?.close();
      const aside = `${file}.corrupt-${Date.now()}-${randomBytes(3).toString('hex')}`;
      await fs.rename(file, aside);
      report.movedAside = { path: aside, reason: describeError(error) };
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

/** A crash between writing and renaming leaves a temporary file; drop those of dead processes. */
async function removeStaleTemporaries(file: string): Promise<void> {
  const dir = path.dirname(file);
  const prefix = `.${path.basename(file)}.`;
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
    const pid = Number(name.slice(prefix.length).split('.')[0]);
    if (!isAlive(pid)) await fs.rm(path.join(dir, name), { force: true });
  }
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
