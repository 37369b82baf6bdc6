/**
 * The HTTP server's bearer token. 127.0.0.1 is reachable by every local user, and a request that
 * gets past the token runs commands as the server's user, so HTTP never runs without one: the token
 * given (`--token`, TOOL_OUTPUT_RECALL_MCP_TOKEN) or the one in a file only the user can read,
 *
 *   $XDG_STATE_HOME/tool-output-recall/mcp-http-token   (else ~/.local/state/…; or --token-file PATH)
 *
 * made on the first start and reused afterwards, so a client configured once keeps working across
 * restarts. The file is trusted only when it is a regular file (not a symlink), owned by the user and
 * unreadable by anyone else; otherwise the server refuses to start and says how to fix it, rather
 * than serve with a token another user may know.
 */
import { constants, promises as fs } from 'node:fs';
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { AGENT_STORE_APP, stateHome } from '../core/agentStore';
import { describeError } from '../core/errors';

export const TOKEN_ENV = 'TOOL_OUTPUT_RECALL_MCP_TOKEN';
export const TOKEN_FILE_NAME = 'mcp-http-token';
/** A token this short could be guessed; one made here is 43 characters (32 random bytes, base64url). */
export const MIN_TOKEN_CHARS = 16;
/** A token file is a line of text; a bigger one is not a token file. */
const MAX_TOKEN_FILE_BYTES = 4096;
const REMAKE = 'delete it and start the server again to have a new token made';

/** Where the token comes from: given (and how), or a file made or reused. */
export type TokenSource = { token: string; from: '--token' | typeof TOKEN_ENV } | { file: string };

/** The token and where a client finds it (for the log and the 401 answer; never the token itself). */
export interface BearerToken {
  token: string;
  where: string;
}

/** The token file when none is named: one per user, for every workspace, beside the session folders. */
export function defaultTokenFile(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(stateHome(env), AGENT_STORE_APP, TOKEN_FILE_NAME);
}

/** Why `token` cannot be a bearer token (it travels in an HTTP header), or undefined. */
export function tokenProblem(token: string): string | undefined {
  if (token.length < MIN_TOKEN_CHARS) return `must be at least ${MIN_TOKEN_CHARS} characters; it has ${token.length}`;
  if (!/^[\x21-\x7e]+$/.test(token)) return 'must be printable ASCII without spaces (it is sent in an HTTP header)';
  return undefined;
}

/** The token file cannot be trusted or used; the message names the file and the fix. */
export class TokenFileError extends Error {
  override readonly name = 'TokenFileError';
}

/** The token of `source`, reading or making the file. */
export async function bearerToken(source: TokenSource): Promise<BearerToken & { created: boolean }> {
  if ('token' in source) {
    const where = source.from === '--token' ? 'the one given with --token' : `the server's ${TOKEN_ENV}`;
    return { token: source.token, where, created: false };
  }
  const { token, created } = await tokenFromFile(source.file);
  return { token, where: `in ${source.file}`, created };
}

/**
 * The token in `file`, made first when the file does not exist: written whole to a fresh temporary
 * file (O_EXCL, mode 0600) that is then hard-linked to the name, which fails when another server
 * made the file meanwhile. So no one ever reads a half-written token, and two servers starting at
 * once end up with the same one.
 */
export async function tokenFromFile(file: string): Promise<{ token: string; created: boolean }> {
  const existing = await readTokenFile(file);
  if (existing !== undefined) return { token: existing, created: false };
  const made = randomBytes(32).toString('base64url');
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    // 0700: only for folders made here; an existing state folder keeps its mode (the file's own checks hold).
    await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    const handle = await fs.open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      await handle.writeFile(`${made}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.link(temp, file).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
  } catch (error) {
    throw new TokenFileError(
      `cannot make the bearer token file ${file} (${describeError(error)}): name a file in a folder you can write with --token-file, or set ${TOKEN_ENV}.`,
    );
  } finally {
    await fs.unlink(temp).catch(() => undefined);
  }
  const token = await readTokenFile(file);
  if (token === undefined)
    throw new TokenFileError(`the bearer token file ${file} disappeared while it was being made; start the server again.`);
  return { token, created: token === made };
}

/** The token in `file` after the file's checks, or undefined when there is no such file. */
async function readTokenFile(file: string): Promise<string | undefined> {
  let handle: fs.FileHandle;
  try {
    // O_NOFOLLOW: a symlink is refused, not followed to whatever it names; O_NONBLOCK: a FIFO does not hang the start.
    handle = await fs.open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ENOTDIR (a file where a folder of the path should be): no token file; making one says why it cannot.
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    if (code === 'ELOOP') throw refuse(file, 'is a symbolic link; the token file must be a regular file');
    throw refuse(file, `cannot be read (${code ?? String(error)})`);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw refuse(file, 'is not a regular file');
    // Owner and mode bits mean nothing on Windows, where the file's folder is the user's own profile.
    if (process.platform !== 'win32') {
      const uid = process.getuid?.();
      if (uid !== undefined && stat.uid !== uid) {
        throw refuse(
          file,
          `belongs to uid ${stat.uid}, not to the user running the server (uid ${uid}), so its owner can read and change the token`,
        );
      }
      const mode = (stat.mode & 0o777).toString(8).padStart(4, '0');
      if ((stat.mode & 0o077) !== 0) {
        throw refuse(
          file,
          `can be read or changed by other users (mode ${mode})`,
          `run chmod 600 ${file} if no one else has read it, else ${REMAKE}`,
        );
      }
    }
    if (stat.size > MAX_TOKEN_FILE_BYTES) throw refuse(file, `is ${stat.size} bytes, not a token (one line)`);
    const token = (await handle.readFile('utf8')).trim();
    const problem = tokenProblem(token);
    if (problem) throw refuse(file, `holds no usable token: the token ${problem}`);
    return token;
  } finally {
    await handle.close();
  }
}

function refuse(file: string, why: string, fix = REMAKE): TokenFileError {
  return new TokenFileError(`the bearer token file ${file} ${why}: ${fix} (or name another file with --token-file, or set ${TOKEN_ENV}).`);
}
