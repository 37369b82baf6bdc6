import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import { readSessionFile } from './sessionFiles';

/**
 * An exclusive claim on a session file by one process, so two windows on the same workspace never
 * write the same session. The lock is a small file created with O_EXCL; a lock whose process is
 * gone (a crashed window) is stale and taken over.
 */
export interface SessionLock {
  readonly file: string;
  release(): Promise<void>;
}

interface LockOwner {
  pid: number;
  host: string;
  at: number;
}

export const lockFileFor = (sessionFile: string): string => `${sessionFile}.lock`;

/** Takes the lock, or returns undefined when another live process holds it. */
export async function tryLockSession(sessionFile: string): Promise<SessionLock | undefined> {
  const file = lockFileFor(sessionFile);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const handle = await fs.open(file, 'wx', 0o600);
      const owner: LockOwner = { pid: process.pid, host: os.hostname(), at: Date.now() };
      await handle.writeFile(JSON.stringify(owner));
      await handle.close();
      return { file, release: () => releaseIfOurs(file) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = await readOwner(file);
    if (owner && isHeld(owner)) return undefined;
    // Stale (dead process, or unreadable half-written file): remove and try again.
    await fs.rm(file, { force: true });
  }
  return undefined;
}

/** Whether a live process other than this one holds the session. */
export async function isSessionLocked(sessionFile: string): Promise<boolean> {
  const owner = await readOwner(lockFileFor(sessionFile));
  return owner !== undefined && isHeld(owner) && owner.pid !== process.pid;
}

async function readOwner(file: string): Promise<LockOwner | undefined> {
  try {
    // Not fs.readFile: a FIFO in the lock's place would hold it forever. Unreadable reads as stale.
    const bytes = await readSessionFile(file);
    const owner = bytes && (JSON.parse(bytes.toString('utf8')) as LockOwner);
    return owner && Number.isInteger(owner.pid) ? owner : undefined;
  } catch {
    return undefined;
  }
}

function isHeld(owner: LockOwner): boolean {
  // A lock from another machine (a shared folder) cannot be checked; treat it as held.
  if (owner.host !== os.hostname()) return true;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function releaseIfOurs(file: string): Promise<void> {
  const owner = await readOwner(file);
  if (owner?.pid === process.pid && owner.host === os.hostname()) await fs.rm(file, { force: true });
}
