// ARCHITECTURE.md stays true: every file or folder it names in `code` exists (as a path from the
// repository root, or as the end of one), and every name it gives as ours (`SessionStore.read`,
// `openLockedSession`, `TOOL_SPECS`) is declared in the sources, with a `Class.member` declared in the
// file that declares the class.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

const REPO = path.resolve(__dirname, '../..');
const doc = readFileSync(path.join(REPO, 'ARCHITECTURE.md'), 'utf8');
const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: REPO, encoding: 'utf8' })
  .split('\n')
  .filter(Boolean);
const sources = files.filter((f) => /\.(ts|mjs|cjs|js)$/.test(f) && /^(src|webview|test|scripts|bench)\//.test(f));
const text = new Map(sources.map((f) => [f, readFileSync(path.join(REPO, f), 'utf8')]));

/** Names the text uses that are not ours: Node, VS Code, sql.js, RE2, the MCP SDK. */
const FOREIGN = new Set([
  'vscode',
  'require',
  'writev',
  'datasync',
  'postMessage',
  'worker_threads',
  'workerData',
  'db.export',
  'O_EXCL',
  'setsid',
  'vm',
  'console',
  'tools',
  'tools.call',
  'zone',
  'files',
  'LanguageModelTextPart',
  'AbortSignal',
  'window.withProgress',
  'vscode.lm.invokeTool',
  'vscode.l10n.t',
  'vscode.LanguageModelTool',
  'SQLITE_BUSY',
  'userDescription',
  'displayName',
  'modelDescription',
  'toolReferenceName',
  'inputSchema',
]);

const tokens = [...doc.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]);
const looksLikePath = (t: string) => /^[\w.@-]+(\/[\w.@<>*-]*)*\/?$/.test(t) && (/\.(ts|mjs|cjs|js|json|md)$/.test(t) || t.endsWith('/'));
const looksLikeName = (t: string) => /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)?(\(\))?$/.test(t) && /[A-Z_]|[a-z][A-Z]/.test(t);

const build = readFileSync(path.join(REPO, 'scripts/build.mjs'), 'utf8');

function pathExists(token: string): boolean {
  if (token.includes('<') || token.includes('*')) return true; // a pattern (`<name>.ts`), not a file
  // Build outputs are not in git: scripts/build.mjs names them.
  if (token.startsWith('dist/')) return build.includes(token.slice('dist/'.length));
  const wanted = token.replace(/\/$/, '');
  return files.some((f) => f === wanted || f.startsWith(`${wanted}/`) || f.endsWith(`/${wanted}`) || f.includes(`/${wanted}/`));
}

const declares = (name: string) =>
  new RegExp(
    `(?:\\b(?:function\\*?|class|const|let|var|interface|type|enum|namespace)\\s+${name}\\b)|(?:^\\s*(?:(?:export|static|readonly|private|async|get|set|public|protected|override)\\s+)*${name}\\s*[(<:=?!])|(?:\\b${name}\\s*:)|(?:export\\s*\\{[^}]*\\b${name}\\b)`,
    'm',
  );

function declaredIn(name: string): string[] {
  const pattern = declares(name.replace(/\$/g, '\\$'));
  return sources.filter((f) => pattern.test(text.get(f)!));
}

describe('ARCHITECTURE.md names what exists', () => {
  it('every file and folder it names exists', () => {
    const missing = [...new Set(tokens.filter(looksLikePath))].filter((t) => !pathExists(t));
    assert.deepEqual(missing, []);
  });

  it('every name of ours it gives is declared, a member in the file of its class', () => {
    const names = [...new Set(tokens.filter((t) => looksLikeName(t) && !looksLikePath(t)).map((t) => t.replace(/\(\)$/, '')))].filter(
      (t) => !FOREIGN.has(t),
    );
    const missing = names.filter((name) => {
      const [owner, member] = name.split('.');
      // An error code, a setting or a column: used somewhere in the sources.
      if (/^[A-Z0-9_]+$/.test(name) || /^[a-z0-9_]+$/.test(name))
        return !sources.some((f) => new RegExp(`\\b${name}\\b`).test(text.get(f)!));
      if (!member) return declaredIn(owner).length === 0;
      // `store.openReport`-style (a value's member): the member is declared somewhere.
      const ownerFiles = /^[a-z]/.test(owner) ? sources : declaredIn(owner);
      return !ownerFiles.some((f) => declares(member).test(text.get(f)!));
    });
    assert.deepEqual(missing, []);
  });
});
