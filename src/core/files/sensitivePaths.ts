/**
 * Which files hold secrets a model should not read without the user's say-so: dotenv files,
 * private keys, SSH and cloud credentials, and package-manager config files that carry a token;
 * and which of the home folder's credential files a file with several names (hard links) also is
 * (`homeCredentialNames`, at the end; readablePath.ts says when it is asked).
 *
 * Patterns are glob-like strings matched against a path's segments (a small gitignore-like
 * matcher; no dependency):
 *   - `*` matches any run of characters inside one segment, `?` one character (code point),
 *     `**` (a whole segment) zero or more segments. Everything else is literal (no `[...]`, no
 *     `{a,b}`, no escapes).
 *   - A pattern without '/' matches the basename only: `.env` matches `/repo/.env`, not a
 *     directory named `.env` (a Python venv) or the files inside it.
 *   - A pattern with '/' matches trailing segments at any depth (`.aws/credentials` matches
 *     `/home/me/.aws/credentials`), unless it starts with '/', which anchors it at the root.
 *   - A trailing '/' means "this directory and everything under it": `.ssh/`.
 *   - A leading '!' makes a pattern an exception. The LAST pattern that matches decides, as in
 *     .gitignore, so an exception must follow the pattern it excepts, and a later pattern can
 *     take it back. (Unlike .gitignore, an exception may re-include a file under a matched directory.)
 *   - '\' is a path separator (Windows paths).
 *   - Matching ignores case, on every system (issue 28): a name that is sensitive in one case is
 *     sensitive in all. `.ENV`, `.AWS/credentials`, `cert.PFX` and `ID_ED25519` hold what `.env`,
 *     `.aws/credentials`, `cert.pfx` and `id_ed25519` hold, on Linux as on Windows and macOS (where
 *     the file systems fold case, so they are the same file); a copy or an export by a tool that
 *     upper-cases names is still a credential. Exceptions fold the same way (`ID_RSA.PUB` and
 *     `PROD.ENV.EXAMPLE` stay readable), and so do the user's own patterns and the content checks'
 *     file names (`.NPMRC`). Folding only ever widens what a pattern refuses.
 */
import type { promises as fs } from 'node:fs';
import { withRegularFile } from './openedFile';

/**
 * Decisions:
 *   - `.env` and `.env.*` are sensitive, except the committed templates `.env*.example`,
 *     `.env*.sample`, `.env*.template`, `.env*.dist` (they document variable names, and hiding them
 *     keeps the model from learning a project's configuration). A user can re-block them by
 *     appending `.env.example` to their patterns.
 *   - `.envrc` (direnv) is sensitive: it exports environment variables exactly as `.env` does, and
 *     often tokens. Look-alikes that are source code (`environment.ts`, `env.ts`, `dotenv.js`) are not.
 *   - `.ssh/` blocks the whole directory (known_hosts and public keys included: they map hosts and
 *     identities, and a blanket rule cannot miss a key with an unusual name). A public key outside
 *     `.ssh` (`keys/id_rsa.pub`) is not sensitive.
 *   - Beyond the brief's list: `id_ecdsa_sk`/`id_ed25519_sk` (security-key SSH keys), `.pgpass`,
 *     `.docker/config.json` (registry auths) and gcloud's Windows config folder.
 *   - `.npmrc`, `.yarnrc`, `.yarnrc.yml` and `.pypirc` are not path patterns: they are sensitive
 *     only when their content holds a credential (see `isSensitiveFile`); so are their copies
 *     (`.npmrc.bak`, `.npmrc~`).
 *   - Issue 21 (each decision with its reason in docs/security.md, "Files the tools read"):
 *     `*.env` (prod.env: a dotenv file by another name); the private key names with anything after
 *     them (`id_ed25519.bak`, `id_ed25519 (copy)`, `id_rsa2`), except public keys (`*.pub`) and
 *     notes about keys (`*.md`); `.ssh*` folders (`.ssh.bak/`); `.config/gh/hosts.yml` (the GitHub
 *     CLI's tokens); `*service-account*.json` and `*service_account*.json` (Google service account
 *     keys); `*.tfstate` and `*.tfstate.backup` (Terraform state holds every resource attribute in
 *     clear, generated passwords included, in no recognisable shape). Not by name: `.git/config`
 *     (its remotes and branches are worth reading; a token in a remote URL or an extra header is
 *     masked: secretShapes.ts).
 *   - A broader pattern comes before the exact one it widens, so the exact one still names the
 *     match (`id_rsa` reports `id_rsa`, `id_rsa.bak` reports `id_rsa*`).
 */
