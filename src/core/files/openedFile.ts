/**
 * Opening a file the tools read, so that what is checked is what is read:
 *
 *   - The path is resolved (symlinks too), then that real path is opened with O_NONBLOCK (opening a
 *     FIFO or a device never waits: a blocked open would hold one of libuv's four pool threads for
 *     good, and after four every file and process call of the server, or of the extension host,
 *     waits behind them) and O_NOFOLLOW (a link swapped in for the file after it was resolved is
 *     refused, not followed).
 *   - The descriptor is then checked, not the path: fstat (a regular file, its link count), and
 *     what it is on disk, its real path, read back from /proc/self/fd on Linux. The callers' policy
 *     (readablePath.ts) runs on that path, and the file is read only through this descriptor, so a
 *     folder swapped for a link between the check and the read cannot lead the read elsewhere.
 *   - Kernel, process and device files (/proc, /sys, /dev) are refused before opening and again
 *     after: their "regular" files are live state (/proc/self/environ is the server's environment).
 *
 * Where /proc is not there (macOS, Windows), the fallback checks, after the open, that the path
 * still resolves to the same real path and that it names the very file the descriptor is (device
 * and inode); a swap would have to be undone between those two checks to pass unnoticed.
 */
import { constants, promises as fs, type Stats } from 'node:fs';
import { RecallError } from '../errors';

/** Read-only, never blocking on a FIFO or device, never following a link in the last component (flags Windows lacks are 0). */
export const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);

/** A regular file, open for reading. Read it only through `handle`; close it when done. */
export interface OpenedFile {
  readonly handle: fs.FileHandle;
  /** What the descriptor is on disk: its real path (the policy's subject, the line index's key). */
  readonly path: string;
  /** fstat of the descriptor once open. */
  readonly stats: Stats;
}

/** Folders whose files are kernel, process or device state: never read, whatever the settings. */
const SPECIAL_FOLDERS = ['/proc', '/sys', '/dev'];

/** The special folder `real` lies in, if any (POSIX paths only; Windows has none of them). */
export function specialFolder(real: string): string | undefined {
  if (process.platform === 'win32') return undefined;
  return SPECIAL_FOLDERS.find((folder) => real === folder || real.startsWith(`${folder}/`));
}

export interface OpenOptions {
  /** The path as the model gave it, for messages. */
  shown: string;
  /** The tool reading, for messages. */
  tool: string;
  /** Appended to "Check the path" when the file does not exist (e.g. where relative paths start). */
  hint?: string;
}

/**
 * Opens `absolute` (an absolute path) for reading, as the module comment describes. Throws a
 * RecallError: NOT_FOUND (no such file), INVALID_ARGUMENT (a directory, FIFO, socket or device),
 * REFUSED (under /proc, /sys or /dev, or swapped for a link while being opened).
 */
export async function openRegularFile(absolute: string, options: OpenOptions): Promise<OpenedFile> {
  const real = await fs.realpath(absolute).catch((error: NodeJS.ErrnoException) => {
    throw error.code === 'ELOOP'
      ? new RecallError('INVALID_ARGUMENT', `${options.shown} leads into a loop of symbolic links; pass the path of a file.`, {
          errno: error.code,
        })
      : openError(error, absolute, options);
  });
  refuseSpecial(real, options);
  // Refused before opening in the usual case (no open of a FIFO at all); the fstat below decides.
  refuseIrregular(
    await fs.stat(real).catch((error: NodeJS.ErrnoException) => {
      throw openError(error, absolute, options);
    }),
    options,
  );
  const handle = await fs.open(real, READ_FLAGS).catch((error: NodeJS.ErrnoException) => {
    throw openError(error, absolute, options);
  });
  try {
    const stats = await handle.stat();
    refuseIrregular(stats, options);
    const path = await descriptorPath(handle, absolute, real, stats, options);
    refuseSpecial(path, options);
    return { handle, path, stats };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Opens `file` as openRegularFile does, runs `work` on it and closes it. */
export async function withRegularFile<T>(file: string, options: OpenOptions, work: (opened: OpenedFile) => Promise<T>): Promise<T> {
  const opened = await openRegularFile(file, options);
  try {
    return await work(opened);
  } finally {
    await opened.handle.close();
  }
}

/** What the descriptor is: on Linux its path from /proc/self/fd; elsewhere `real`, once it is shown to still be this file. */
async function descriptorPath(handle: fs.FileHandle, absolute: string, real: string, stats: Stats, options: OpenOptions): Promise<string> {
  if (process.platform === 'linux') {
    const linked = await fs.readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
    if (linked?.startsWith('/')) {
      // The kernel appends " (deleted)" to a file removed since: its name is no longer its own.
      if (linked.endsWith(' (deleted)') && (await handle.stat()).nlink === 0) throw changed(options, 'it was deleted while being opened');
      return linked;
    }
  }
  const [again, now] = await Promise.all([fs.realpath(absolute).catch(() => ''), fs.stat(real).catch(() => undefined)]);
  if (again !== real || now?.dev !== stats.dev || now.ino !== stats.ino)
    throw changed(options, `${absolute} no longer leads to the file that was opened`);
  return real;
}

function refuseSpecial(real: string, { shown, tool }: OpenOptions): void {
  const folder = specialFolder(real);
  if (folder) {
    throw new RecallError(
      'REFUSED',
      `${shown} resolves to ${real}, under ${folder}: ${tool} never reads kernel, process or device files (they hold live state, such as the server's environment), whatever the settings. Read a regular file instead; for a value from there, ask the user.`,
    );
  }
}

function refuseIrregular(stats: Stats, { shown, tool }: OpenOptions): void {
  if (stats.isFile()) return;
  const what = stats.isDirectory()
    ? 'a directory'
    : stats.isFIFO()
      ? 'a FIFO (named pipe)'
      : stats.isSocket()
        ? 'a socket'
        : stats.isCharacterDevice() || stats.isBlockDevice()
          ? 'a device'
          : 'not a regular file';
  const advice = stats.isDirectory()
    ? 'Pass the path of a file inside it.'
    : 'Reading one could wait forever. Pass a regular file (for a program that writes to a pipe: run it with run_command and read its output).';
  throw new RecallError('INVALID_ARGUMENT', `${shown} is ${what}; ${tool} reads regular files only. ${advice}`);
}

const changed = ({ shown, tool }: OpenOptions, what: string): RecallError =>
  new RecallError(
    'REFUSED',
    `${shown} changed while ${tool} was opening it (${what}); it reads only the file it checked. Call again once the file has stopped changing.`,
  );

function openError(error: NodeJS.ErrnoException, absolute: string, options: OpenOptions): Error {
  const { shown, tool, hint = '' } = options;
  switch (error.code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return new RecallError(
        'NOT_FOUND',
        `${shown} does not exist${absolute === shown ? '' : ` (${absolute})`}. Check the path${hint} (list the folder first), then call ${tool} again.`,
        { errno: error.code },
      );
    case 'ELOOP': // O_NOFOLLOW on a link (realpath's own ELOOP, a loop, is caught before)
    case 'EMLINK': // the same on FreeBSD
      return changed(options, 'a symbolic link took its place after its path was resolved');
    case 'ENXIO': // a socket, or a FIFO opened for writing
      return new RecallError('INVALID_ARGUMENT', `${shown} is not a regular file; ${tool} reads regular files only.`, {
        errno: error.code,
      });
    case 'EACCES':
    case 'EPERM':
      return new RecallError('REFUSED', `${shown} cannot be read: permission denied. Ask the user for the part you need.`, {
        errno: error.code,
      });
    default:
      return error;
  }
}
