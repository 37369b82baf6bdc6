// Issue 21, items 6, 7 and 10 through the built MCP server (dist/mcp.js) and the SDK's client over
// stdio: concurrent commands wait for a slot and say so; every failure keeps its code and a bounded
// text; a cancelled command's setsid grandchild is stopped with it.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { listProcesses } from '../../src/core/capture/processTree';
import { eventually, isRunning } from '../unit/helpers/processes';
import { MCP_BUNDLE, connectStdio, ensureBuilt, okText, textOf } from '../unit/helpers/mcpServer';
import { skipBecause } from '../unit/helpers/mochaRun';
import { useTempDirs } from '../unit/helpers/tempDirs';

/** The live children of `pid` (zombies awaiting their reaper do not count). */
const childrenOf = (pid: number): number[] =>
  listProcesses()
    .filter((entry) => entry.ppid === pid && isRunning(entry.pid))
    .map((entry) => entry.pid);

/** One failed call's text: an isError result that names its code, in at most `max` characters. */
function failure(result: unknown, tool: string, max = 2000): { code: string; text: string } {
  const text = textOf(result);
  assert.equal((result as { isError?: boolean }).isError, true, text.slice(0, 300));
  const code = new RegExp(`^${tool} failed \\(([A-Z_]+)\\): `).exec(text)?.[1];
  assert.ok(code, `no code in: ${text.slice(0, 300)}`);
  assert.ok(text.length <= max, `${text.length} characters: ${text.slice(0, 300)}`);
  return { code, text };
}

/**
 * Sends one tools/call whose arguments are `argumentsJson` exactly, as a line on the server's stdin
 * (the SDK client cannot: it serialises with JSON.stringify, which overflows its own stack on
 * arguments nested 5,000 deep), and resolves to the result's text.
 */
async function rawCall(args: string[], tool: string, argumentsJson: string): Promise<{ text: string; isError: boolean }> {
  const child = spawn(process.execPath, [MCP_BUNDLE, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let buffered = '';
  const answer = new Promise<{ text: string; isError: boolean }>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      for (const line of buffered.split('\n').slice(0, -1)) {
        const message = JSON.parse(line) as { id?: number; result?: { content: { text: string }[]; isError?: boolean }; error?: unknown };
        if (message.id !== 2) continue;
        if (!message.result) return reject(new Error(`not a result: ${line.slice(0, 300)}`));
        resolve({ text: message.result.content.map((block) => block.text).join(''), isError: message.result.isError === true });
      }
    });
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before answering`)));
  });
  const send = (line: string): boolean => child.stdin.write(`${line}\n`);
  send(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  );
  send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":${JSON.stringify(tool)},"arguments":${argumentsJson}}}`);
  try {
    return await answer;
  } finally {
    child.kill();
  }
}

