// Issue 40 §3: `npm start` opens VS Code as a user gets it. Its code-server runs without VS Code's
// smoke-test driver option (under which no notification ever shows), the window's URL carries no
// extension-development payload (VS Code would ignore it without that option), and the extensions are
// installed as links named as VS Code names installed extensions. The tests' own launch keeps the driver.
import assert from 'node:assert/strict';
import { readFileSync, readlinkSync } from 'node:fs';
import * as path from 'node:path';
import { useTempDirs } from './helpers/tempDirs';

const ROOT = path.resolve(__dirname, '../..');

interface Dirs {
  scratch: string;
  userData: string;
  extensions: string;
  workspace: string;
  xdg: string;
}
interface Start {
  START_EXTENSIONS: string[];
  linkExtensions(extensionsDir: string, roots: readonly string[]): string[];
  startServerOptions(d: Dirs): { userDataDir: string; extensionsDir: string; smokeTestDriver: boolean };
  startUrl(port: number, folder: string): string;
}
interface Common {
  codeServerArgs(
    host: { codeServerEntry: string },
    options: { userDataDir: string; extensionsDir: string; smokeTestDriver?: boolean },
  ): string[];
}

describe('npm start: a VS Code window as a user gets it', () => {
  const dirs = useTempDirs('start-launch');
  let start: Start;
  let common: Common;
  const host = { codeServerEntry: '/cache/code-server/out/node/entry.js' };

  before(async () => {
    start = (await import(path.join(ROOT, 'scripts/start.mjs'))) as Start;
    common = (await import(path.join(ROOT, 'scripts/host/common.mjs'))) as Common;
  });

  const dirsIn = (scratch: string): Dirs => ({
    scratch,
    userData: path.join(scratch, 'user-data'),
    extensions: path.join(scratch, 'extensions'),
    workspace: path.join(scratch, 'demo-workspace'),
    xdg: path.join(scratch, 'xdg'),
  });

  it("starts code-server without the smoke-test driver; the tests' launch keeps it", () => {
    const d = dirsIn(dirs.make());
    const args = common.codeServerArgs(host, start.startServerOptions(d));
    assert.ok(!args.some((a) => a.includes('smoke-test')), `no smoke-test driver in: ${args.join(' ')}`);
    assert.ok(!args.includes('--vscode-option'), args.join(' '));
    assert.deepEqual(args.slice(args.indexOf('--extensions-dir'), args.indexOf('--extensions-dir') + 2), [
      '--extensions-dir',
      d.extensions,
    ]);
    const tests = common.codeServerArgs(host, { userDataDir: d.userData, extensionsDir: d.extensions });
    assert.deepEqual(tests.slice(-2), ['--vscode-option', 'enable-smoke-test-driver']);
  });

  it('opens a normal window on the folder: no extension-development payload', () => {
    const url = start.startUrl(4321, '/tmp/a b/demo-workspace');
    assert.equal(url, 'http://127.0.0.1:4321/?folder=%2Ftmp%2Fa%20b%2Fdemo-workspace');
    assert.ok(!url.includes('payload'));
  });

  it('installs this tree and the demo extension as links named <publisher>.<name>-<version>', () => {
    const extensions = path.join(dirs.make(), 'extensions');
    const names = start.linkExtensions(extensions, start.START_EXTENSIONS);
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { publisher: string; name: string; version: string };
    const demo = JSON.parse(readFileSync(path.join(ROOT, 'demo/extension/package.json'), 'utf8')) as typeof pkg;
    assert.deepEqual(names, [`${pkg.publisher}.${pkg.name}-${pkg.version}`, `${demo.publisher}.${demo.name}-${demo.version}`]);
    assert.equal(readlinkSync(path.join(extensions, names[0])), ROOT);
    assert.equal(readlinkSync(path.join(extensions, names[1])), path.join(ROOT, 'demo', 'extension'));
  });
});
