/**
 * The messages between the entry (front.ts, the main thread) and the stdio server in its worker
 * (stdioWorker.ts), and what the process leaves behind that its end must remove (`Leftovers`).
 */
import { closeSync, constants, fstatSync, openSync, readSync, unlinkSync } from 'node:fs';
import * as os from 'node:os';

/** From the entry: a chunk of stdin, stdin's end, or a request to stop (a signal). */
export type FromFront = { kind: 'in'; data: Buffer } | { kind: 'end' } | { kind: 'stop'; why: string };

/**
 * From the server: its thread's id (Linux: the task whose children are the commands it runs), one
 * message for stdout, that the server now answers everything, what the process must remove when it
 * ends (each time that changes), or that it has stopped and the program ends with `code`.
 */
export type ToFront =
  | { kind: 'thread'; tid: number }
  | { kind: 'out'; data: string }
  | { kind: 'ready' }
  | { kind: 'leftovers'; leftovers: Leftovers }
  | { kind: 'exit'; code: number; leftovers: Leftovers };

/** The files a server must not leave behind: its hook door's (hookListener.ts) and its session's lock. */
export interface Leftovers {
  /**
   * The door's announcement and socket: hooks look for servers there, so they go the moment the server
   * is told to stop. Undefined until the door has opened or failed to ([] then): until then a stop goes
   * through the server, which waits for a door that is opening.
   */
  door?: readonly string[];
  /** The session's lock file: released only as the process ends, once nothing of this process writes the session any more. */
  lock?: string;
}

/** Removes the door's files now, synchronously; one that is gone already is no error. */
export function removeDoorNow(leftovers: Leftovers): void {
  for (const file of leftovers.door ?? []) {
    try {
      unlinkSync(file);
    } catch {
      // gone already (removed once at the signal, again at the end)
    }
  }
}

/** The most a lock file holds (sessionLock.ts writes a pid, a host name and a time). */
const MAX_LOCK_BYTES = 4096;

/**
 * Removes the door's files and releases the lock, synchronously: the last thing before the process
 * ends. The lock is removed only while it still names this process on this host, as sessionLock.ts's
 * own release does; it is read without blocking (a FIFO in its place would hold the exit) or following a link.
 */
export function removeLeftoversNow(leftovers: Leftovers): void {
  removeDoorNow(leftovers);
  if (leftovers.lock === undefined) return;
  let fd: number | undefined;
  try {
    fd = openSync(leftovers.lock, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    if (!fstatSync(fd).isFile()) return;
    const bytes = Buffer.alloc(MAX_LOCK_BYTES);
    const owner = JSON.parse(bytes.subarray(0, readSync(fd, bytes, 0, MAX_LOCK_BYTES, 0)).toString('utf8')) as {
      pid?: unknown;
      host?: unknown;
    };
    if (owner.pid === process.pid && owner.host === os.hostname()) unlinkSync(leftovers.lock);
  } catch {
    // gone, unreadable or not ours: left for its owner, or as a stale lock the next opener takes over
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
