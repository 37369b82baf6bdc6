// Issue 28, item 10: a command never gets the MCP server's bearer token, which the server may hold in
// its environment (TOOL_OUTPUT_RECALL_MCP_TOKEN): whoever has the token can run commands through the
// server, and a command's output (`env`) is shown to the model and kept in the session.
import assert from 'node:assert/strict';
import { runCommand } from '../../src/core/tools/runCommand';
import { SERVER_ONLY_ENV, commandEnv } from '../../src/core/capture/commandEnv';
import { TOKEN_ENV } from '../../src/mcp/token';
import { HTTP_TEST_TOKEN, connectHttp, ensureBuilt, okText, startHttp } from '../unit/helpers/mcpServer';
import { useTempDirs } from '../unit/helpers/tempDirs';
import { skipBecause } from '../unit/helpers/mochaRun';

const TOKEN = 'unit-test-secret-token-9f2c41d7e0';

describe("commands never get the server's token", function () {
  this.timeout(120_000);
  const dirs = useTempDirs('command-env');

  it("names the server's token variable (the engine names it again; the two must agree)", () => {
    assert.ok(SERVER_ONLY_ENV.includes(TOKEN_ENV));
  });

  it("drops the server-only variables from the inherited environment, keeps the rest, and lays the caller's over it", () => {
    const inherited = { PATH: '/bin', HOME: '/home/u', [TOKEN_ENV]: TOKEN, OTHER: 'kept' };
    assert.deepEqual(commandEnv(inherited, { EXTRA: 'given' }, 'linux'), { PATH: '/bin', HOME: '/home/u', OTHER: 'kept', EXTRA: 'given' });
    // Another case is another variable on Linux and macOS, the same one on Windows.
    const cased = { PATH: '/bin', [TOKEN_ENV.toLowerCase()]: TOKEN };
    assert.deepEqual(commandEnv(cased, {}, 'linux'), cased);
    assert.deepEqual(commandEnv(cased, {}, 'win32'), { PATH: '/bin' });
    assert.equal(inherited[TOKEN_ENV], TOKEN, 'the inherited environment is not changed');
  });

  describe('in a process whose environment holds the token', () => {
    let before: string | undefined;
    beforeEach(() => {
      before = process.env[TOKEN_ENV];
      process.env[TOKEN_ENV] = TOKEN;
    });
    afterEach(() => {
      if (before === undefined) delete process.env[TOKEN_ENV];
      else process.env[TOKEN_ENV] = before;
    });

    it('`env` shows nothing of it, and `printenv` finds no such variable', async () => {
      const work = dirs.make();
      const env = await runCommand({ command: 'env', cwd: work }, undefined);
      assert.equal(env.exitCode, 0);
      assert.match(env.preview, /^PATH=/m, 'env printed the environment');
      assert.ok(!env.preview.includes(TOKEN), 'the token is not in the output');
      assert.ok(!env.preview.includes(TOKEN_ENV), 'nor its variable');
      const printed = await runCommand({ command: `printenv ${TOKEN_ENV}`, cwd: work }, undefined);
      assert.equal(printed.exitCode, 1, 'printenv: no such variable');
      assert.equal(printed.preview, '');
    });

    it('nor does a command started by the command', async () => {
      const nested = await runCommand({ command: `sh -c 'printenv ${TOKEN_ENV} || echo unset'`, cwd: dirs.make() }, undefined);
      assert.equal(nested.preview, 'unset\n');
    });
  });

  it("run_command through the HTTP server, which reads its token from the variable, shows nothing of the server's token", async function () {
    if (process.platform === 'win32') skipBecause(this, 'printenv and env are POSIX tools');
    await ensureBuilt();
    // startHttp sets TOOL_OUTPUT_RECALL_MCP_TOKEN=HTTP_TEST_TOKEN in the server's environment.
    const server = await startHttp(['--workspace', dirs.make(), '--store', dirs.make()]);
    const client = await connectHttp(server.url, 'legacy', server.auth);
    try {
      const run = async (command: string) => okText(await client.callTool({ name: 'run_command', arguments: { command } }));
      const env = await run('env');
      assert.match(env, /^PATH=/m, 'env printed the environment');
      assert.ok(!env.includes(HTTP_TEST_TOKEN), 'the token is not in the output');
      assert.ok(!env.includes(TOKEN_ENV), 'nor its variable');
      const printed = await run(`printenv ${TOKEN_ENV}; echo "exit $?"`);
      assert.match(printed, /^exit 1$/m);
      assert.ok(!printed.includes(HTTP_TEST_TOKEN));
    } finally {
      await client.close();
      await server.stop();
    }
  });
});
