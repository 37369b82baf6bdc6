/**
 * The messages between the entry (front.ts, the process the client started) and the stdio server in
 * the child process it forks (stdioChild.ts), over their IPC channel, and what the server leaves
 * behind that its end must remove (`Leftovers`).
 */
import { closeSync, constants, fstatSync, openSync, readSync, unlinkSync } from 'node:fs';
import * as os from 'node:os';

/** From the entry: a chunk of stdin, stdin's end, or a request to stop (a signal). */
export type FromFront = { kind: 'in'; data: Uint8Array } | { kind: 'end' } | { kind: 'stop'; why: string };

/**
 * From the server: one message for stdout, that the server now answers everything, or what must be
 * removed when it ends (each time that changes: the entry removes the door's files at a stop).
 */
export type ToFront = { kind: 'out'; data: string } | { kind: 'ready' } | { kind: 'leftovers'; leftovers: Leftovers };

/** The files a server must not leave behind: its hook door's (hookListener.ts) and its session's lock. */
export interface Leftovers {
  /**
   * The door's announcement and socket: hooks look for servers there, so they go the moment the server
   * is told to stop. Named before they are made (a stop meanwhile removes them before they exist, and
   * the server again once its door has opened); undefined until then, [] when there is no door.
   */
  door?: readonly string[];
  /** The session's lock file: released only as the server's process ends, once nothing of it writes the session any more. */
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
