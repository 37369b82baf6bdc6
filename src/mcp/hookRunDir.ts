/**
 * Where stdio servers announce themselves to hooks: one folder per user, only theirs, holding per
 * server `<pid>.sock` (a Unix socket the server listens on) and `<pid>.json` (its ancestors and
 * session). A hook run by the same agent finds its server there (hookClient.ts).
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** What a server writes beside its socket. */
export interface ServerAnnouncement {
  pid: number;
  /** The server's ancestors, nearest first (ancestry.ts): its agent is among them. */
  ancestors: number[];
  sessionId: string;
  workspace: string;
}

const uid = (): number => process.getuid?.() ?? 0;

/** The folder (`<tmp>/tool-output-recall-<uid>`), or undefined on Windows, where hooks find no server. */
export function hookRunDir(): string | undefined {
  return process.platform === 'win32' ? undefined : path.join(os.tmpdir(), `tool-output-recall-${uid()}`);
}

/**
 * Makes the folder if needed and checks that it is a real folder owned by this user that nobody
 * else can enter; throws otherwise (another user's folder of that name, or a link, would let them
 * read what hooks send or answer in a server's place).
 */
export async function ensureRunDir(dir: string): Promise<void> {
  await fs.mkdir(dir, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  await checkRunDir(dir);
}

export async function checkRunDir(dir: string): Promise<void> {
  const stat = await fs.lstat(dir);
  if (!stat.isDirectory()) throw new Error(`${dir} is not a folder`);
  if (stat.uid !== uid()) throw new Error(`${dir} belongs to another user`);
  if ((stat.mode & 0o077) !== 0) throw new Error(`${dir} is open to other users (mode ${(stat.mode & 0o777).toString(8)})`);
}
