import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { useTempDirs } from '../unit/helpers/tempDirs';

const exec = promisify(execFile);
const REPO = path.resolve(__dirname, '../..');
const CORE = path.join(REPO, 'src/core');
const BUNDLE = path.join(REPO, 'dist/core.js');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|mts|cts|js|mjs|cjs)$/.test(entry.name) ? [full] : [];
  });
}

/** Run-time references to the `vscode` module in a source text (`import type` / `export type` are erased, so allowed). */
function runtimeVscodeImports(source: string): string[] {
  const text = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const found: string[] = [];
  const patterns = [
    /\bimport\s+(?!type\b)[^'";]*?\bfrom\s*['"]vscode['"]/g, // import x from 'vscode', import { a, type b } from 'vscode'
    /\bexport\s+(?!type\b)[^'";]*?\bfrom\s*['"]vscode['"]/g, // export { x } from 'vscode'
    /\bimport\s*['"]vscode['"]/g, // import 'vscode'
    /\bimport\s*\(\s*['"]vscode['"]\s*\)/g, // import('vscode')
    /\brequire\s*\(\s*['"]vscode['"]\s*\)/g, // require('vscode'), import x = require('vscode')
  ];
  for (const pattern of patterns) for (const match of text.matchAll(pattern)) found.push(match[0]);
  return found;
}

describe('layers: the engine does not depend on VS Code', function () {
  this.timeout(60_000);
  const dirs = useTempDirs('layers');

  it('the scanner recognises run-time imports and lets type-only imports through', () => {
    for (const bad of [
      `import * as vscode from 'vscode';`,
      `import { window } from "vscode";`,
      `import vscode, { type Uri } from 'vscode';`,
      `import {\n  Uri,\n  type Range,\n} from 'vscode';`,
      `import 'vscode';`,
      `const vscode = require('vscode');`,
      `const v = await import('vscode');`,
      `import vscode = require('vscode');`,
      `export { Uri } from 'vscode';`,
    ])
      assert.equal(runtimeVscodeImports(bad).length, 1, bad);
    for (const fine of [
      `import type * as vscode from 'vscode';`,
      `import type { Uri } from 'vscode';`,
      `export type { Uri } from 'vscode';`,
      `// import * as vscode from 'vscode';`,
      `/* require('vscode') */`,
      `const name = 'vscode';`,
      `import { x } from './vscodeish';`,
    ])
      assert.deepEqual(runtimeVscodeImports(fine), [], fine);
  });

  it('no file under src/core imports vscode at run time', () => {
    const files = sourceFiles(CORE);
    assert.ok(files.length > 10, `found only ${files.length} files under src/core`);
    const offenders = files.flatMap((file) =>
      runtimeVscodeImports(readFileSync(file, 'utf8')).map((found) => `${path.relative(REPO, file)}: ${found}`),
    );
    assert.deepEqual(offenders, []);
  });

  describe('dist/core.js in plain Node', () => {
    before(async function () {
      this.timeout(120_000);
      const newestSource = Math.max(...sourceFiles(CORE).map((file) => statSync(file).mtimeMs));
      if (!existsSync(BUNDLE) || statSync(BUNDLE).mtimeMs < newestSource || !existsSync(path.join(REPO, 'dist/sql-wasm.wasm'))) {
        await exec(process.execPath, [path.join(REPO, 'scripts/build.mjs')], { cwd: REPO });
      }
      assert.ok(existsSync(BUNDLE), 'the build made dist/core.js');
    });

    it('does not require vscode', () => {
      assert.deepEqual(runtimeVscodeImports(readFileSync(BUNDLE, 'utf8')), []);
    });

    it('loads with require() and works: retain, read, search, preview, captureCommand', async () => {
      const dir = dirs.make();
      const script = `
        const core = require(${JSON.stringify(BUNDLE)});
        (async () => {
          const names = ['openStore', 'listSessions', 'captureCommand', 'previewHeadTail', 'hasImportantTail', 'HeadTailBuffer', 'capBytes', 'RecallError', 'isRecallError', 'DEFAULT_LIMITS', 'isUnitBoundary', 'runCommandTool'];
          const missing = names.filter((name) => core[name] === undefined);
          const store = await core.openStore({ dir: ${JSON.stringify(dir)} });
          const kept = await store.retain('plain node 😀\\n'.repeat(3000));
          const page = await store.read(kept.outputId, 0, 16);
          const found = await store.search(kept.outputId, 'NODE');
          let code;
          try { await store.read(kept.outputId, 13); } catch (error) { code = error.code + ':' + (error instanceof core.RecallError); }
          const echoed = await core.captureCommand({ command: 'echo captured' }, {}, (capture) => capture.copyBytes().toString());
          const context = { store, baseDir: ${JSON.stringify(dir)}, defaultTimeoutSeconds: 60, previewBytes: 24 * 1024, streamBytes: 8 * 1024 * 1024 };
          const { result: run } = await core.runCommandTool({ command: 'seq 1 10000' }, context);
          const preview = core.previewHeadTail('x'.repeat(5000), { budgetBytes: 1024, outputId: kept.outputId });
          await store.close();
          const sessions = await core.listSessions(${JSON.stringify(dir)});
          console.log(JSON.stringify({ missing, page, matches: found.matches.length, code, echoed, recovery: run.recovery, previewTruncated: preview.truncated, sessions: sessions.length, hasVscode: Object.keys(require.cache).some((k) => /[\\\\/]vscode[\\\\/]/.test(k)) }));
        })().catch((error) => { console.error(error); process.exit(1); });
      `;
      // Plain node: no tsx, no loader, cwd outside the repo.
      const { stdout } = await exec(process.execPath, ['-e', script], { cwd: dir, env: { ...process.env, NODE_OPTIONS: '' } });
      const outcome = JSON.parse(stdout.trim().split('\n').pop()!);
      assert.deepEqual(outcome, {
        missing: [],
        page: { text: 'plain node 😀\n', nextOffset: 16, totalBytes: 16 * 3000, hasMore: true, complete: true },
        matches: 50,
        code: 'MID_CHARACTER_OFFSET:true',
        echoed: 'captured\n',
        recovery: 'retained',
        previewTruncated: true,
        sessions: 1,
        hasVscode: false,
      });
    });
  });
});
