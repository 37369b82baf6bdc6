// How a stdio server ends (front.ts, stdioChild.ts, serve.ts): at SIGINT, SIGTERM or stdin's end the
// entry (the process the client started) removes the hook door's files and exits at once; the server,
// its child process, stops its commands, releases its lock and ends by itself, without a last
// checkpoint: what its store acknowledged is in the synced journal, which the next server replays. The
// server ends so too when the entry is SIGKILLed. When both are killed, the next server's sweep removes
// their files. Real processes throughout: `node dist/mcp.js` started by this process (the "agent"), in
// a run folder of the test's own (helpers/hooks.ts). Each exit's time is printed, never judged (timing
// decides no test here: bench/mcp.mjs and the decisions log have it).
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

/** The server's process: the entry's one child running dist/mcpServer.js (Linux: /proc). */
function serverPidOf(entry: ChildProcess): number {
  const children = readFileSync(`/proc/${entry.pid}/task/${entry.pid}/children`, 'latin1').trim().split(/\s+/).map(Number);
  const servers = children.filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('mcpServer.js'));
  assert.equal(servers.length, 1, `the entry's children: ${children.join(' ')}`);
  return servers[0];
}

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

  /** The server's process ends by itself after the entry's, and releases the session's lock. */
  async function serverEnds(serverPid: number, store: string, sessionId: string): Promise<void> {
    const t0 = performance.now();
    await waitUntil(`the server's process (pid ${serverPid}) to end`, () => !running(serverPid));
    console.log(`      (the server's process ended ${(performance.now() - t0).toFixed(1)} ms after the entry)`);
    await waitUntil('the lock to be released', () => !existsSync(path.join(store, `${sessionId}.sqlite.lock`)));
  }

  for (const how of ['SIGINT', 'SIGTERM', 'stdin closed'] as const) {
    it(`${how}: exits at once with no file left in its run folder; its server ends, releases the lock, and a fresh server reads what it retained`, async () => {
      const tmp = dirs.make();
      const store = dirs.make();
      const { server, outputId, sessionId } = await startWithOutput(tmp, store);
      const serverPid = serverPidOf(childOf(server));
      const ended = await end(childOf(server), how);
      assert.deepEqual(readdirSync(runDirOf(tmp)), [], 'the announcement and the socket are gone');
      console.log(`      (${how} → exit: ${ended.ms.toFixed(1)} ms; a minimal node -e: ${(await minimalNodeMs()).toFixed(1)} ms)`);
      // By a signal, ended by that signal (the conventional end of a program that handles it); at stdin's end, code 0.
      assert.deepEqual([ended.code, ended.signal], how === 'stdin closed' ? [0, null] : [null, how], server.stderr());
      assert.match(server.stderr(), new RegExp(`stopping \\(${how}\\)`));
      await serverEnds(serverPid, store, sessionId);
      assert.deepEqual(readdirSync(runDirOf(tmp)), [], 'nor did the server leave any');
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
    const serverPid = serverPidOf(child);
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
    await serverEnds(serverPid, store, sessionId);
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
    const serverPid = serverPidOf(childOf(server));
    const ended = await end(childOf(server), 'SIGINT');
    console.log(`      (SIGINT with a command running → exit: ${ended.ms.toFixed(1)} ms)`);
    assert.deepEqual([ended.code, ended.signal], [null, 'SIGINT'], server.stderr());
    assert.deepEqual(readdirSync(runDirOf(tmp)), []);
    await waitUntil(`the command (pid ${commandPid}) to end`, () => !running(commandPid));
    await serverEnds(serverPid, store, sessionId);
    await readsInFreshServer(tmp, store, sessionId, outputId);
  });

  it("SIGKILL of the entry: its server notices, ends, removes the door's files and releases the lock", async () => {
    const tmp = dirs.make();
    const store = dirs.make();
    const { server, outputId, sessionId } = await startWithOutput(tmp, store);
    const serverPid = serverPidOf(childOf(server));
    const ended = await end(childOf(server), 'SIGKILL');
    assert.equal(ended.signal, 'SIGKILL');
    await serverEnds(serverPid, store, sessionId);
    assert.deepEqual(readdirSync(runDirOf(tmp)), []);
    await readsInFreshServer(tmp, store, sessionId, outputId);
  });

  it("SIGKILL of both processes leaves the door's files; the next server's sweep removes them, takes the stale lock over and reads the output", async () => {
    const tmp = dirs.make();
    const store = dirs.make();
    const { server, outputId, sessionId } = await startWithOutput(tmp, store);
    const pid = childOf(server).pid!;
    const serverPid = serverPidOf(childOf(server));
    // The server first: killed alone, its entry would see it end and remove the door's files.
    process.kill(serverPid, 'SIGKILL');
    const ended = await end(childOf(server), 'SIGKILL');
    assert.equal(ended.signal, 'SIGKILL');
    // Reaped, not only ended: its lock is stale only once its pid is gone (the killed server's new parent reaps it).
    await waitUntil(`the server's process (pid ${serverPid}) to be reaped`, () => !existsSync(`/proc/${serverPid}`));
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