export const DEFAULT_SENSITIVE_PATTERNS: readonly string[] = Object.freeze([
  // dotenv
  '*.env',
  '.env',
  '.env.*',
  '!.env*.example',
  '!.env*.sample',
  '!.env*.template',
  '!.env*.dist',
  '.envrc',
  // private keys, with their copies and backups
  'id_rsa*',
  'id_dsa*',
  'id_ecdsa*',
  'id_ed25519*',
  '!id_*.pub',
  '!id_*.md',
  'id_rsa',
  'id_dsa',
  'id_ecdsa',
  'id_ed25519',
  'id_ecdsa_sk',
  'id_ed25519_sk',
  '*.pem',
  '*.key',
  '*.p12',
  '*.pfx',
  '.ssh*/',
  '.ssh/',
  // cloud credentials
  '.aws/credentials',
  '.aws/config',
  '.azure/',
  '.config/gcloud/',
  'AppData/Roaming/gcloud/',
  'application_default_credentials.json',
  '*service-account*.json',
  '*service_account*.json',
  '.kube/config',
  '.docker/config.json',
  '.config/gh/hosts.yml',
  '*.tfstate',
  '*.tfstate.backup',
  // login files
  '.netrc',
  '_netrc',
  '.git-credentials',
  '.pgpass',
]);

export interface SensitivityResult {
  sensitive: boolean;
  /** The pattern that decided it (for a content match, the file's name, e.g. `.npmrc`). */
  pattern?: string;
  /** Set by `isSensitiveFile` when the content decided it: what was found (never the secret). */
  reason?: string;
}

export interface SensitivityOptions {
  /**
   * @deprecated Ignored: patterns always match without case, on every system (issue 28; see the
   * module comment). Kept so that callers passing it still compile; `false` no longer makes `.ENV`
   * readable where `.env` is not.
   */
  caseInsensitive?: boolean;
}

export interface SensitiveFileOptions extends SensitivityOptions {
  /** Also look inside credential config files (.npmrc …). Default true. */
  contentChecks?: boolean;
}

/** The one case folding of names and patterns (locale-independent, so the same on every machine). */
export const fold = (text: string): string => text.toLowerCase();

/** Splits a path (POSIX or Windows) into its non-empty segments. */
export function pathSegments(path: string): string[] {
  return path.split(/[\\/]+/).filter((segment) => segment.length > 0);
}

/** One segment of a pattern, as code points; `null` stands for `**`. */
type SegmentPattern = string[] | null;

interface CompiledPattern {
  source: string;
  negated: boolean;
  /** Folded (see `fold`): matched against folded path segments. */
  segments: SegmentPattern[];
}

const compiledCache = new Map<string, CompiledPattern | undefined>();

function compilePattern(source: string): CompiledPattern | undefined {
  if (compiledCache.has(source)) return compiledCache.get(source);
  let body = source.trim();
  const negated = body.startsWith('!');
  if (negated) body = body.slice(1);
  body = body.replace(/\\/g, '/');
  const anchored = body.startsWith('/');
  const directory = body.endsWith('/');
  const parts = pathSegments(body);
  let compiled: CompiledPattern | undefined;
  if (parts.length > 0) {
    const segments: SegmentPattern[] = parts.map((part) => (part === '**' ? null : Array.from(fold(part))));
    if (!anchored) segments.unshift(null);
    if (directory) segments.push(null);
    compiled = { source, negated, segments };
  }
  if (compiledCache.size > 1000) compiledCache.clear();
  compiledCache.set(source, compiled);
  return compiled;
}

/**
 * `*` and `?` matching of one segment, by code point. The greedy algorithm with one backtrack
 * point: O(pattern × segment) at worst, unlike a backtracking regex (`*a*a*a…b` is exponential there).
 */
