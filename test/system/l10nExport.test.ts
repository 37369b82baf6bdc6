// Localization, the check that runs @vscode/l10n-dev (a process): the English bundle (l10n/) is what
// `npm run l10n` exports from the sources today; it fails when the committed one is out of date. The
// rest of the localization checks, in process: test/unit/l10n.test.ts.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { useTempDirs } from '../unit/helpers/tempDirs';

const REPO = path.resolve(__dirname, '../..');
const readJson = (file: string): Record<string, unknown> =>
  JSON.parse(readFileSync(path.join(REPO, file), 'utf8')) as Record<string, unknown>;

describe('localization (English and Simplified Chinese)', () => {
  const dirs = useTempDirs('l10n');

  it('l10n/bundle.l10n.json is what @vscode/l10n-dev exports from the sources today (run `npm run l10n` after changing a string)', function () {
    this.timeout(120_000);
    const out = dirs.make();
    const cli = path.join(REPO, 'node_modules', '@vscode', 'l10n-dev', 'dist', 'cli.js');
    execFileSync(process.execPath, [cli, 'export', '--outDir', out, './src', './webview'], { cwd: REPO, stdio: 'pipe' });
    const exported = JSON.parse(readFileSync(path.join(out, 'bundle.l10n.json'), 'utf8')) as Record<string, unknown>;
    const committed = readJson('l10n/bundle.l10n.json');
    const added = Object.keys(exported).filter((k) => !(k in committed));
    const removed = Object.keys(committed).filter((k) => !(k in exported));
    assert.deepEqual({ added, removed }, { added: [], removed: [] }, 'the English bundle is out of date: run `npm run l10n`');
    assert.deepEqual(committed, exported);
  });
});
