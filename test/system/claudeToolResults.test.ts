// Claude Code's saved tool results (`<config>/projects/<project>/<session>/tool-results/<id>.txt`):
// read by read_file_page and search_tool_output outside the workspace, with the same refusals as
// VS Code's spill files (a link named like one that leads out, a deeper file, a FIFO, a hard link,
// a sensitive name). Real files under a CLAUDE_CONFIG_DIR made for the suite.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { ReadPolicy } from '../../src/core/files/readablePath';
import { DEFAULT_SENSITIVE_PATTERNS } from '../../src/core/files/sensitivePaths';
import { claudeConfigDir, isClaudeToolResult } from '../../src/core/files/spillFiles';
import { readFilePageText } from '../../src/core/tools/readFilePage';
import { searchFileText } from '../../src/core/tools/searchFile';
import { rejectsWith } from '../unit/helpers/assertions';
import { readablePath, useClaudeResults } from '../unit/helpers/readable';
import { skipBecause } from '../unit/helpers/mochaRun';
import { useTempDirs } from '../unit/helpers/tempDirs';

describe("Claude Code's saved tool results (read_file_page, search_tool_output {path})", () => {
  const dirs = useTempDirs('claude-results');
  const claude = useClaudeResults(() => dirs.make());
  let config: string;
  let results: string;
  let policy: ReadPolicy;
  let outside: string;
  before(async () => {
    config = claude.config();
    results = claude.results();
    outside = await fs.realpath(dirs.make());
    const workspace = await fs.realpath(dirs.make());
    policy = { folders: [workspace], allowOutsideWorkspace: false, sensitivePatterns: DEFAULT_SENSITIVE_PATTERNS };
  });

  it('reads one (Bash .txt, structured .json): searched, then paged at the match', async () => {
    const file = path.join(results, 'bknx531nw.txt');
    await fs.writeFile(file, `${'00000001 yyyy\n'.repeat(5000)}checksum=0a1b2c\n`);
    assert.equal(await readablePath(file, policy), file);
    const found = await searchFileText({ path: file, pattern: 'checksum=' }, policy);
    const match = found
      .split('\n')
      .map((line) => (line.startsWith('{') ? JSON.parse(line) : undefined))
      .find((line) => typeof line?.lineOffset === 'number');
    assert.equal(match.lineOffset, 5000 * 14);
    assert.match(await readFilePageText({ path: file, byteOffset: match.lineOffset }, policy), /checksum=0a1b2c/);
    const json = path.join(results, 'toolu_01%2Fx.json');
    await fs.writeFile(json, '{"a":1}');
    assert.equal(await readablePath(json, policy), json);
  });

  it('CLAUDE_CONFIG_DIR moves the folder; without it, ~/.claude', async () => {
    assert.equal(claudeConfigDir({ CLAUDE_CONFIG_DIR: '/x/cfg' }), '/x/cfg');
    assert.match(claudeConfigDir({}), /[/\\]\.claude$/);
    const file = path.join(results, 'moved.txt');
    await fs.writeFile(file, 'x');
    assert.equal(await isClaudeToolResult(file, { CLAUDE_CONFIG_DIR: config }), true);
    assert.equal(await isClaudeToolResult(file, {}), false, 'not under ~/.claude');
  });

  it('REFUSED: a link named like one that leads out, a file one folder deeper or shallower, other names', async () => {
    const secret = path.join(outside, 'notes.txt');
    await fs.writeFile(secret, 'not a saved result\n');
    const link = path.join(results, 'linked.txt');
    await fs.symlink(secret, link);
    const error = await rejectsWith(readablePath(link, policy), 'REFUSED');
    assert.match(error.message, /outside the workspace folders/);
    const searched = await rejectsWith(searchFileText({ path: link, pattern: 'saved' }, policy), 'REFUSED');
    assert.doesNotMatch(searched.message, /not a saved result/);

    await fs.mkdir(path.join(results, 'deeper'));
    const deeper = path.join(results, 'deeper', 'bknx531nw.txt');
    await fs.writeFile(deeper, 'x');
    await rejectsWith(readablePath(deeper, policy), 'REFUSED', 'one folder deeper');
    const noSession = path.join(config, 'projects', '-root-work-proj', 'tool-results');
    await fs.mkdir(noSession, { recursive: true });
    await fs.writeFile(path.join(noSession, 'a.txt'), 'x');
    await rejectsWith(readablePath(path.join(noSession, 'a.txt'), policy), 'REFUSED', 'no session folder');
    for (const name of ['a.log', '.hidden.txt', 'a b.txt']) {
      await fs.writeFile(path.join(results, name), 'x');
      await rejectsWith(readablePath(path.join(results, name), policy), 'REFUSED', name);
    }
  });

  it('a FIFO named like one is INVALID_ARGUMENT (never opened), a hard link and a sensitive name REFUSED', async function () {
    if (process.platform === 'win32') skipBecause(this, 'Windows has no FIFOs (mkfifo)');
    const fifo = path.join(results, 'fifo.txt');
    execFileSync('mkfifo', [fifo]);
    const error = await rejectsWith(readablePath(fifo, policy), 'INVALID_ARGUMENT');
    assert.match(error.message, /is a FIFO \(named pipe\); read_file_page reads regular files only/);

    const credential = path.join(outside, 'credentials');
    await fs.writeFile(credential, 'aws_secret_access_key=S3CR3T\n');
    const hard = path.join(results, 'hard.txt');
    await fs.link(credential, hard);
    const linked = await rejectsWith(readablePath(hard, policy), 'REFUSED');
    assert.match(linked.message, /2 names \(hard links\)/);

    const key = path.join(results, 'id_rsa.txt');
    await fs.writeFile(key, 'KEY\n');
    const sensitive = await rejectsWith(readablePath(key, policy), 'REFUSED');
    assert.match(sensitive.message, /is a sensitive file/);
  });
});
