// The stable copy of the MCP server that Connect Other Agents installs, and the writing of the
// agents' files: the copy keeps working after the extension's folder is gone (an update), a build
// is installed once, the launcher follows a new build, old builds are pruned; files are written
// with their permissions kept, and never when they changed after the preview.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { agentTarget } from '../../src/core/agents/agents';
import { LAUNCHER, LAUNCHER_RECORD, SERVER_FILES, installServer, installedBuild, serverBuild } from '../../src/core/agents/install';
import { planFiles, writePlanned } from '../../src/core/agents/plan';
import { PACKAGE_VERSION } from '../../src/core/manifest';
import { REPO, ensureBuilt } from '../unit/helpers/mcpServer';
import { useTempDirs } from '../unit/helpers/tempDirs';

const exec = promisify(execFile);

describe('agent install: the stable server copy', function () {
  this.timeout(120_000);
  const dirs = useTempDirs('agent-install');
  before(ensureBuilt);

  /** A copy of dist/'s server files, standing in for an installed extension's folder. */
  function extensionDist(): string {
    const dist = path.join(dirs.make(), 'dist');
    mkdirSync(dist);
    for (const name of SERVER_FILES) cpSync(path.join(REPO, 'dist', name), path.join(dist, name));
    return dist;
  }

  it('installs a build whose launcher still runs after the extension folder is gone', async () => {
    const dist = extensionDist();
    const root = path.join(dirs.make(), 'mcp');
    const planned = await serverBuild(dist, root, PACKAGE_VERSION);
    assert.equal(existsSync(root), false, 'planning writes nothing');
    const installed = await installServer(dist, root, PACKAGE_VERSION);
    assert.deepEqual(
      { build: installed.build, launcher: installed.launcher },
      { build: planned.build, launcher: path.join(root, LAUNCHER) },
    );
    assert.match(installed.build, new RegExp(`^${PACKAGE_VERSION.replace(/\./g, '\\.')}-[0-9a-f]{12}$`));
    assert.ok(installed.copied && installed.relinked);
    assert.deepEqual(readdirSync(installed.dir).sort(), [...SERVER_FILES].sort());
    assert.equal(await installedBuild(root), installed.build);
    rmSync(path.dirname(dist), { recursive: true });
    const { stdout } = await exec(process.execPath, [installed.launcher, '--version']);
    assert.equal(stdout.trim(), PACKAGE_VERSION);
    assert.equal(statSync(installed.launcher).mode & 0o111, 0o111, 'the launcher is executable');
  });

  it('installs a build once, follows a new build, and keeps only the two most recent older ones', async () => {
    const root = path.join(dirs.make(), 'mcp');
    const dist = extensionDist();
    const firstBuild = await installServer(dist, root, PACKAGE_VERSION);
    const again = await installServer(dist, root, PACKAGE_VERSION);
    assert.deepEqual(
      { copied: again.copied, relinked: again.relinked, build: again.build },
      { copied: false, relinked: false, build: firstBuild.build },
    );
    const builds = [firstBuild.build];
    for (let n = 1; n <= 3; n++) {
      appendFileSync(path.join(dist, 'mcp.js'), `\n// build ${n}\n`);
      const next = await installServer(dist, root, PACKAGE_VERSION);
      assert.ok(next.copied && next.relinked && next.build !== builds.at(-1));
      assert.equal(await installedBuild(root), next.build);
      builds.push(next.build);
      // Older builds by age: make each one clearly older than the next.
      utimesSync(path.join(root, builds.at(-2)!), new Date(Date.now() - (10 - n) * 60_000), new Date(Date.now() - (10 - n) * 60_000));
    }
    const present = readdirSync(root)
      .filter((name) => name !== LAUNCHER && name !== LAUNCHER_RECORD)
      .sort();
    assert.deepEqual(present, builds.slice(1).sort(), `the oldest build is pruned: ${present.join(', ')}`);
  });

  it('records the build beside the launcher as data; a launcher without a record that describes it is reinstalled', async () => {
    const root = path.join(dirs.make(), 'mcp');
    const dist = extensionDist();
    const installed = await installServer(dist, root, PACKAGE_VERSION);
    assert.deepEqual(JSON.parse(readFileSync(path.join(root, LAUNCHER_RECORD), 'utf8')), { build: installed.build });

    // A launcher the previous release installed: no record beside it. Its build is unknown, and the
    // next install writes the record (and the launcher) again.
    rmSync(path.join(root, LAUNCHER_RECORD));
    assert.equal(await installedBuild(root), undefined);
    const again = await installServer(dist, root, PACKAGE_VERSION);
    assert.deepEqual({ copied: again.copied, relinked: again.relinked }, { copied: false, relinked: true });
    assert.equal(await installedBuild(root), installed.build);

    // A launcher rewritten since the record was (another release, or an install cut between its two
    // writes): the record does not describe it, so the build is unknown rather than wrong.
    writeFileSync(installed.launcher, `#!/usr/bin/env node\nrequire('./elsewhere/mcp.js');\n`);
    assert.equal(await installedBuild(root), undefined);
    writeFileSync(path.join(root, LAUNCHER_RECORD), 'not json');
    assert.equal(await installedBuild(root), undefined);
    assert.ok((await installServer(dist, root, PACKAGE_VERSION)).relinked);
    assert.equal(await installedBuild(root), installed.build);
    const { stdout } = await exec(process.execPath, [installed.launcher, '--version']);
    assert.equal(stdout.trim(), PACKAGE_VERSION);
  });

  it('says which file is missing from an extension folder without the server', async () => {
    const dist = extensionDist();
    rmSync(path.join(dist, 'storeWorker.js'));
    await assert.rejects(
      serverBuild(dist, dirs.make(), PACKAGE_VERSION),
      /The MCP server's storeWorker\.js is missing from .*; rebuild or reinstall the extension\./,
    );
  });
});

