// Smoke test: the extension is loaded by a real VS Code extension host and activates, and the language
// model API it builds on is there. Also checks the harness contract (workspace folder, env vars) so a
// broken runner shows up here rather than as puzzling failures in other suites.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { skipBecause } from './helpers/host';
import { testLog } from './log';

// esbuild inlines the JSON at bundle time, so this also holds when the tests run against an installed VSIX.
const pkg = require('../../package.json') as { publisher: string; name: string; version: string };
const EXTENSION_ID = `${pkg.publisher}.${pkg.name}`;

describe('smoke', () => {
  before(() => {
    testLog(
      `  VS Code ${vscode.version} (${vscode.env.uiKind === vscode.UIKind.Web ? 'web' : 'desktop'} UI, ` +
        `remote ${vscode.env.remoteName ?? 'none'}), Node ${process.version}, mode ${process.env.TOR_TEST_MODE ?? 'unset'}`,
    );
  });

  it(`finds ${EXTENSION_ID} and activates it`, async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `extension ${EXTENSION_ID} is not loaded (engines.vscode higher than the host's VS Code?)`);
    await ext.activate();
    assert.equal(ext.isActive, true);
    assert.equal(ext.packageJSON.version, pkg.version);

    // Development runs load the extension from the repo; VSIX runs from the installed copy.
    const repo = process.env.TOR_TEST_REPO;
    if (repo) {
      const fromRepo = fs.realpathSync(ext.extensionPath) === fs.realpathSync(repo);
      assert.equal(
        fromRepo,
        process.env.TOR_TEST_MODE !== 'vsix',
        `extensionPath ${ext.extensionPath} (mode ${process.env.TOR_TEST_MODE})`,
      );
    }
  });

  it('has the language model API', () => {
    assert.equal(typeof vscode.lm, 'object');
    assert.equal(typeof vscode.lm.registerTool, 'function');
    assert.equal(typeof vscode.lm.invokeTool, 'function');
    assert.ok(Array.isArray(vscode.lm.tools));
  });

  // Extensions given with `run.mjs --extra-extension <dir>` (e.g. a test-only model provider).
  const extraDirs = JSON.parse(process.env.TOR_TEST_EXTRA_EXTENSIONS || '[]') as string[];
  if (extraDirs.length) {
    it('loads the extra extensions given to the runner', () => {
      for (const dir of extraDirs) {
        const extra = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { publisher: string; name: string };
        const ext = vscode.extensions.getExtension(`${extra.publisher}.${extra.name}`);
        assert.ok(ext, `extra extension ${extra.publisher}.${extra.name} from ${dir} is not loaded`);
        assert.equal(fs.realpathSync(ext.extensionPath), fs.realpathSync(dir));
      }
    });
  }

  it('opened the test workspace', function () {
    const expected = process.env.TOR_TEST_WORKSPACE;
    if (!expected) {
      // Runners other than scripts/host/run.mjs (F5 "Extension Tests") may not set it; say so, and count it as skipped.
      skipBecause(this, 'TOR_TEST_WORKSPACE is not set by this runner');
    }
    const folders = vscode.workspace.workspaceFolders ?? [];
    assert.equal(folders.length, 1);
    assert.equal(path.resolve(folders[0].uri.fsPath), path.resolve(expected));
  });
});
