/**
 * Reading another process's live session files as one state of their owner, never torn (see
 * readOnlySession.ts for the steps): the index read whole through one descriptor, its journals'
 * records, and a second look that proves no checkpoint ran in between.
 */
import { promises as fs, statSync, type BigIntStats } from 'node:fs';
import { RecallError } from '../errors';
import { parseJournal, type JournalEntry } from './journal';
import { journalFiles, journalsAmong, openSessionFile } from './sessionFiles';

/** Starts over this many times while the owner keeps checkpointing under the reader, then gives up. */
const MAX_ATTEMPTS = 50;

/** One version of one file: its path, which file it is (device and inode), and its size and times. */
interface Mark {
  path: string;
  identity: string;
  version: string;
}
const markOf = (path: string, st: BigIntStats): Mark => ({
  path,
  identity: `${st.dev}:${st.ino}`,
  version: `${st.size}:${st.mtimeNs}:${st.ctimeNs}`,
});

/** A journal's mark; one listed but gone by its stat (rotated, or dropped by a checkpoint) is marked so. */
const journalMark = (path: string, st: BigIntStats | undefined): Mark => (st ? markOf(path, st) : { path, identity: 'gone', version: '' });

/** The session file's mark, then its journals' in replay order. */
export type Signature = Mark[];

export const signatureText = (signature: Signature): string => signature.map((m) => `${m.path}=${m.identity}:${m.version}`).join('|');

export interface RawView {
  /** How many reads it took (more than 1: a checkpoint ran under the reader). */
  attempts: number;
  /** The session file, open: see readView. */
  handle: fs.FileHandle;
  bytes: Buffer;
  entries: JournalEntry[];
  journalBytes: number;
  signature: Signature;
}

/** The marks of the session file and its journals as they are now; undefined when the session file is gone. */
export async function currentSignature(file: string): Promise<Signature | undefined> {
  const db = await fs.stat(file, { bigint: true }).catch(() => undefined);
  if (!db) return undefined;
  const marks = [markOf(file, db)];
  for (const journal of await journalFiles(file)) {
    marks.push(journalMark(journal, await fs.stat(journal, { bigint: true }).catch(() => undefined)));
  }
  return marks;
}

/**
 * currentSignature from `names`, a listing of the file's folder taken just before and shared by the sessions
 * there, on a thread of its own (the search worker's): a search across outputs looks at every session at each
 * page, and there a listing per session, and a wait for each of its stats on the thread pool, were a sixth of
 * every page of a common word (0.5 s of 3.8 for 136 pages of ten sessions).
 */
export function signatureAmong(file: string, names: string[]): Signature | undefined {
  const db = statSync(file, { bigint: true, throwIfNoEntry: false });
  if (!db) return undefined;
  const marks = [markOf(file, db)];
  for (const journal of journalsAmong(file, names)) {
    marks.push(journalMark(journal, statSync(journal, { bigint: true, throwIfNoEntry: false })));
  }
  return marks;
}

/** A file's content and the mark of the version read (through one descriptor). */
async function readOpen(handle: fs.FileHandle, file: string): Promise<{ bytes: Buffer; mark: Mark }> {
  const st = await handle.stat({ bigint: true });
  return { bytes: await handle.readFile(), mark: markOf(file, st) };
}

/**
 * Steps 1-3 above: the file and its journal records, as one state of the owner. The session file
 * stays open (the view keeps the descriptor): while it is open its inode cannot be freed and given
 * to a newer version, so "the path still names the inode read" is exact even when two checkpoints
 * write files of one size within one tick of the file system's clock (seen here: 4 ms ticks).
 */
export async function readView(file: string): Promise<RawView> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const handle = await openSessionFile(file);
    if (!handle) {
      throw new RecallError(
        'NOT_FOUND',
        `The session file ${file} is gone (the session was deleted or pruned); its outputs can no longer be read.`,
      );
    }
    let kept = false;
    try {
      const db = await readOpen(handle, file);
      const entries: JournalEntry[] = [];
      const marks: Signature = [db.mark];
      let journalBytes = 0;
      let lastSeq = 0;
      let whole = true;
      for (const journal of await journalFiles(file)) {
        const journalHandle = await openSessionFile(journal);
        // Removed between the listing and the read: a checkpoint finished; its records are in a newer file.
        if (!journalHandle) {
          whole = false;
          break;
        }
        const read = await readOpen(journalHandle, journal).finally(() => journalHandle.close());
        // A torn tail is the record being appended: the records before it stand. Damaged bytes are
        // skipped as the owner's replay skips them, the records after them kept.
        const parsed = parseJournal(read.bytes, lastSeq);
        lastSeq = parsed.lastSeq;
        entries.push(...parsed.entries);
        journalBytes += read.bytes.length;
        marks.push(read.mark);
      }
      if (!whole) continue;
      const now = await currentSignature(file);
      if (now && continuesFrom(now, marks)) {
        kept = true;
        return { attempts: attempt + 1, handle, bytes: db.bytes, entries, journalBytes, signature: marks };
      }
    } finally {
      if (!kept) await handle.close();
    }
  }
  throw new RecallError(
    'STORE_UNAVAILABLE',
    `The session file ${file} changed under every one of ${MAX_ATTEMPTS} reads (its owner keeps checkpointing); try again in a moment.`,
  );
}

/**
 * Whether the files now are the files that were read, in the same versions, except that the last
 * journal may have grown since: appends to the current journal continue the state that was read.
 * Anything else (the session file replaced, a journal rotated or removed) means a checkpoint ran.
 */
function continuesFrom(now: Signature, read: Signature): boolean {
  if (now.length !== read.length) return false;
  return now.every(
    (mark, index) =>
      mark.path === read[index].path &&
      mark.identity === read[index].identity &&
      (mark.version === read[index].version || (index > 0 && index === now.length - 1)),
  );
}
