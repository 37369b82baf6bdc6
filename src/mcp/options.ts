/**
 * The command line: `tool-output-recall-mcp [--workspace DIR] [--store DIR] [--session ID]
 * [--http PORT [--token TOKEN | --token-file PATH]] [--sensitive-pattern P]... [limits…]`. Each limit is the extension's setting of the same name
 * (`sessions.maxCount` → `--sessions-max-count`, or the environment variable
 * `TOOL_OUTPUT_RECALL_SESSIONS_MAX_COUNT`), checked against the setting's schema in package.json and
 * defaulting to the setting's default, so both front ends enforce one set of limits.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { AGENT_STORE_APP, defaultStoreDir } from '../core/agentStore';
import { isSessionIdShape } from '../core/ids';
import { resolveSettings, type RecallSettings } from '../core/settings';
import { schemaProblem } from '../core/tools/inputCheck';
import { PACKAGE_VERSION, settingSchema } from '../core/manifest';
import { TOOL_NAMES } from '../core/tools/registry';
import { PROGRAM } from './log';
import { TOKEN_ENV, TOKEN_FILE_NAME, defaultTokenFile, tokenProblem, type TokenSource } from './token';

/** The settings an agent outside VS Code can set (historyBytes belongs to the @recall chat participant). */
export const SERVER_SETTINGS = [
  'previewBytes',
  'pageBytes',
  'copyBytes',
  'streamBytes',
  'sessionQuotaBytes',
  'sessions.maxCount',
  'sessions.maxAgeDays',
  'sessions.totalQuotaBytes',
  'store.journalLimitBytes',
  'runCommand.defaultTimeoutSeconds',
  'commands.maxConcurrent',
  'readFilePage.allowOutsideWorkspace',
] as const;

const ENV_PREFIX = 'TOOL_OUTPUT_RECALL_';
const SENSITIVE_KEY = 'readFilePage.sensitivePatterns';

export interface ServerOptions {
  /** The workspace's real path: the root of relative `cwd`s and file paths. */
  workspace: string;
  /** The folder of session files. */
  storeDir: string;
  /** Resume this session instead of starting one. */
  sessionId?: string;
  /** Serve Streamable HTTP on 127.0.0.1 instead of stdio (port 0: any free port), always behind a bearer token. */
  http?: { port: number; auth: TokenSource };
  settings: RecallSettings;
  /**
   * The preview size was set (`--preview-bytes` or its environment variable): it is used as given for
   * every client. Unset, the default is sized down for a client that would cut it (clients.ts), and
   * the user who raised that client's own limit sets the size they want.
   */
  previewBytesSet: boolean;
}

/** A command line that cannot work; the message says which option and why. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** `--sessions-max-count` for `sessions.maxCount`. */
export const flagFor = (key: string): string => key.replace(/\./g, '-').replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
/** `TOOL_OUTPUT_RECALL_SESSIONS_MAX_COUNT` for `sessions.maxCount`. */
export const envFor = (key: string): string => ENV_PREFIX + flagFor(key).replace(/-/g, '_').toUpperCase();