function matchSegment(pattern: string[], segment: string[]): boolean {
  let p = 0;
  let s = 0;
  let star = -1;
  let mark = 0;
  while (s < segment.length) {
    if (p < pattern.length && (pattern[p] === '?' || pattern[p] === segment[s])) {
      p++;
      s++;
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      mark = s;
    } else if (star >= 0) {
      p = star + 1;
      s = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === '*') p++;
  return p === pattern.length;
}

/** Whether pattern segments match all of the path's segments (`null` = `**`, any number). */
function matchSegments(p: SegmentPattern[], s: string[]): boolean {
  // Memoised over (i, j): at most (pattern × path) states, so `**/**/…` stays polynomial.
  const memo = new Map<number, boolean>();
  const width = s.length + 1;
  const at = (i: number, j: number): boolean => {
    if (i === p.length) return j === s.length;
    const key = i * width + j;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    const segment = p[i];
    if (segment === null) {
      result = false;
      for (let k = j; k <= s.length && !result; k++) result = at(i + 1, k);
    } else {
      result = j < s.length && matchSegment(segment, Array.from(s[j])) && at(i + 1, j + 1);
    }
    memo.set(key, result);
    return result;
  };
  return at(0, 0);
}

/** A path's segments, folded: what compiled patterns are matched against. */
const foldedSegments = (file: string): string[] => pathSegments(file).map(fold);

/** Whether `file` matches one glob-like `pattern` (ignoring a leading '!'), without regard to case. */
export function matchesPathPattern(file: string, pattern: string, _options: SensitivityOptions = {}): boolean {
  const compiled = compilePattern(pattern);
  return compiled !== undefined && matchSegments(compiled.segments, foldedSegments(file));
}

/**
 * Whether `absPath` is sensitive by name alone. The last matching pattern decides; an exception
 * ('!') that matches last makes it not sensitive. Blank patterns and `#` comments are ignored.
 */
export function isSensitivePath(
  absPath: string,
  patterns: readonly string[] = DEFAULT_SENSITIVE_PATTERNS,
  _options: SensitivityOptions = {},
): SensitivityResult {
  const segments = foldedSegments(absPath);
  for (let i = patterns.length - 1; i >= 0; i--) {
    const source = patterns[i];
    if (typeof source !== 'string' || source.trim() === '' || source.trim().startsWith('#')) continue;
    const compiled = compilePattern(source);
    if (compiled && matchSegments(compiled.segments, segments)) {
      return compiled.negated ? { sensitive: false } : { sensitive: true, pattern: source };
    }
  }
  return { sensitive: false };
}

// ---------------------------------------------------------------------------------------------
// Content checks

/** Config files that are sensitive only when they hold a credential. */
export const CREDENTIAL_CONFIG_FILES: readonly string[] = Object.freeze(['.npmrc', '.yarnrc', '.yarnrc.yml', '.pypirc']);

/**
 * Keys whose value is a credential (longest first so `_authToken` is not read as `_auth`), then
 * `=` (.npmrc, .pypirc), `:` (.yarnrc.yml) or blanks (yarn 1's .yarnrc: `"//host/:_authToken" tok`).
 */
const CREDENTIAL_KEY = /(?:^|[\s:/"'])(_authToken|npmAuthToken|npmAuthIdent|_password|_auth|password)["']?(?:\s*[=:]\s*|\s+)(.*)$/i;
/** Only this much of a config file is inspected; such files are tiny. */
const CONTENT_CHECK_BYTES = 256 * 1024;

/**
 * The credential key in `content` of an npm/yarn/pip config file, or undefined. A value that is
 * empty or only an environment reference (`${NPM_TOKEN}`, `$NPM_TOKEN`) is not a credential: the
 * secret is elsewhere, and such files are routinely committed.
 */
export function findCredentialKey(content: string): string | undefined {
  for (const rawLine of content.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const found = CREDENTIAL_KEY.exec(line);
    if (!found) continue;
    const value = found[2]
      .trim()
      .replace(/^(["'])(.*)\1$/, '$2')
      .trim();
    if (value === '' || /^(?:\$\{[A-Za-z_][A-Za-z0-9_]*\}|\$[A-Za-z_][A-Za-z0-9_]*)$/.test(value)) continue;
    return found[1];
  }
  return undefined;
}

export function basenameOf(absPath: string): string {
  const segments = pathSegments(absPath);
  return segments.length > 0 ? segments[segments.length - 1] : '';
}

/**
 * The credential config file a file named `name` is, or is a copy of (`.npmrc.bak`, `.npmrc~`), in
 * any case (`.NPMRC`); longest first, so `.yarnrc.yml` is not `.yarnrc`.
 */
export function credentialConfigName(name: string): string | undefined {
  return [...CREDENTIAL_CONFIG_FILES].sort((a, b) => b.length - a.length).find((candidate) => fold(name).startsWith(fold(candidate)));
}

/**
 * The verdict on an open file known by `names` (the path as given, the real path): the name
 * patterns for each, then, for a credential config file (or a copy of one) by either name, a look
 * inside through `handle` for a credential (`_authToken`, `_auth`, `_password`, `password`,
 * `npmAuthToken`, `npmAuthIdent`).
 */
export async function sensitiveVerdict(
  names: readonly string[],
  handle: fs.FileHandle,
  patterns: readonly string[] = DEFAULT_SENSITIVE_PATTERNS,
  options: SensitiveFileOptions = {},
): Promise<SensitivityResult> {
  for (const name of new Set(names)) {
    const byName = isSensitivePath(name, patterns, options);
    if (byName.sensitive) return byName;
  }
  if (options.contentChecks === false) return { sensitive: false };
  const config = names
    .map((name) => ({ name: basenameOf(name), configName: credentialConfigName(basenameOf(name)) }))
    .find((each) => each.configName !== undefined);
  if (!config?.configName) return { sensitive: false };
  const buffer = Buffer.alloc(CONTENT_CHECK_BYTES);
  const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
  const key = findCredentialKey(buffer.toString('utf8', 0, bytesRead));
  return key === undefined
    ? { sensitive: false }
    : { sensitive: true, pattern: config.configName, reason: `${config.name} contains a credential (${key})` };
}

/**
 * `sensitiveVerdict` for a path: opened as the tools open files (openedFile.ts: never a FIFO, a
 * device, or a link swapped in). A file that cannot be opened is judged by its name alone (reading
 * it will fail anyway).
 */
export async function isSensitiveFile(
  absPath: string,
  patterns: readonly string[] = DEFAULT_SENSITIVE_PATTERNS,
  options: SensitiveFileOptions = {},
): Promise<SensitivityResult> {
  const byName = isSensitivePath(absPath, patterns, options);
  if (byName.sensitive || options.contentChecks === false) return byName;
  if (!credentialConfigName(basenameOf(absPath))) return byName;
  return withRegularFile(absPath, { shown: absPath, tool: 'the sensitive-file check' }, ({ handle }) =>
    sensitiveVerdict([absPath], handle, patterns, options),
  ).catch(() => byName);
}
