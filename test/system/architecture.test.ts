// ARCHITECTURE.md stays true, and so do the pages it sends readers to for the detail (docs/flows.md,
// docs/changing.md and the store's src/core/store/README.md): every file or folder they name in `code`
// exists (as a path from the repository root, or as the end of one), and every name they give as ours
// (`SessionStore.read`, `openLockedSession`, `TOOL_SPECS`) is declared in the product's sources, src/ and
// webview/ (what is built into dist/), with a `Class.member` declared in the file that declares the class.
// Names declared only in bench/ or test/ do not count: the map describes the product, and the bench's
// prototypes keep names the product dropped (docs/decisions.md, which this test does not check for names,
// tells their story). Links between the map, its pages, docs/, README.md and CONTRIBUTING.md lead to a
// file that exists and, with an anchor, to a heading of it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

const REPO = path.resolve(__dirname, '../..');
/** The map and the pages that hold its detail: what must name only what exists. */
const MAP = ['ARCHITECTURE.md', 'docs/flows.md', 'docs/changing.md', 'src/core/store/README.md'];
const doc = MAP.map((file) => readFileSync(path.join(REPO, file), 'utf8')).join('\n');
// The work tree's files: a tracked file deleted in it (a move not yet committed) is gone.
const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: REPO, encoding: 'utf8' })
  .split('\n')
  .filter((file) => file && existsSync(path.join(REPO, file)));
/** The product's sources: where a name the map gives must be declared. */
const PRODUCT = /^(src|webview)\//;
const sources = files.filter((f) => /\.(ts|mjs|cjs|js)$/.test(f) && PRODUCT.test(f));
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
  'Buffer.indexOf',
  'setFlagsFromString',
  'textContent',
  'structuredContent',
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

/** The documents whose links to each other must lead somewhere. */
const LINKED = [
  ...new Set([
    ...MAP,
    'README.md',
    'CONTRIBUTING.md',
    ...files.filter((f) => /^docs\/[^/]+\.md$/.test(f) || /^src\/.*README\.md$/.test(f)),
  ]),
];

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

/** The anchors of a Markdown text's headings (outside code fences), a repeated one numbered as GitHub does. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const heading of markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const base = slug(heading[1]);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  return found;
}

/** Links from `file` that go to one of LINKED (or to its own headings), as [target file, anchor]. */
function linksBetween(file: string): { link: string; target: string; anchor?: string }[] {
  const markdown = readFileSync(path.join(REPO, file), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1])
    .filter((link) => !/^[a-z]+:/i.test(link))
    .map((link) => {
      const [where, anchor] = link.split('#');
      const target = where === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), where));
      return { link, target, anchor };
    })
    .filter(({ target }) => LINKED.includes(target));
}

describe('ARCHITECTURE.md and its pages name what exists', () => {
  it('looks for names in the product only: src/ and webview/, not bench/, test/ or scripts/', () => {
    assert.ok(sources.length > 100, `found only ${sources.length} product source files`);
    assert.deepEqual([...new Set(sources.map((f) => f.split('/')[0]))].sort(), ['src', 'webview']);
  });

  it('reads the map and the pages of its detail', () => {
    assert.ok(
      MAP.every((file) => files.includes(file)),
      `one of ${MAP.join(', ')} is missing`,
    );
  });

  it('links between the map, its pages, docs/, README.md and CONTRIBUTING.md lead to a heading that exists', () => {
    assert.ok(LINKED.includes('docs/decisions.md') && LINKED.includes('docs/security.md'), LINKED.join(', '));
    assert.deepEqual(slug('Code Mode: `run_code`'), 'code-mode-run_code');
    assert.deepEqual(
      slug('2026-12-05, issue 30: the rooms of src/core import one way'),
      '2026-12-05-issue-30-the-rooms-of-srccore-import-one-way',
    );
    const broken = LINKED.flatMap((file) =>
      linksBetween(file)
        .filter(({ target, anchor }) => {
          if (!files.includes(target)) return true;
          return anchor !== undefined && !anchors(readFileSync(path.join(REPO, target), 'utf8')).has(anchor);
        })
        .map(({ link }) => `${file}: ${link}`),
    );
    assert.deepEqual(broken, []);
  });

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
