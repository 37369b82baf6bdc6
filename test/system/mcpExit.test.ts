// How a stdio server ends (front.ts, serve.ts): at SIGINT, SIGTERM or stdin's end it removes its hook
// door's files and its lock and exits at once, without a last checkpoint: what its store acknowledged
// is in the synced journal, which the next server replays. After SIGKILL, which leaves the files, the
// next server's sweep removes them. Real processes throughout: `node dist/mcp.js` started by this
// process (the "agent"), in a run folder of the test's own (helpers/hooks.ts). Each exit's time is
// printed, never judged (timing decides no test here: bench/mcp.mjs and the decisions log have it).
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { announced, geminiEvent, hookEnv, readPage, runHook } from '../unit/helpers/hooks';
import { waitUntil } from '../unit/helpers/mochaRun';
import { connectStdio, ensureBuilt, okText, type StdioServer } from '../unit/helpers/mcpServer';
import { useTempDirs } from '../unit/helpers/tempDirs';

/** `seq 1 30000`: what the server retains before it is stopped. */
const SEQ_BYTES = Array.from({ length: 30_000 }, (_, i) => `${i + 1}\n`).join('').length;

type Ending = 'SIGINT' | 'SIGTERM' | 'stdin closed';

const childOf = (server: StdioServer): ChildProcess => (server.transport as unknown as { _process: ChildProcess })._process;
const sessionOf = (stderr: string): string => /(?:started|resumed) session (\S+) at /.exec(stderr)?.[1] ?? assert.fail(stderr);
const runDirOf = (tmp: string): string => path.join(tmp, 'tool-output-recall');

/** Whether `pid` is a running process (a zombie, ended but not yet reaped, is not). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return true; // no /proc: kill(pid, 0) is all there is
  }
}

/** Ends the server the way `how` says; resolves with how it ended and the milliseconds that took. */
async function end(
  child: ChildProcess,
  how: Ending | 'SIGKILL',
): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }> {
  const ended = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.once('exit', (code, signal) => resolve([code, signal])),
  );
  const t0 = performance.now();
  if (how === 'stdin closed') child.stdin!.end();
  else child.kill(how);
  const [code, signal] = await ended;
  return { code, signal, ms: performance.now() - t0 };
}