describe('agent install: writing the agents files', () => {
  const dirs = useTempDirs('agent-write');
  const launch = (workspace: string) => ({ node: 'node', launcher: '/x/tool-output-recall-mcp.js', workspace });

  it('writes new and merged files, keeps permissions, and reports unchanged and malformed ones', async () => {
    const workspace = dirs.make();
    writeFileSync(path.join(workspace, '.mcp.json'), '{"mcpServers":{"other":{"command":"o"}}}\n');
    chmodSync(path.join(workspace, '.mcp.json'), 0o640);
    mkdirSync(path.join(workspace, '.cursor'));
    writeFileSync(path.join(workspace, '.cursor', 'mcp.json'), 'not json');
    const codexHome = dirs.make();
    const targets = [
      agentTarget('claude-code', launch(workspace)),
      agentTarget('cursor', launch(workspace)),
      agentTarget('codex', launch(workspace), { CODEX_HOME: path.join(codexHome, 'nested') }),
    ];
    const planned = await planFiles(targets);
    assert.match(planned[0].diff, /^\+ {4}"tool-output-recall": \{$/m);
    assert.equal(planned[1].diff, '');
    assert.match(planned[2].diff, /^--- \/dev\/null\n/);
    const outcomes = await writePlanned(planned);
    assert.deepEqual(
      outcomes.map((o) => [o.agent, o.outcome, o.outcome === 'written' ? o.change : '']),
      [
        ['Claude Code', 'written', 'add'],
        ['Cursor', 'skipped', ''],
        ['Codex', 'written', 'create'],
      ],
    );
    assert.match(outcomes[1].outcome === 'skipped' ? outcomes[1].why : '', /^it is not valid JSON \(.+\)$/);
    assert.equal(statSync(path.join(workspace, '.mcp.json')).mode & 0o777, 0o640, 'permissions kept');
    assert.equal(statSync(path.join(codexHome, 'nested', 'config.toml')).mode & 0o777, 0o600, "a new user file is the user's only");
    assert.equal(readFileSync(path.join(workspace, '.cursor', 'mcp.json'), 'utf8'), 'not json');
    assert.deepEqual(
      (await writePlanned(await planFiles(targets))).map((o) => o.outcome),
      ['unchanged', 'skipped', 'unchanged'],
    );
  });

  it('does not write a file that changed after the preview', async () => {
    const workspace = dirs.make();
    const planned = await planFiles([agentTarget('claude-code', launch(workspace))]);
    writeFileSync(path.join(workspace, '.mcp.json'), '{"mcpServers":{"meanwhile":{"command":"m"}}}');
    const [outcome] = await writePlanned(planned);
    assert.deepEqual(outcome, {
      file: path.join(workspace, '.mcp.json'),
      agent: 'Claude Code',
      outcome: 'skipped',
      why: 'it changed after the preview was made; run the command again',
    });
    assert.equal(readFileSync(path.join(workspace, '.mcp.json'), 'utf8'), '{"mcpServers":{"meanwhile":{"command":"m"}}}');
  });
});
