import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { useTempDirs } from '../unit/helpers/tempDirs';

const REPO = path.resolve(__dirname, '../..');
// Its samples name outside paths on purpose; every other tracked file is scanned.
const SELF = path.relative(REPO, __filename).split(path.sep).join('/');
const BINARY = /\.(png|jpe?g|gif|ico|webp|wasm|vsix|zip|gz|tgz|woff2?|ttf|otf|pdf|sqlite|db)$/i;
// Generated, and every path in it is a registry URL or a node_modules key.
const SKIPPED = new Set(['package-lock.json']);
// Folders that sit beside working copies of this project on its development machines; named so a
// clone elsewhere (where they do not exist) still rejects a reference to them.
const KNOWN_NEIGHBOURS = ['shared', '.library'];

/** What lies around a repository: what a file in it must not refer to. */
interface Surroundings {
  /** The repository (absolute). */
  root: string;
  /** Absolute paths that are this machine's, not the project's: the repository's own path and, unless it is a generic place, its parent folder. */
  absolute: string[];
  /** Names of folders beside the repository. */
  neighbours: ReadonlySet<string>;
  exists(file: string): boolean;
}

interface OutsideReference {
  line: number;
  found: string;
  why: string;
}

function surroundingsOf(root: string): Surroundings {
  const parent = path.dirname(root);
  // A repository cloned straight into / or the temp folder has no neighbours of its own there: an
  // example like `/tmp/out.log` in a file says nothing about this machine.
  const generic = parent === path.parse(parent).root || parent === os.tmpdir();
  const beside = generic ? [] : readdirSync(parent).filter((name) => name !== path.basename(root));
  return {
    root,
    absolute: generic ? [root] : [root, parent],
    neighbours: new Set([...KNOWN_NEIGHBOURS, ...beside]),
    exists: existsSync,
  };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const isInside = (root: string, target: string) => {
  const rel = path.relative(root, target);
  return rel === '' || (rel.split(path.sep)[0] !== '..' && !path.isAbsolute(rel));
};

/**
 * References to paths outside the repository in the text of `file` (relative to the root):
 * - an absolute path under one of `where.absolute` (not preceded by a path or word character, so
 *   `/home/ci/work/x` in generated text is not `/work/x`);
 * - a relative path starting with `..` (a string, an import, a Markdown link, or the string
 *   arguments of one `join(`/`resolve(` call put together) that climbs out of the root from the
 *   file's own folder;
 * - such a path that stays inside from the file's folder but names nothing there, while from the
 *   root it reaches a folder beside the repository: a path handed to `path.join(root, …)`, whose
 *   base the scanner cannot see.
 */
function outsideReferences(text: string, file: string, where: Surroundings): OutsideReference[] {
  const found: OutsideReference[] = [];
  const lineAt = (index: number) => text.slice(0, index).split('\n').length;
  const folder = path.dirname(path.join(where.root, file));

  // One alternation, longest first, so a path under the repository is reported once, not again as under its parent.
  const prefixes = [...where.absolute].sort((a, b) => b.length - a.length).map(escapeRegExp);
  const absolute = new RegExp(`(?<![\\w.~/-])(?:${prefixes.join('|')})(?=[/'"\`\\s)\\]},;:]|$)[^\\s'"\`)\\]},;]*`, 'g');
  for (const match of text.matchAll(absolute))
    found.push({ line: lineAt(match.index), found: match[0], why: 'an absolute path on this machine, outside the project' });

  const candidates: { index: number; relative: string }[] = [];
  // `..` as a whole path segment at the start of a token: not `...`, `a..b`, `\.\.` or `x/../y`.
  for (const match of text.matchAll(/(?<![\w.\\/$-])\.\.(?![.\w])(?:\/[^\s'"`)\]},;*?<>|]*)?/g))
    candidates.push({ index: match.index, relative: match[0] });
  for (const call of text.matchAll(/\b(?:join|resolve)\(([^()]*)\)/g)) {
    const literals = [...call[1].matchAll(/'([^']*)'|"([^"]*)"|`([^`$]*)`/g)].map((m) => m[1] ?? m[2] ?? m[3]);
    const joined = literals.join('/');
    if (literals.length > 1 && /^\.\.(\/|$)/.test(joined)) candidates.push({ index: call.index, relative: joined });
  }

  for (const { index, relative } of candidates) {
    const fromFolder = path.resolve(folder, relative);
    if (!isInside(where.root, fromFolder)) {
      found.push({
        line: lineAt(index),
        found: relative,
        why: `climbs out of the repository from ${path.relative(where.root, folder) || '.'}/`,
      });
      continue;
    }
    const fromRoot = path.resolve(where.root, relative);
    const neighbour = path.relative(path.dirname(where.root), fromRoot).split(path.sep)[0];
    if (!where.exists(fromFolder) && !isInside(where.root, fromRoot) && where.neighbours.has(neighbour))
      found.push({ line: lineAt(index), found: relative, why: `from the repository root it reaches ${neighbour}/ beside the repository` });
  }
  return found.sort((a, b) => a.line - b.line);
}

describe('standalone: no tracked file refers to a path outside the repository', () => {
  const dirs = useTempDirs('standalone');

  describe('the detector', () => {
    // A made-up checkout, so the samples do not depend on where this one is.
    const parent = '/home/dev/src';
    const present = new Set(['src/core/errors.ts', 'package.json', 'tsconfig.json', 'test', 'test/unit', 'src']);
    const where: Surroundings = {
      root: `${parent}/recall`,
      absolute: [`${parent}/recall`, parent],
      neighbours: new Set([...KNOWN_NEIGHBOURS, 'other-repo']),
      exists: (file) => file === `${parent}/recall` || present.has(path.relative(`${parent}/recall`, file)),
    };

    const bad: [file: string, text: string, found: string][] = [
      ['bench/estimate.mjs', `readdirSync(path.join(root, '../shared/seeds'))`, '../shared/seeds'],
      ['bench/estimate.mjs', `readFileSync(path.join(root, '..', 'shared', name))`, '../shared'],
      ['bench/estimate.mjs', `const seeds = path.resolve(\n  root,\n  '..',\n  '.library',\n);`, '../.library'],
      ['bench/run.mjs', `const other = require('../../other-repo/x.js');`, '../../other-repo/x.js'],
      ['test/unit/a.test.ts', `import { x } from '../../../outside/x';`, '../../../outside/x'],
      ['scripts/build.mjs', `const up = path.resolve(__dirname, '../..');`, '../..'],
      ['README.md', `See [the seeds](../.library/seeds).`, '../.library/seeds'],
      ['test/browser/tsconfig.json', `{ "extends": "../../../tsconfig.base.json" }`, '../../../tsconfig.base.json'],
      ['bench/run.mjs', `readFileSync('/home/dev/src/shared/seeds/a.txt')`, '/home/dev/src/shared/seeds/a.txt'],
      ['bench/run.mjs', `const home = "/home/dev/src";`, '/home/dev/src'],
      ['src/core/log.ts', 'const log = `/home/dev/src/recall/dist/log.txt`;', '/home/dev/src/recall/dist/log.txt'],
    ];
    for (const [file, text, expected] of bad)
      it(`flags ${expected} in ${file}`, () => {
        const hits = outsideReferences(text, file, where);
        assert.deepEqual(
          hits.map((hit) => hit.found),
          [expected],
          `${file}: ${text}\n→ ${JSON.stringify(hits)}`,
        );
      });

    it('reports the line of a reference in a longer text', () => {
      const text = `// a comment\nconst a = 1;\nconst seeds = path.join(root, '../shared/seeds');\n`;
      assert.deepEqual(
        outsideReferences(text, 'bench/estimate.mjs', where).map((hit) => hit.line),
        [3],
      );
    });

    const fine: [file: string, text: string][] = [
      ['test/unit/helpers/assertions.ts', `import { isRecallError } from '../../../src/core/errors';`],
      ['test/unit/layers.test.ts', `const REPO = path.resolve(__dirname, '../..');`],
      ['test/browser/run.mjs', `const root = path.resolve(here, '..', '..');`],
      ['test/browser/tsconfig.json', `{ "extends": "../../tsconfig.json" }`],
      ['test/unit/store.test.ts', `for (const sessionId of ['../escape', 'a/b'])`],
      ['test/unit/files.test.ts', `await pager.read(path.join(workspace, '../../etc/passwd'))`],
      ['bench/lib/logtext.mjs', '`    at f (/home/ci/work/${pick(FILES)}:12:3)`'],
      ['bench/run.mjs', `const all = [...a, ...b]; const cut = text.slice(0, 3) + '...';`],
      ['CONTRIBUTING.md', 'Compare with `git log main..HEAD`; pages 1..10 are kept.'],
      ['README.md', 'See https://example.invalid/a/../b and [the bench](bench/README.md).'],
      ['src/core/x.ts', String.raw`const climbs = /(^|\/)\.\.(\/|$)/;`],
      ['bench/run.mjs', `const scratch = path.join(os.tmpdir(), 'recall-bench-');`],
      ['bench/run.mjs', `const near = '/home/dev/srcs/x'; const far = '/opt/dev/src/recall';`],
    ];
    for (const [file, text] of fine)
      it(`lets through ${JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text)} in ${file}`, () => {
        assert.deepEqual(outsideReferences(text, file, where), [], `${file}: ${text}`);
      });

    it('in a clone in the temp folder, flags the clone’s own path but not other temp paths', () => {
      const clone = surroundingsOf(dirs.make());
      const own = path.join(clone.root, 'dist/core.js');
      const text = `const a = '${own}';\nconst b = '${path.join(os.tmpdir(), 'out.log')}';\nconst c = path.join(root, '../shared/x');`;
      assert.deepEqual(
        outsideReferences(text, 'bench/x.mjs', clone).map((hit) => [hit.line, hit.found]),
        [
          [1, own],
          [3, '../shared/x'],
        ],
      );
    });
  });

  it('every tracked text file stays inside the repository', () => {
    const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: REPO, encoding: 'utf8' }).split('\0').filter(Boolean);
    const scanned = tracked.filter(
      (file) => file !== SELF && !BINARY.test(file) && !SKIPPED.has(file) && existsSync(path.join(REPO, file)),
    );
    assert.ok(
      scanned.includes('bench/estimate.mjs'),
      `scanned ${scanned.length} of ${tracked.length} tracked files, not bench/estimate.mjs`,
    );

    const where = surroundingsOf(REPO);
    const offenders = scanned.flatMap((file) => {
      const text = readFileSync(path.join(REPO, file), 'utf8');
      if (text.includes('\0')) return [];
      const lines = text.split('\n');
      return outsideReferences(text, file, where).map(
        (hit) => `${file}:${hit.line}: ${hit.found} (${hit.why})\n    ${lines[hit.line - 1].trim()}`,
      );
    });
    assert.ok(offenders.length === 0, `files refer to paths outside the repository:\n${offenders.join('\n')}`);
  });
});
