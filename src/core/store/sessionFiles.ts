/**
 * Every file a session is made of, and their lifecycle, in one place:
 *   `<id>.sqlite`                 the index database, rewritten whole and atomically by each checkpoint
 *   `<id>.sqlite.segment.<n>`     content segments (segments.ts): written once, never changed, removed
 *                                 once no index names them (or, at open, when none does: a crash's orphan;
 *                                 at open, anything there that is not a regular file is moved aside)
 *   `<id>.sqlite.journal`         the current journal (records since the last rotation)
 *   `<id>.sqlite.journal.<n>`     rotated journals a checkpoint has not yet made redundant
 *   `<id>.sqlite.lock`            the owner's lock (sessionLock.ts)
 *   `<id>.sqlite.agent.json`      who keeps a session an MCP server writes (sessionAgent.ts)
 *   `.<id>.sqlite.<pid>.<r>.tmp`  a checkpoint's temporary file (atomicWrite.ts)
 *   `<file>.corrupt-…`, `<file>.torn-…`  files moved aside, kept for the user, never read again
 */
import { randomBytes } from 'node:crypto';
import { constants, fstatSync, openSync, closeSync, promises as fs, type Stats } from 'node:fs';
import * as path from 'node:path';
import { isSessionIdShape } from '../ids';

const SUFFIX = '.sqlite';

export const sessionFile = (dir: string, sessionId: string): string => path.join(dir, `${sessionId}${SUFFIX}`);

export const journalFile = (file: string): string => `${file}.journal`;

export const agentFile = (file: string): string => `${file}.agent.json`;

export const segmentFile = (file: string, n: number): string => `${file}.segment.${n}`;

export interface SessionFileInfo {
  sessionId: string;
  file: string;
  /** The index, its segments and its journals: what the session takes on disk (pruning and quotas count it all). */
  bytes: number;
  modifiedAt: number;
}

/** The sessions stored in `dir`, most recently written first, each with what it takes on disk (every file of it stat'ed). */
export function listSessions(dir: string): Promise<SessionFileInfo[]> {
  return sessionsInFolder(dir, true);
}

/**
 * The sessions stored in `dir`, most recently written first, without their sizes: a search's scope
 * needs only which sessions there are, and stat'ing every segment of every session cost each page
 * of a search across outputs more than its own reads. `modifiedAt` is the same: a segment is written
 * before the index that names it, so it is never the newest file.
 */
export function sessionsIn(dir: string): Promise<Omit<SessionFileInfo, 'bytes'>[]> {
  return sessionsInFolder(dir, false);
}

/** From one listing of the folder: a listing per session read the folder again for each. */
async function sessionsInFolder(dir: string, sizes: boolean): Promise<SessionFileInfo[]> {
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
    if (!stat?.isFile()) continue;
    let bytes = stat.size;
    let modifiedAt = stat.mtimeMs;
    // Its content is in segments, and a session whose checkpoints fail lives in its journals: count
    // them, and their recency.
    const { journals, segments, agent } = filesOf(file, names);
    for (const other of [...journals, ...(sizes ? segments : []), ...(agent ? [agent] : [])]) {
      const otherStat = await fs.stat(other).catch(() => undefined);
      bytes += otherStat?.size ?? 0;
      modifiedAt = Math.max(modifiedAt, otherStat?.mtimeMs ?? 0);
    }
    sessions.push({ sessionId, file, bytes, modifiedAt });
  }
  return sessions.sort((a, b) => b.modifiedAt - a.modifiedAt);
}

/** A session's journals (in replay order), segments (by number) and agent record, among the folder's `names`. */
function filesOf(file: string, names: string[]): { journals: string[]; segments: string[]; agent?: string } {
  const journals = journalsAmong(file, names);
  const segments = numberedIn(file, 'segment', names).map((segment) => segment.path);
  const agent = names.includes(path.basename(agentFile(file))) ? agentFile(file) : undefined;
  return { journals, segments, ...(agent ? { agent } : {}) };
}

/** The rotated journal files of `file`, oldest first, with their rotation numbers. */
export async function rotatedJournals(file: string): Promise<{ n: number; path: string }[]> {
  return numberedIn(file, 'journal', await fs.readdir(path.dirname(file)).catch(() => [] as string[]));
}

/** `<file>.<kind>.<n>` among `names`, by number. */
function numberedIn(file: string, kind: 'journal' | 'segment', names: string[]): { n: number; path: string }[] {
  const dir = path.dirname(file);
  const prefix = `${path.basename(file)}.${kind}.`;
  return names
    .filter((name) => name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length)))
    .map((name) => ({ n: Number(name.slice(prefix.length)), path: path.join(dir, name) }))
    .sort((a, b) => a.n - b.n);
}