describe('mcp server: concurrent work, error codes, escaped processes', function () {
  this.timeout(120_000);
  const dirs = useTempDirs('mcp-limits');
  let server: Awaited<ReturnType<typeof connectStdio>>;
  let workspace: string;
  let store: string;
  before(async () => {
    await ensureBuilt();
    workspace = dirs.make();
    store = dirs.make();
    writeFileSync(path.join(workspace, 'notes.txt'), 'alpha\nbeta\n');
    mkdirSync(path.join(workspace, 'a-folder'));
    server = await connectStdio(['--workspace', workspace, '--store', store, '--commands-max-concurrent', '2']);
  });
  after(() => server.close());

  it('with --commands-max-concurrent 2, three concurrent run_command: two run, the third waits, then its result says how long and why', async () => {
    const work = path.join(workspace, 'gate');
    mkdirSync(work);
    const command = 'echo + >> log; while [ ! -e go ]; do sleep 0.05; done; echo - >> log';
    const calls = Array.from({ length: 3 }, () => server.client.callTool({ name: 'run_command', arguments: { command, cwd: 'gate' } }));
    const started = (): number =>
      existsSync(path.join(work, 'log'))
        ? readFileSync(path.join(work, 'log'), 'utf8')
            .split('\n')
            .filter((l) => l === '+').length
        : 0;
    assert.ok(await eventually(() => started() === 2 && /run_command queued: /.test(server.stderr()), 20_000), server.stderr());
    // The process the client started answers it and forks the server (front.ts); the commands are the server's.
    const [serverPid, ...more] = childrenOf(server.transport.pid!);
    assert.deepEqual(more, [], "the server is the front's only child");
    assert.equal(childrenOf(serverPid).length, 2, "two shells are the server's only children");
    writeFileSync(path.join(work, 'go'), '');
    const texts = (await Promise.all(calls)).map((result) => okText(result));
    let running = 0;
    let peak = 0;
    for (const mark of readFileSync(path.join(work, 'log'), 'utf8').split('\n').filter(Boolean)) {
      running += mark === '+' ? 1 : -1;
      peak = Math.max(peak, running);
    }
    assert.equal(peak, 2);
    const queued = texts.filter((text) => /^queued /m.test(text));
    assert.equal(queued.length, 1);
    assert.match(
      queued[0],
      /^\$ echo .*\nexit code 0; \d+\.\d s\nstdout: .*; cwd .*\nqueued \d+\.\d s before it started: 2 commands were running, the most that run at once \(2; setting toolOutputRecall\.commands\.maxConcurrent\)\.\n/,
    );
  });

  it('every failure names its code and stays short: E2BIG, NUL, a folder, a 100,000-character path, a 1 MB outputId and tool name', async () => {
    const call = (name: string, args: Record<string, unknown>) => server.client.callTool({ name, arguments: args });
    const longPath = 'x'.repeat(100_000);
    const hugeId = 'o'.repeat(1_000_000);
    const cases: [string, Record<string, unknown>, string | undefined][] = [
      ['run_command', { command: `echo ${'a'.repeat(1_000_000)}` }, 'INVALID_ARGUMENT'],
      ['run_command', { command: 'echo a\0b' }, 'INVALID_ARGUMENT'],
      ['run_command', { command: 'true', cwd: longPath }, 'INVALID_ARGUMENT'],
      ['read_file_page', { path: 'notes\0.txt' }, 'INVALID_ARGUMENT'],
      ['search_tool_output', { path: 'notes\0.txt', pattern: 'a' }, 'INVALID_ARGUMENT'],
      ['search_tool_output', { path: 'a-folder', pattern: 'a' }, 'INVALID_ARGUMENT'],
      // ENAMETOOLONG: a code, whichever the reader gives it.
      ['read_file_page', { path: longPath }, undefined],
      ['search_tool_output', { path: longPath, pattern: 'a' }, undefined],
      ['read_tool_output', { outputId: hugeId }, 'NOT_FOUND'],
      ['search_tool_output', { outputId: hugeId, pattern: 'a' }, 'NOT_FOUND'],
    ];
    for (const [name, args, expected] of cases) {
      const { code, text } = failure(await call(name, args), name);
      if (expected) assert.equal(code, expected, text.slice(0, 300));
      assert.notEqual(code, 'INTERNAL', text.slice(0, 300));
    }
    await assert.rejects(call('n'.repeat(1_000_000), {}), (error: Error) => {
      assert.ok(error.message.length < 1000, `${error.message.length} characters`);
      return /There is no tool named "n{200}… \(999800 more characters\)"/.test(error.message);
    });
  });

  it('arguments nested 5,000 deep: INVALID_ARGUMENT, not a stack overflow', async () => {
    const deep = `${'['.repeat(5000)}"x"${']'.repeat(5000)}`;
    for (const [tool, args] of [
      ['read_tool_output', `{"outputId":${deep}}`],
      ['search_tool_output', `{"outputId":"out_1","pattern":${deep}}`],
      ['read_tool_output', `{"outputId":"out_1","extra":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`],
    ]) {
      const { text, isError } = await rawCall(['--workspace', workspace, '--store', store], tool, args);
      assert.equal(isError, true);
      assert.match(text, new RegExp(`^${tool} failed \\(INVALID_ARGUMENT\\): the input nests objects or arrays more than 64 levels deep`));
    }
  });

  it('a search of a FIFO answers with a code and no advice to narrow the pattern; the other tools still answer', async function () {
    if (process.platform === 'win32') skipBecause(this, 'no FIFOs on Windows');
    const fifo = path.join(workspace, 'saved.fifo');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
    const { text } = failure(
      await server.client.callTool({ name: 'search_tool_output', arguments: { path: 'saved.fifo', pattern: 'x' } }),
      'search_tool_output',
    );
    assert.doesNotMatch(text, /narrow|refine the pattern/i);
    assert.match(okText(await server.client.callTool({ name: 'read_file_page', arguments: { path: 'notes.txt' } })), /alpha\nbeta\n$/);
  });

  it('a cancelled run_command stops its setsid grandchild too', async function () {
    if (process.platform !== 'linux') skipBecause(this, `the tree is found through /proc, which ${process.platform} does not have`);
    const pidfile = path.join(workspace, 'grandchild.pid');
    const controller = new AbortController();
    const call = server.client.callTool(
      { name: 'run_command', arguments: { command: `setsid sh -c 'echo $$ > "${pidfile}"; exec sleep 1000' & wait` } },
      { signal: controller.signal },
    );
    assert.ok(
      await eventually(() => existsSync(pidfile) && readFileSync(pidfile, 'utf8').endsWith('\n'), 10_000),
      'the grandchild started',
    );
    const pid = Number(readFileSync(pidfile, 'utf8').trim());
    assert.ok(isRunning(pid));
    controller.abort();
    await assert.rejects(call);
    assert.ok(await eventually(() => !isRunning(pid), 10_000), `setsid grandchild ${pid} is still running`);
  });
});
