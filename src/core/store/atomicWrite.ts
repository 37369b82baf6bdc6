import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * Replaces `file` with `data` so that a crash at any moment leaves either the old file or the new
 * one, never a torn one: write a temporary file beside it, fsync it, rename it over the target
 * (atomic within one directory on POSIX), then fsync the directory so the rename itself is durable.
 */
export async function atomicWriteFile(file: string, data: Uint8Array): Promise<void> {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(temp, 'wx', 0o600);
    await handle.writeFile(data);
    await handle.sync();
    await handle.close();
    handle = undefined;
    await fs.rename(temp, file);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await fs.rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
  await syncDirectory(path.dirname(file));
}

/** Makes a rename or a new file in `dir` durable. */
export async function syncDirectory(dir: string): Promise<void> {
  // Directories cannot be opened for fsync on Windows; there the rename is as durable as it gets.
  if (process.platform === 'win32') return;
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