/** Parses the arguments (flags win over environment variables); `help`/`version` when asked for. */
export async function parseOptions(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string = process.cwd(),
): Promise<ServerOptions | { help: string } | { version: string }> {
  const settingFlags = Object.fromEntries(
    SERVER_SETTINGS.map((key) => [flagFor(key), { type: settingSchema(key)?.type === 'boolean' ? 'boolean' : 'string' } as const]),
  );
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        workspace: { type: 'string' },
        store: { type: 'string' },
        session: { type: 'string' },
        http: { type: 'string' },
        token: { type: 'string' },
        'token-file': { type: 'string' },
        'sensitive-pattern': { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
        ...settingFlags,
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const values = parsed.values as Record<string, string | boolean | string[] | undefined>;
  if (values.help) return { help: usage() };
  if (values.version) return { version: PACKAGE_VERSION };

  const workspace = await realDirectory(typeof values.workspace === 'string' ? path.resolve(cwd, values.workspace) : cwd, '--workspace');
  const storeDir = typeof values.store === 'string' ? path.resolve(cwd, values.store) : defaultStoreDir(workspace, env);
  const sessionId = values.session as string | undefined;
  if (sessionId !== undefined && !isSessionIdShape(sessionId)) {
    throw new UsageError(`--session ${JSON.stringify(sessionId)} is not a session ID (the file name of a session, without .sqlite).`);
  }
  let http: ServerOptions['http'];
  if (values.http !== undefined) {
    const port = Number(values.http);
    if (!/^\d+$/.test(String(values.http)) || port > 65535) {
      throw new UsageError(`--http takes a TCP port (0-65535, 0 for any free one); got ${JSON.stringify(values.http)}.`);
    }
    http = { port, auth: tokenSource(values, env, cwd) };
  } else if (values.token !== undefined || values['token-file'] !== undefined) {
    throw new UsageError(
      `--${values.token !== undefined ? 'token' : 'token-file'} applies only with --http (stdio needs no token: only the client that started the server can talk to it).`,
    );
  }

  const given = new Map<string, unknown>();
  for (const key of SERVER_SETTINGS) {
    const flag = values[flagFor(key)];
    const raw = flag ?? env[envFor(key)];
    if (raw === undefined) continue;
    given.set(key, settingValue(key, raw, flag !== undefined ? `--${flagFor(key)}` : envFor(key)));
  }
  const defaults = (key: string) => settingSchema(key)?.default;
  const added = (values['sensitive-pattern'] as string[] | undefined) ?? [];
  const settings = resolveSettings((key) =>
    key === SENSITIVE_KEY
      ? [...((defaults(key) as string[] | undefined) ?? []), ...added]
      : given.has(key)
        ? given.get(key)
        : defaults(key),
  );
  return {
    workspace,
    storeDir,
    ...(sessionId ? { sessionId } : {}),
    ...(http ? { http } : {}),
    settings,
    previewBytesSet: given.has('previewBytes'),
  };
}

/**
 * The HTTP server's token: --token, else --token-file, else TOOL_OUTPUT_RECALL_MCP_TOKEN (unset or
 * empty: not given), else the default token file. Flags win over the environment, as for the limits.
 */
function tokenSource(values: Record<string, unknown>, env: NodeJS.ProcessEnv, cwd: string): TokenSource {
  const flag = values.token as string | undefined;
  const file = values['token-file'] as string | undefined;
  if (flag !== undefined && file !== undefined) throw new UsageError('--token and --token-file name two tokens; give one.');
  if (file !== undefined) return { file: path.resolve(cwd, file) };
  const given = flag ?? (env[TOKEN_ENV] || undefined);
  if (given === undefined) return { file: defaultTokenFile(env) };
  const problem = tokenProblem(given);
  if (problem) throw new UsageError(`the bearer token (${flag !== undefined ? '--token' : TOKEN_ENV}) ${problem}.`);
  return { token: given, from: flag !== undefined ? '--token' : TOKEN_ENV };
}

/** A flag's or variable's text as the setting's value, checked against its schema. */
function settingValue(key: string, raw: string | boolean | string[], where: string): unknown {
  const schema = settingSchema(key) ?? {};
  let value: unknown = raw;
  if (typeof raw === 'string') {
    if (schema.type === 'boolean') value = /^(1|true|yes)$/i.test(raw) ? true : /^(0|false|no)$/i.test(raw) ? false : raw;
    else if (schema.type === 'integer' || schema.type === 'number') value = raw.trim() === '' ? raw : Number(raw);
  }
  const problem = schemaProblem(schema, value, JSON.stringify(raw));
  if (problem) throw new UsageError(`${where} ${problem}.`);
  return value;
}

async function realDirectory(dir: string, option: string): Promise<string> {
  const real = await fs.realpath(dir).catch(() => undefined);
  const stat = real ? await fs.stat(real).catch(() => undefined) : undefined;
  if (!real || !stat?.isDirectory()) throw new UsageError(`${option} ${dir} is not a folder.`);
  return real;
}

export function usage(): string {
  const limits = SERVER_SETTINGS.map((key) => {
    const schema = settingSchema(key);
    const arg = schema?.type === 'boolean' ? '' : ' N';
    return `  --${flagFor(key)}${arg}  (${envFor(key)}; default ${JSON.stringify(schema?.default)})`;
  });
  // The tools are the registry's, the ones this server lists, so a new tool needs no edit here.
  const about = [
    `An MCP server with the Tool Output Recall tools (${TOOL_NAMES.join(', ')}) for agents outside VS Code.`,
    'Speaks MCP over stdio unless --http is given.',
  ].join(' ');
  return [
    // Every option below, as parseOptions takes it (test/unit/mcpOptions.test.ts checks that none is missing).
    `Usage: ${PROGRAM} [--workspace DIR] [--store DIR] [--session ID]`,
    '         [--http PORT [--token TOKEN | --token-file PATH]] [--sensitive-pattern P]... [limits...]',
    `       ${PROGRAM} --help | --version`,
    `       ${PROGRAM} plugin opencode|kilo  (prints their plugin)`,
    '',
    ...wrapWords(about, 100),
    '',
    '  --workspace DIR       root of relative cwd and file paths (default: the current folder)',
    '  --store DIR           session folder (default: $XDG_STATE_HOME or ~/.local/state,',
    '                        tool-output-recall/workspaces/<name>-<hash of the workspace path>)',
    '  --session ID          resume this session (default: start a new one)',
    '  --http PORT           serve Streamable HTTP at http://127.0.0.1:PORT/mcp (0: any free port); every',
    '                        request needs "Authorization: Bearer <token>", the token being, first found:',
    `  --token TOKEN           this one (other users see it in ps: prefer ${TOKEN_ENV})`,
    '  --token-file PATH       the one in PATH (made, mode 0600, when missing)',
    `                          ${TOKEN_ENV} from the environment`,
    '                          the one in $XDG_STATE_HOME (or ~/.local/state)',
    `                          /${AGENT_STORE_APP}/${TOKEN_FILE_NAME} (made when missing)`,
    '  --sensitive-pattern P another file read_file_page refuses (added to the defaults; !P for an exception)',
    '  --help, --version',
    '',
    'Limits (the extension settings of the same name; flags win over the environment):',
    ...limits,
  ].join('\n');
}

/** `text` in lines of at most `width` characters, broken between words (a longer word has a line to itself). */
function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return line ? [...lines, line] : lines;
}
