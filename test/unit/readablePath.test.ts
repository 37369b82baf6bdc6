import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { ReadPolicy } from '../../src/core/files/readablePath';
import { readablePath } from './helpers/readable';
import { DEFAULT_SENSITIVE_PATTERNS } from '../../src/core/files/sensitivePaths';
import { rejectsWith } from './helpers/assertions';
import { useTempDirs } from './helpers/tempDirs';

describe('read_file_page: which files it may read (openReadableFile)', () => {
  const dirs = useTempDirs('readable');
  let workspace: string;
  let outside: string;
  let policy: ReadPolicy;
  before(async () => {
    // Real paths: on some systems the temp folder is itself behind a link (macOS /var → /private/var).
    workspace = await fs.realpath(dirs.make());
    outside = await fs.realpath(dirs.make());
    await fs.writeFile(path.join(workspace, 'notes.txt'), 'inside\n');
    await fs.writeFile(path.join(workspace, '.env'), 'API_KEY=S3CR3T\n');
    await fs.writeFile(path.join(outside, 'notes.txt'), 'outside\n');
    await fs.writeFile(path.join(outside, 'id_rsa'), 'KEY\n');
    await fs.symlink(path.join(outside, 'notes.txt'), path.join(workspace, 'link-out.txt'));
    await fs.symlink(path.join(workspace, '.env'), path.join(workspace, 'innocent.txt'));
    policy = { folders: [workspace], allowOutsideWorkspace: false, sensitivePatterns: DEFAULT_SENSITIVE_PATTERNS };
  });

  it('resolves a relative path from the first workspace folder', async () => {
    assert.equal(await readablePath('notes.txt', policy), path.join(workspace, 'notes.txt'));
  });

  it('REFUSED: a symlink from the workspace to a file outside it, saying how the user can allow it', async () => {
    const error = await rejectsWith(readablePath('link-out.txt', policy), 'REFUSED');
    assert.match(
      error.message,
      /outside the workspace folders; read_file_page does not read there \(only the files VS Code, Claude Code, OpenCode and Kilo Code save oversized tool results to\)/,
    );
    assert.match(
      error.message,
      /Use a file inside the workspace, or ask the user to allow it: in VS Code with the setting toolOutputRecall\.readFilePage\.allowOutsideWorkspace, for the MCP server with its option --read-file-page-allow-outside-workspace/,
    );
    assert.equal(await readablePath('link-out.txt', { ...policy, allowOutsideWorkspace: true }), path.join(outside, 'notes.txt'));
  });

  it('REFUSED: a sensitive file, by its name or by the file a link reaches, without its content', async () => {
    for (const requested of ['.env', 'innocent.txt']) {
      const error = await rejectsWith(readablePath(requested, policy), 'REFUSED', requested);
      assert.match(
        error.message,
        /is a sensitive file .*read_file_page does not read credentials\. Ask the user for the specific non-secret value you need\./,
      );
      assert.ok(!error.message.includes('S3CR3T'));
    }
    // Allowing the outside does not allow credentials there.
    await rejectsWith(readablePath(path.join(outside, 'id_rsa'), { ...policy, allowOutsideWorkspace: true }), 'REFUSED');
  });

  it('issue 28: a sensitive name in any case is REFUSED, on every system; the exceptions read in any case', async () => {
    const files: [name: string, content: string, refused: boolean][] = [
      ['.ENV', 'API_KEY=S3CR3T\n', true],
      ['.AWS/credentials', '[default]\naws_session_label = S3CR3T\n', true],
      ['certs/cert.PFX', 'S3CR3T\n', true],
      ['keys/ID_ED25519', 'S3CR3T\n', true],
      ['.NPMRC', '//registry.npmjs.org/:_authToken=S3CR3T\n', true],
      ['keys/ID_ED25519.PUB', 'ssh-ed25519 AAAA me@host\n', false],
      ['PROD.ENV.EXAMPLE', 'API_KEY=\n', false],
      ['.Env.Local.Sample', 'API_KEY=\n', false],
      ['npm/.NPMRC', 'save-exact=true\n', false],
    ];
    for (const [i, [name, content, refused]] of files.entries()) {
      // Each in a folder of its own: on a case-insensitive file system `.ENV` is `.env`.
      const file = path.join(workspace, 'case', String(i), name);
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, content);
      const requested = path.join('case', String(i), name);
      if (refused) {
        const error = await rejectsWith(readablePath(requested, policy), 'REFUSED', name);
        assert.match(error.message, /is a sensitive file .*read_file_page does not read credentials/, name);
        assert.ok(!error.message.includes('S3CR3T'));
      } else {
        assert.equal(await readablePath(requested, policy), file, name);
      }
    }
    // The user's own patterns too.
    await fs.writeFile(path.join(workspace, 'case', 'Token.SECRET'), 'S3CR3T\n');
    const own = { ...policy, sensitivePatterns: ['*.secret'] };
    assert.match((await rejectsWith(readablePath('case/Token.SECRET', own), 'REFUSED')).message, /matches "\*\.secret"/);
  });

  it('INVALID_ARGUMENT for a path that is not one, NOT_FOUND for a missing file', async () => {
    for (const bad of ['', '  ', 42, undefined]) await rejectsWith(readablePath(bad, policy), 'INVALID_ARGUMENT', String(bad));
    const error = await rejectsWith(readablePath('missing.txt', policy), 'NOT_FOUND');
    assert.match(error.message, /Check the path/);
  });
});