/** The baseline beside each time: SIGINT → exit of a minimal Node process that exits on SIGINT, at the same moment's load. */
async function minimalNodeMs(): Promise<number> {
  const child = spawn(
    process.execPath,
    ['-e', "process.on('SIGINT', () => process.exit(0)); setInterval(() => {}, 1e9); process.stdout.write('r')"],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  await new Promise((resolve) => child.stdout.once('data', resolve));
  return (await end(child, 'SIGINT')).ms;
}

describe('mcp: how a stdio server ends', function () {
  this.timeout(120_000);
  const dirs = useTempDirs('mcp-exit');
  before(ensureBuilt);

  /** A server in a run folder of its own, with `seq 1 30000` retained and its door open. */
  async function startWithOutput(tmp: string, store: string): Promise<{ server: StdioServer; outputId: string; sessionId: string }> {
    const server = await connectStdio(['--workspace', tmp, '--store', store], 'legacy', hookEnv(tmp));
    const ran = okText(await server.client.callTool({ name: 'run_command', arguments: { command: 'seq 1 30000' } }));
    const outputId = /outputId "(out_[0-9a-f]+)"/.exec(ran)?.[1] ?? assert.fail(ran);
    await announced(tmp);
    const pid = childOf(server).pid!;
    assert.deepEqual(readdirSync(runDirOf(tmp)).sort(), [`${pid}.json`, `${pid}.sock`]);
    return { server, outputId, sessionId: sessionOf(server.stderr()) };
  }

  /** The output reads whole in a new server that resumes the session (its journal replayed); then that server ends too. */
  async function readsInFreshServer(tmp: string, store: string, sessionId: string, outputId: string): Promise<void> {
    const fresh = await connectStdio(['--workspace', tmp, '--store', store, '--session', sessionId], 'legacy', hookEnv(tmp));
    try {
      const page = await readPage(fresh, outputId, 0);
      assert.equal(page.text.slice(0, 8), '1\n2\n3\n4\n');
      assert.equal(page.totalBytes, SEQ_BYTES);
    } finally {
      await end(childOf(fresh), 'stdin closed');
    }
  }

  for (const how of ['SIGINT', 'SIGTERM', 'stdin closed'] as const) {
    it(`${how}: exits at once, leaves no file in its run folder nor its lock, and a fresh server reads what it retained`, async () => {
      const tmp = dirs.make();
      const store = dirs.make();
      const { server, outputId, sessionId } = await startWithOutput(tmp, store);
      const ended = await end(childOf(server), how);
      console.log(`      (${how} → exit: ${ended.ms.toFixed(1)} ms; a minimal node -e: ${(await minimalNodeMs()).toFixed(1)} ms)`);
      // By a signal, ended by that signal (the conventional end of a program that handles it); at stdin's end, code 0.
      assert.deepEqual([ended.code, ended.signal], how === 'stdin closed' ? [0, null] : [null, how], server.stderr());
      assert.match(server.stderr(), new RegExp(`stopping \\(${how}\\)`));
      assert.deepEqual(readdirSync(runDirOf(tmp)), [], 'the announcement and the socket are gone');
      assert.equal(existsSync(path.join(store, `${sessionId}.sqlite.lock`)), false, 'the lock is released');
      await readsInFreshServer(tmp, store, sessionId, outputId);
      assert.deepEqual(readdirSync(runDirOf(tmp)), [], 'the fresh server left nothing either');
    });
  }

  it('a signal sent the moment a retain is acknowledged: both copies (run_command, a hook) read whole in a fresh server', async () => {
    const tmp = dirs.make();
    const store = dirs.make();
    const server = await connectStdio(['--workspace', tmp, '--store', store], 'legacy', hookEnv(tmp));
    const sessionId = sessionOf(server.stderr());
    await announced(tmp);
    const output = Array.from({ length: 2000 }, (_, i) => `build step ${i} done`).join('\n');
    const hook = runHook('gemini-cli-after-tool', geminiEvent(`${output}\n`), tmp);
    assert.equal(hook.status, 0, hook.stderr);
    const hookId = /outputId \\"(out_[0-9a-f]+)\\"/.exec(hook.stdout)?.[1] ?? assert.fail(hook.stdout);
    // The signal goes in the same turn as the answer arrives: nothing of the server's runs in between.
    const child = childOf(server);
    const ran = await server.client.callTool({ name: 'run_command', arguments: { command: 'seq 1 30000' } }).then((result) => {
      child.kill('SIGINT');
      return okText(result);
    });
    const outputId = /outputId "(out_[0-9a-f]+)"/.exec(ran)?.[1] ?? assert.fail(ran);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.exitCode !== null || child.signalCode !== null
        ? resolve([child.exitCode, child.signalCode])
        : child.once('exit', (c, s) => resolve([c, s])),
    );
    assert.deepEqual([code, signal], [null, 'SIGINT'], server.stderr());
    assert.deepEqual(readdirSync(runDirOf(tmp)), []);
    assert.equal(existsSync(path.join(store, `${sessionId}.sqlite.lock`)), false);
    const fresh = await connectStdio(['--workspace', tmp, '--store', store, '--session', sessionId], 'legacy', hookEnv(tmp));
    try {
      assert.equal((await readPage(fresh, outputId, 0)).totalBytes, SEQ_BYTES, 'the command output, whole');
      assert.equal((await readPage(fresh, hookId, 0)).totalBytes, Buffer.byteLength(output), "the hook's copy, whole");
    } finally {
      await end(childOf(fresh), 'stdin closed');
    }
  });

  it('SIGINT while run_command runs: the command is stopped with the server, and nothing is left behind', async () => {
    const tmp = dirs.make();
    const store = dirs.make();
    const { server, outputId, sessionId } = await startWithOutput(tmp, store);
    const pidFile = path.join(tmp, 'command.pid');
    // Never answered: the server ends first (the client sees its connection close).
    const call = server.client.callTool({ name: 'run_command', arguments: { command: `echo $$ > ${pidFile}; exec sleep 600` } });
    call.catch(() => undefined);
    await waitUntil('the command to start', () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').endsWith('\n'));
    const commandPid = Number(readFileSync(pidFile, 'utf8'));
    assert.ok(running(commandPid));
    const ended = await end(childOf(server), 'SIGINT');
    console.log(`      (SIGINT with a command running → exit: ${ended.ms.toFixed(1)} ms)`);
    assert.deepEqual([ended.code, ended.signal], [null, 'SIGINT'], server.stderr());
    await waitUntil(`the command (pid ${commandPid}) to end`, () => !running(commandPid));
    assert.deepEqual(readdirSync(runDirOf(tmp)), []);
    assert.equal(existsSync(path.join(store, `${sessionId}.sqlite.lock`)), false);
    await readsInFreshServer(tmp, store, sessionId, outputId);
  });

  it("SIGKILL leaves the door's files; the next server's sweep removes them, takes the stale lock over and reads the output", async () => {
    const tmp = dirs.make();
    const store = dirs.make();
    const { server, outputId, sessionId } = await startWithOutput(tmp, store);
    const pid = childOf(server).pid!;
    const ended = await end(childOf(server), 'SIGKILL');
    assert.equal(ended.signal, 'SIGKILL');
    // Nothing runs in a process killed so: its files stay until another server sweeps them.
    assert.deepEqual(readdirSync(runDirOf(tmp)).sort(), [`${pid}.json`, `${pid}.sock`]);
    assert.ok(existsSync(path.join(store, `${sessionId}.sqlite.lock`)));
    const next = await connectStdio(['--workspace', tmp, '--store', store, '--session', sessionId], 'legacy', hookEnv(tmp));
    try {
      const nextPid = childOf(next).pid!;
      // The sweep runs before the door opens: once the new server has announced itself, the dead one's files are gone.
      await waitUntil('the next server to announce itself', () => existsSync(path.join(runDirOf(tmp), `${nextPid}.json`)));
      assert.deepEqual(readdirSync(runDirOf(tmp)).sort(), [`${nextPid}.json`, `${nextPid}.sock`]);
      const page = await readPage(next, outputId, 0);
      assert.equal(page.totalBytes, SEQ_BYTES, 'acknowledged before the kill, replayed from the journal');
    } finally {
      await end(childOf(next), 'SIGTERM');
    }
    assert.deepEqual(readdirSync(runDirOf(tmp)), []);
  });
});
