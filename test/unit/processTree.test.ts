// Issue 21, item 10: a process that leaves the command's process group (setsid), or the tree itself
// (a double fork re-parents it to init), is stopped with the command when it is cancelled or times
// out. Real processes; Linux only (the tree is found through /proc).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { captureCommand, type CommandResult } from '../../src/core/capture/captureCommand';
import { findTree, listProcesses } from '../../src/core/capture/processTree';
import { eventually, isRunning } from './helpers/processes';
import { useTempDirs } from './helpers/tempDirs';

/** Fields of /proc/<pid>/stat after the command name: [0] state, [1] ppid, [2] pgrp, [3] session. */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

describe('process tree: what leaves the group is stopped too', function () {
  this.timeout(60_000);
  const dirs = useTempDirs('tree');
  before(function () {
    if (process.platform !== 'linux') {
      console.log(`      (skipped: the tree is found through /proc, which ${process.platform} does not have)`);
      this.skip();
    }
  });

  /**
   * Runs `command` (which starts a process that writes its own pid to the file it is given, then
   * sleeps) and resolves once that pid is known.
   */
  async function start(
    make: (pidfile: string) => string,
    options: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<{ running: Promise<CommandResult>; pid: number; work: string }> {
    const work = dirs.make();
    const pidfile = path.join(work, 'pid');
    const running = captureCommand({ command: make(pidfile), cwd: work, ...options }, undefined);
    assert.ok(
      await eventually(() => existsSync(pidfile) && readFileSync(pidfile, 'utf8').endsWith('\n'), 10_000),
      'the escaped process started',
    );
    const pid = Number(readFileSync(pidfile, 'utf8').trim());
    assert.ok(isRunning(pid));
    return { running, pid, work };
  }

  /** A grandchild in a session (and process group) of its own, still a descendant of the shell. */
  const setsidChild = (pidfile: string): string => `setsid sh -c 'echo $$ > "${pidfile}"; exec sleep 1000' & wait`;
  /** One that also left the tree: `setsid -f` forks it, and its parent exits at once. */
  const doubleForked = (pidfile: string): string => `sh -c "setsid -f sh -c 'echo \\$\\$ > \\"${pidfile}\\"; exec sleep 1000'"; sleep 1000`;

  it('cancelling stops a setsid grandchild (its own session and group)', async () => {
    const controller = new AbortController();
    const { running, pid } = await start(setsidChild, { signal: controller.signal });
    const [, , group, session] = statFields(pid);
    assert.equal(group, String(pid), 'the grandchild leads a group of its own');
    assert.equal(session, String(pid), 'and a session of its own');
    controller.abort();
    const result = await running;
    assert.equal(result.cancelled, true);
    assert.ok(await eventually(() => !isRunning(pid)), `setsid grandchild ${pid} is still running`);
  });

  it('a timeout stops a setsid grandchild', async () => {
    const { running, pid } = await start(setsidChild, { timeoutMs: 3000 });
    const result = await running;
    assert.equal(result.timedOut, true);
    assert.ok(await eventually(() => !isRunning(pid)), `setsid grandchild ${pid} is still running`);
  });

  it('cancelling stops a double-forked process that was re-parented out of the tree (found by its environment)', async () => {
    const controller = new AbortController();
    const { running, pid } = await start(doubleForked, { signal: controller.signal });
    assert.ok(await eventually(() => !descendantsOf(process.pid).has(pid)), 'the process left the tree (re-parented)');
    controller.abort();
    const result = await running;
    assert.equal(result.cancelled, true);
    assert.ok(await eventually(() => !isRunning(pid)), `double-forked process ${pid} is still running`);
  });

  it('a root that is no longer the process it was (another start time) is not followed', () => {
    const self = listProcesses().find((entry) => entry.pid === process.pid);
    assert.ok(self, 'this process is listed');
    const parent = listProcesses().find((entry) => entry.pid === self.ppid);
    assert.ok(parent);
    // This process is the parent's child: followed from the parent as it is, not from a stale record of it.
    assert.deepEqual(findTree('no-such-marker', [{ pid: parent.pid, start: 'not-its-start' }]), []);
    assert.ok(findTree('no-such-marker', [{ pid: parent.pid, start: parent.start }]).some((entry) => entry.pid === parent.pid));
    assert.ok(
      !findTree('no-such-marker', [{ pid: parent.pid }]).some((entry) => entry.pid === process.pid),
      'this process never counts in a tree',
    );
  });
});

/** The pids below `root` by parent pid. */
function descendantsOf(root: number): Set<number> {
  const all = listProcesses();
  const found = new Set<number>();
  const pending = [root];
  while (pending.length > 0) {
    const parent = pending.pop()!;
    for (const entry of all) {
      if (entry.ppid === parent && !found.has(entry.pid)) {
        found.add(entry.pid);
        pending.push(entry.pid);
      }
    }
  }
  return found;
}
