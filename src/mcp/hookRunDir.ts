/**
 * Where stdio servers announce themselves to hooks: a folder only this user can enter, holding per
 * server `<pid>.sock` (a Unix socket the server listens on) and `<pid>.json` (its ancestors and
 * session). A hook run by the same agent finds its server there (hookClient.ts).
 *
 * `$XDG_RUNTIME_DIR/tool-output-recall` where the system gives this user a runtime folder (nobody
 * else can create anything in it). Elsewhere a folder of an unpredictable name in the temp folder,
 * `tool-output-recall-<uid>-<random>`, made by mkdtemp (exclusive, mode 0700): a fixed name there
 * could be created first by another local user, which turned every hook off. Hooks look in each such
 * folder that passes the checks and skip the others silently.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describeError } from '../core/errors';

/** What a server writes beside its socket. */
export interface ServerAnnouncement {
  pid: number;
  /** The server's ancestors, nearest first (ancestry.ts): its agent is among them. */
  ancestors: number[];
  sessionId: string;
  workspace: string;
}

const NAME = 'tool-output-recall';
/** How the log and the session's record say the door is in the runtime folder. */
export const IN_XDG_RUNTIME_DIR = '$XDG_RUNTIME_DIR';

const uid = (): number => process.getuid?.() ?? 0;
/** The temp folder's run folders of this user are named this, then mkdtemp's random part. */
const tmpPrefix = (): string => `${NAME}-${uid()}-`;

/**
 * Throws unless `dir` is a real folder (not a link) owned by this user that nobody else can enter:
 * another user's folder, or a link, would let them read what hooks send or answer in a server's place.
 */
export async function checkRunDir(dir: string): Promise<void> {
  const stat = await fs.lstat(dir);
  if (!stat.isDirectory()) throw new Error(`${dir} is not a folder`);
  if (stat.uid !== uid()) throw new Error(`${dir} belongs to another user`);
  if ((stat.mode & 0o077) !== 0) throw new Error(`${dir} is open to other users (mode ${(stat.mode & 0o777).toString(8)})`);
}

/** Makes `dir` (mode 0700) if needed, then checks it (checkRunDir). */
export async function ensureRunDir(dir: string): Promise<void> {
  await fs.mkdir(dir, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  await checkRunDir(dir);
}

const passes = (dir: string): Promise<boolean> =>
  checkRunDir(dir).then(
    () => true,
    () => false,
  );

/** `$XDG_RUNTIME_DIR/tool-output-recall` when the runtime folder can be trusted, or why not. */
async function xdgRunDir(): Promise<{ dir: string } | { why: string }> {
  const runtime = process.env.XDG_RUNTIME_DIR;
  if (!runtime) return { why: 'no XDG_RUNTIME_DIR' };
  if (!path.isAbsolute(runtime)) return { why: `XDG_RUNTIME_DIR ${JSON.stringify(runtime)} is not an absolute path` };
  try {
    await checkRunDir(runtime);
  } catch (error) {
    return { why: `XDG_RUNTIME_DIR not used: ${describeError(error)}` };
  }
  return { dir: path.join(runtime, NAME) };
}

/** This user's run folders in the temp folder that pass the checks. */
async function tmpRunDirs(): Promise<string[]> {
  const tmp = os.tmpdir();
  const prefix = tmpPrefix();
  const names = (await fs.readdir(tmp).catch(() => [] as string[])).filter((name) => name.startsWith(prefix)).sort();
  const dirs = names.map((name) => path.join(tmp, name));
  const ok = await Promise.all(dirs.map(passes));
  return dirs.filter((_, i) => ok[i]);
}

/**
 * The folders a hook looks in for servers, checked (possibly none): the runtime folder's first, then
 * the temp folder's. Both, because a server may have been started without XDG_RUNTIME_DIR. None on
 * Windows, where servers open no door.
 */
export async function findRunDirs(): Promise<string[]> {
  if (process.platform === 'win32') return [];
  const xdg = await xdgRunDir();
  const own = 'dir' in xdg && (await passes(xdg.dir)) ? [xdg.dir] : [];
  return [...own, ...(await tmpRunDirs())];
}

/**
 * The folder a server opens its door in, made if needed, and how it was chosen (for the log and the
 * session's record): `$XDG_RUNTIME_DIR`, or why not and the temp folder. In the temp folder an
 * existing run folder of this user is reused, else a fresh one is made. Throws on Windows, or when
 * no folder can be made.
 */
export async function openRunDir(): Promise<{ dir: string; how: string }> {
  if (process.platform === 'win32') throw new Error('hooks reach a server through a Unix socket, which servers do not open on Windows');
  const xdg = await xdgRunDir();
  let why: string;
  if ('dir' in xdg) {
    try {
      await ensureRunDir(xdg.dir);
      return { dir: xdg.dir, how: IN_XDG_RUNTIME_DIR };
    } catch (error) {
      // Only this user (or root) can have put something there; the temp folder still works.
      why = `$XDG_RUNTIME_DIR/${NAME} not used: ${describeError(error)}`;
    }
  } else {
    why = xdg.why;
  }
  const [existing] = await tmpRunDirs();
  if (existing) return { dir: existing, how: why };
  const made = await fs.mkdtemp(path.join(os.tmpdir(), tmpPrefix()));
  await checkRunDir(made);
  return { dir: made, how: why };
}
