// The HTTP server always needs a bearer token (127.0.0.1 is open to every local user, and its tools
// run commands as the server's user): given with --token or TOOL_OUTPUT_RECALL_MCP_TOKEN, or kept in
// a file only the user can read, made on first start and reused. A request from another uid (nobody)
// is refused in every mode, and that user can read neither the file nor the server's environment.
import assert from 'node:assert/strict';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { TokenFileError, bearerToken, defaultTokenFile, tokenFromFile } from '../../src/mcp/token';
import { ensureBuilt, runToExit, startHttp } from '../unit/helpers/mcpServer';
import { NOBODY, cannotSwitchUser, nobodyCallsRunCommand, nobodyReads } from '../unit/helpers/otherUser';
import { skipBecause } from '../unit/helpers/mochaRun';
import { useTempDirs } from '../unit/helpers/tempDirs';

const modeOf = (file: string) => (statSync(file).mode & 0o777).toString(8);

describe('mcp: the HTTP bearer token file', () => {
  const dirs = useTempDirs('mcp-token-file');
  const refusal = async (file: string, expected: RegExp) => {
    await assert.rejects(tokenFromFile(file), (error: unknown) => {
      assert.ok(error instanceof TokenFileError, String(error));
      assert.match(error.message, expected);
      return true;
    });
  };

  it('is made on first use, 32 random bytes in a 0600 file in a 0700 folder, and reused after', async () => {
    const file = path.join(dirs.make(), 'state', 'tool-output-recall', 'mcp-http-token');
    const made = await tokenFromFile(file);
    assert.equal(made.created, true);
    assert.match(made.token, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(readFileSync(file, 'utf8'), `${made.token}\n`);
    assert.equal(modeOf(file), '600');
    assert.equal(modeOf(path.dirname(file)), '700');
    assert.equal(modeOf(path.dirname(path.dirname(file))), '700');
    assert.deepEqual(readdirSync(path.dirname(file)), ['mcp-http-token'], 'no temporary file left');
    assert.deepEqual(await tokenFromFile(file), { token: made.token, created: false });
    assert.notEqual((await tokenFromFile(path.join(dirs.make(), 'other'))).token, made.token);
  });

  it('is one token when several servers make it at once', async () => {
    const file = path.join(dirs.make(), 'mcp-http-token');
    const results = await Promise.all(Array.from({ length: 8 }, () => tokenFromFile(file)));
    assert.equal(new Set(results.map((result) => result.token)).size, 1);
    assert.equal(results.filter((result) => result.created).length, 1);
    assert.equal(readFileSync(file, 'utf8').trim(), results[0].token);
  });

  it('lives in the state folder, one per user for every workspace', () => {
    assert.equal(defaultTokenFile({ XDG_STATE_HOME: '/srv/state' }), '/srv/state/tool-output-recall/mcp-http-token');
    assert.equal(defaultTokenFile({ HOME: '/home/u' }), '/home/u/.local/state/tool-output-recall/mcp-http-token');
  });

  it('says where the token is, never what it is', async () => {
    const file = path.join(dirs.make(), 'token');
    const fromFile = await bearerToken({ file });
    assert.equal(fromFile.where, `in ${file}`);
    assert.ok(!fromFile.where.includes(fromFile.token));
    assert.equal(
      (await bearerToken({ token: 'x'.repeat(20), from: 'TOOL_OUTPUT_RECALL_MCP_TOKEN' })).where,
      "the server's TOOL_OUTPUT_RECALL_MCP_TOKEN",
    );
    assert.equal((await bearerToken({ token: 'x'.repeat(20), from: '--token' })).where, 'the one given with --token');
  });

  it('is refused when other users can read or change it, with the fix; 0400 is fine', async () => {
    const dir = dirs.make();
    for (const mode of [0o644, 0o640, 0o604, 0o620, 0o602, 0o666]) {
      const file = path.join(dir, `token-${mode.toString(8)}`);
      writeFileSync(file, 'a-token-of-twenty-chars\n');
      chmodSync(file, mode);
      await refusal(
        file,
        new RegExp(
          `^the bearer token file ${file} can be read or changed by other users \\(mode 0${mode.toString(8)}\\): run chmod 600 ${file} if no one else has read it, else delete it`,
        ),
      );
    }
    const readOnly = path.join(dir, 'read-only');
    writeFileSync(readOnly, 'a-token-of-twenty-chars\n');
    chmodSync(readOnly, 0o400);
    assert.equal((await tokenFromFile(readOnly)).token, 'a-token-of-twenty-chars');
  });

  it('is refused when it is a symlink (even to a good token file), a FIFO, a folder, empty, short or huge', async () => {
    const dir = dirs.make();
    const good = path.join(dir, 'good');
    const { token } = await tokenFromFile(good);
    const link = path.join(dir, 'link');
    symlinkSync(good, link);
    await refusal(
      link,
      /^the bearer token file .*\/link is a symbolic link; the token file must be a regular file: delete it and start the server again/,
    );
    assert.ok(lstatSync(link).isSymbolicLink(), 'the link is left for the user to look at');
    assert.equal((await tokenFromFile(good)).token, token);
    const fifo = path.join(dir, 'fifo');
    execFileSync('mkfifo', ['-m', '600', fifo]);
    await refusal(fifo, /\/fifo is not a regular file/);
    const folder = path.join(dir, 'folder');
    mkdirSync(folder, { mode: 0o700 });
    await refusal(folder, /\/folder is not a regular file/);
    for (const [name, text, expected] of [
      ['empty', '', /holds no usable token: the token must be at least 16 characters; it has 0/],
      ['short', 'abc\n', /it has 3/],
      ['spaced', 'a token with spaces in it\n', /must be printable ASCII without spaces/],
      ['huge', 'x'.repeat(5000), /is 5000 bytes, not a token/],
    ] as const) {
      const file = path.join(dir, name);
      writeFileSync(file, text, { mode: 0o600 });
      await refusal(file, expected);
    }
  });

  it('says why it cannot be made', async () => {
    const blocker = path.join(dirs.make(), 'a-file');
    writeFileSync(blocker, '');
    await refusal(
      path.join(blocker, 'token'),
      /^cannot make the bearer token file .*\/a-file\/token \(EEXIST: file already exists, mkdir '.*\/a-file'\): name a file in a folder you can write with --token-file, or set TOOL_OUTPUT_RECALL_MCP_TOKEN\.$/,
    );
  });

  it('is refused when another user owns it, and that user (nobody) cannot read ours', async function () {
    const why = cannotSwitchUser();
    if (why) skipBecause(this, why);
    const dir = dirs.make();
    chmodSync(dir, 0o755);
    const theirs = path.join(dir, 'theirs');
    writeFileSync(theirs, 'a-token-of-twenty-chars\n', { mode: 0o600 });
    chownSync(theirs, NOBODY.uid, NOBODY.gid);
    await refusal(
      theirs,
      /theirs belongs to uid 65534, not to the user running the server \(uid 0\), so its owner can read and change the token/,
    );
    const ours = path.join(dir, 'ours');
    await tokenFromFile(ours);
    assert.equal(await nobodyReads(ours), 'EACCES');
    assert.equal(await nobodyReads(theirs), 'read', 'the same user can read a file of its own (the check above is not vacuous)');
  });
});

describe('mcp: --http refuses other local users in every token mode', function () {
  this.timeout(120_000);
  const dirs = useTempDirs('mcp-token-modes');
  before(() => ensureBuilt());
  const GIVEN = 'a-token-given-to-the-server-0123';
  /** No token in the environment (startHttp leaves out a variable set to ''). */
  const NO_ENV = { TOOL_OUTPUT_RECALL_MCP_TOKEN: '' };

  /** Starts the server in `mode`; resolves with it, its token and where the 401 says it is. */
  async function start(mode: 'flag' | 'env' | 'generated' | 'token-file') {
    const state = dirs.make();
    // A folder others may enter, so nobody meets the file's own mode, not a closed folder above it.
    const tokenFile = path.join(dirs.make(), 'my-token');
    chmodSync(path.dirname(tokenFile), 0o755);
    const base = ['--workspace', dirs.make(), '--store', dirs.make()];
    const server =
      mode === 'flag'
        ? await startHttp([...base, '--token', GIVEN], NO_ENV)
        : mode === 'env'
          ? await startHttp(base, { TOOL_OUTPUT_RECALL_MCP_TOKEN: GIVEN })
          : mode === 'generated'
            ? await startHttp(base, { ...NO_ENV, XDG_STATE_HOME: state })
            : await startHttp([...base, '--token-file', tokenFile], NO_ENV);
    const file = mode === 'generated' ? path.join(state, 'tool-output-recall', 'mcp-http-token') : tokenFile;
    // Read when needed, as a client would: an attack comes before anyone has looked.
    const token = () => (mode === 'flag' || mode === 'env' ? GIVEN : readFileSync(file, 'utf8').trim());
    const where =
      mode === 'flag' ? 'the one given with --token' : mode === 'env' ? "the server's TOOL_OUTPUT_RECALL_MCP_TOKEN" : `in ${file}`;
    return { server, token, where, file };
  }

  // No token given first: the mode that used to serve everyone.
  const MODES = ['generated', 'token-file', 'env', 'flag'] as const;

  for (const mode of MODES) {
    it(`${mode}: a request without the token or with a wrong one gets 401 saying where the token is; with it, 200; the log never shows it`, async () => {
      const { server, token: readToken, where } = await start(mode);
      try {
        const token = readToken();
        const marker = path.join(dirs.make(), 'ran');
        const call = (headers: Record<string, string>) =>
          fetch(server.url, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: 1,
              method: 'tools/call',
              params: { name: 'run_command', arguments: { command: `echo ran > ${marker}` } },
            }),
          });
        for (const headers of [{}, { Authorization: 'Bearer wrong-token-0123456789abcdef' }] as Record<string, string>[]) {
          const refused = await call(headers);
          assert.equal(refused.status, 401);
          assert.equal(await refused.text(), `Unauthorized: send "Authorization: Bearer <token>"; the token is ${where}.\n`);
        }
        assert.equal(existsSync(marker), false);
        const ok = await call({ Authorization: `Bearer ${token}` });
        assert.equal(ok.status, 200);
        await ok.text();
        assert.equal(existsSync(marker), true);
        assert.match(server.stderr(), new RegExp(`bearer token required, ${where.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
        assert.ok(!server.stderr().includes(token), 'the token is not in the log');
        if (mode === 'flag') assert.match(server.stderr(), /warning: --token shows the token to every local user \(ps, \/proc\)/);
        if (mode === 'generated' || mode === 'token-file')
          assert.match(server.stderr(), /made a new bearer token in .* \(mode 0600: only you can read it\)/);
      } finally {
        await server.stop();
      }
    });
  }

  it('as another user (nobody): 401 and nothing runs in every mode; nobody reads neither the token file nor the environment', async function () {
    const why = cannotSwitchUser();
    if (why) skipBecause(this, why);
    for (const mode of MODES) {
      const { server, token, where, file } = await start(mode);
      try {
        // The command would leave a file where nobody may write (the server runs as root): proof it never ran.
        const marker = path.join(dirs.make(), 'ran');
        for (const headers of [{}, { Authorization: 'Bearer wrong-token-0123456789abcdef' }] as Record<string, string>[]) {
          const answer = await nobodyCallsRunCommand(server.url, `id > ${marker}`, headers);
          assert.equal(answer.status, 401, `${mode}: ${answer.body}`);
          assert.equal(answer.body, `Unauthorized: send "Authorization: Bearer <token>"; the token is ${where}.\n`);
          assert.ok(!answer.body.includes(token()));
        }
        assert.equal(existsSync(marker), false, mode);
        if (mode === 'generated' || mode === 'token-file') assert.equal(await nobodyReads(file), 'EACCES', `${mode}: ${file}`);
        if (mode === 'env') assert.equal(await nobodyReads(`/proc/${server.child.pid}/environ`), 'EACCES');
      } finally {
        await server.stop();
      }
    }
  });

  it('generated: the next start reuses the token file, so a configured client keeps working', async () => {
    const state = dirs.make();
    const env = { ...NO_ENV, XDG_STATE_HOME: state };
    const first = await startHttp(['--workspace', dirs.make(), '--store', dirs.make()], env);
    await first.stop();
    const file = path.join(state, 'tool-output-recall', 'mcp-http-token');
    const token = readFileSync(file, 'utf8');
    const second = await startHttp(['--workspace', dirs.make(), '--store', dirs.make()], env);
    try {
      assert.equal(readFileSync(file, 'utf8'), token);
      assert.doesNotMatch(second.stderr(), /made a new bearer token/);
      const answer = await fetch(second.url, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token.trim()}`, 'Content-Type': 'application/json' },
        body: '{}',
      });
      assert.notEqual(answer.status, 401);
    } finally {
      await second.stop();
    }
  });

  it('does not start when the token file can be read by others, and opens no session', async () => {
    const state = dirs.make();
    const file = path.join(state, 'tool-output-recall', 'mcp-http-token');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, 'a-token-of-twenty-chars\n', { mode: 0o644 });
    chmodSync(file, 0o644);
    const store = path.join(dirs.make(), 'store');
    const run = await runToExit(['--http', '0', '--workspace', dirs.make(), '--store', store], { XDG_STATE_HOME: state });
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      /^tool-output-recall-mcp: the bearer token file .*mcp-http-token can be read or changed by other users \(mode 0644\): run chmod 600/m,
    );
    assert.equal(existsSync(store), false);
  });
});