/** The segment files of `file` on disk, by number (those an index names, and a crash's orphans). */
export async function segmentsOnDisk(file: string): Promise<{ n: number; path: string }[]> {
  return numberedIn(file, 'segment', await fs.readdir(path.dirname(file)).catch(() => [] as string[]));
}

/** The journals of `file` that exist, in replay order: rotated ones by number, then the current one. */
export async function journalFiles(file: string): Promise<string[]> {
  // From one listing: a rotation (a rename) between two looks could hide the journal from both,
  // which a reader of another process's live session would take for "no journal".
  return journalsAmong(file, await fs.readdir(path.dirname(file)).catch(() => [] as string[]));
}

/** The journals of `file` among `names`, one listing of its folder, in replay order. */
export function journalsAmong(file: string, names: string[]): string[] {
  // Not filesOf's: a search's page asks this of every session, and a folder holds every session's segments.
  const journals = numberedIn(file, 'journal', names).map((rotated) => rotated.path);
  if (names.includes(path.basename(journalFile(file)))) journals.push(journalFile(file));
  return journals;
}

/** Every file that makes up a session: the index, then its journals, its segments and its agent record (those that exist). */
export async function sessionFiles(file: string): Promise<string[]> {
  const { journals, segments, agent } = filesOf(file, await fs.readdir(path.dirname(file)).catch(() => [] as string[]));
  return [file, ...journals, ...segments, ...(agent ? [agent] : [])];
}

/** Deletes a session's index, segments and journals (kept-aside files are left for the user). */
export async function deleteSessionFiles(file: string): Promise<void> {
  for (const each of await sessionFiles(file)) await fs.rm(each, { force: true });
}

/**
 * A session's own file that is not a regular file: a FIFO, a folder, a device or a link put in its
 * place. Reading it could block forever (a FIFO with no writer wedges the store and every call
 * waiting on it) or read something the session never wrote.
 */
export class NotRegularFile extends Error {
  constructor(
    readonly file: string,
    kind: string,
  ) {
    super(`${file} is ${kind}, not a regular file; Tool Output Recall writes only regular files there`);
  }
}

// O_NONBLOCK: opening a FIFO returns at once instead of waiting for a writer; it changes nothing for
// a regular file. O_NOFOLLOW: a link in the session's folder is refused, not followed.
const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;

/** What a session's file is when it is not a regular file (from fstat, or lstat: a link is named, not followed); undefined for a regular file. */
export function notRegularKind(stat: Stats): string | undefined {
  if (stat.isFile()) return undefined;
  if (stat.isSymbolicLink()) return 'a symbolic link';
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isDirectory()) return 'a folder';
  if (stat.isSocket()) return 'a socket';
  return 'a device';
}

const refusedOpen = (file: string, error: unknown): unknown =>
  (error as NodeJS.ErrnoException).code === 'ELOOP' ? new NotRegularFile(file, 'a symbolic link') : error;

/** Opens one of a session's files for reading; undefined when it is not there, NotRegularFile when it is not a regular file. */
export async function openSessionFile(file: string): Promise<fs.FileHandle | undefined> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, READ_FLAGS);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw refusedOpen(file, error);
  }
  const kind = notRegularKind(await handle.stat());
  if (kind === undefined) return handle;
  await handle.close();
  throw new NotRegularFile(file, kind);
}

/** openSessionFile for the store's synchronous readers; a missing file is its ENOENT error. */
export function openSessionFileSync(file: string): number {
  let fd: number;
  try {
    fd = openSync(file, READ_FLAGS);
  } catch (error) {
    throw refusedOpen(file, error);
  }
  const kind = notRegularKind(fstatSync(fd));
  if (kind === undefined) return fd;
  closeSync(fd);
  throw new NotRegularFile(file, kind);
}

/** A session file's bytes, or undefined when it is not there. */
export async function readSessionFile(file: string): Promise<Buffer | undefined> {
  const handle = await openSessionFile(file);
  try {
    return await handle?.readFile();
  } finally {
    await handle?.close();
  }
}

/** A new name beside `file` for keeping it aside (see moveAside). */
export const asidePath = (file: string, why: 'corrupt' | 'torn'): string =>
  `${file}.${why}-${Date.now()}-${randomBytes(3).toString('hex')}`;

/** Renames a file that cannot be used out of the way, keeping it for the user; returns its new path. */
export async function moveAside(file: string, why: 'corrupt' | 'torn'): Promise<string> {
  const aside = asidePath(file, why);
  await fs.rename(file, aside);
  return aside;
}

/** A crash between writing and renaming leaves a temporary file; drop those of dead processes. */
export async function removeStaleTemporaries(file: string): Promise<void> {
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
