// Issue 21, item 10: a process that leaves the command's process group (setsid), or the tree itself
// (a double fork re-parents it to init), is stopped with the command when it is cancelled or times
// out. Real processes; Linux only (the tree is found through /proc).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { runCommand, type RunCommandResult } from '../../src/core/tools/runCommand';
import { KILL_GRACE_MS, RUN_MARKER_ENV, findTree, listProcesses, type ProcessEntry } from '../../src/core/capture/processTree';
import { eventually, isRunning } from '../unit/helpers/processes';
import { useTempDirs } from '../unit/helpers/tempDirs';
import { skipBecause } from '../unit/helpers/mochaRun';

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
      skipBecause(this, `the tree is found through /proc, which ${process.platform} does not have`);
    }
  });

  /**
   * Runs `command` (which starts a process that writes its own pid to the file it is given, then
   * sleeps) and resolves once that pid is known.
   */
  async function start(
    make: (pidfile: string) => string,
    options: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<{ running: Promise<RunCommandResult>; pid: number; work: string }> {
    const work = dirs.make();
    const pidfile = path.join(work, 'pid');
    const running = runCommand({ command: make(pidfile), cwd: work, ...options }, undefined);
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

  it('the marker descriptor (fd 3) names a folder removed before the command ran: nothing is left behind', async () => {
    const result = await runCommand({ command: 'readlink /proc/self/fd/3', cwd: dirs.make() }, undefined);
    const link = result.preview.trim();
    assert.match(link, /\/tool-output-recall-run-\S+ \(deleted\)$/);
    assert.equal(existsSync(link.replace(/ \(deleted\)$/, '')), false);
  });

  it('a root that is no longer the process it was (another start time) is not followed', () => {
    const self = listProcesses().find((entry) => entry.pid === process.pid);
    assert.ok(self, 'this process is listed');
    const parent = listProcesses().find((entry) => entry.pid === self.ppid);
    assert.ok(parent);
    // This process is the parent's child: followed from the parent as it is, not from a stale record of it.
    assert.deepEqual(findTree({ marker: 'no-such-marker' }, [{ pid: parent.pid, start: 'not-its-start' }]), []);
    assert.ok(findTree({ marker: 'no-such-marker' }, [{ pid: parent.pid, start: parent.start }]).some((entry) => entry.pid === parent.pid));
    assert.ok(
      !findTree({ marker: 'no-such-marker' }, [{ pid: parent.pid }]).some((entry) => entry.pid === process.pid),
      'this process never counts in a tree',
    );
  });
});

/**
 * Issue 28, item 11: the ways a command can start a process that outlives it, each ending in a
 * `sleep 1000` that wrote its pid first. `leaves`: it is re-parented out of the tree (to init or a
 * subreaper); `drops`: it no longer has RUN_MARKER_ENV. Those that do both were found by neither the
 * process group, the parent links nor the environment before issue 28.
 */
const ESCAPES: readonly { name: string; leaves: boolean; drops: boolean; command: (leaf: string) => string }[] = [
  { name: 'background job', leaves: false, drops: false, command: (leaf) => `${leaf} &` },
  { name: 'setsid child (own session, still a descendant)', leaves: false, drops: false, command: (leaf) => `setsid ${leaf} &` },
  { name: 'setsid -f', leaves: true, drops: false, command: (leaf) => `setsid -f ${leaf}` },
  { name: 'subshell double fork', leaves: true, drops: false, command: (leaf) => `( ${leaf} & )` },
  {
    name: 'nohup & disown in bash',
    leaves: true,
    drops: false,
    command: (leaf) => `bash -c 'nohup ${leaf} >/dev/null 2>&1 & disown'`,
  },
  {
    name: 'subshell double fork + env -u (same group)',
    leaves: true,
    drops: true,
    command: (leaf) => `( env -u ${RUN_MARKER_ENV} ${leaf} & )`,
  },
  { name: 'setsid -f + env -u', leaves: true, drops: true, command: (leaf) => `setsid -f env -u ${RUN_MARKER_ENV} ${leaf}` },
  {
    name: 'setsid -f + env -u, stdio on /dev/null',
    leaves: true,
    drops: true,
    command: (leaf) => `setsid -f env -u ${RUN_MARKER_ENV} ${leaf} </dev/null >/dev/null 2>&1`,
  },
  { name: 'setsid -f + env -i', leaves: true, drops: true, command: (leaf) => `setsid -f env -i ${leaf}` },
  {
    name: 'setsid -f + env -i, then a background job of that',
    leaves: true,
    drops: true,
    command: (leaf) => `setsid -f env -i /bin/sh -c '${leaf} &'`,
  },
  {
    name: 'perl: %ENV=(), fork, setsid, fork',
    leaves: true,
    drops: true,
    command: (leaf) =>
      `perl -MPOSIX -e '%ENV = (); fork and exit; POSIX::setsid(); fork and exit; exec "/bin/sh", "-c", $ARGV[0]' '${leaf}'`,
  },
  { name: 'setsid -f + env -i, ignoring SIGTERM', leaves: true, drops: true, command: (leaf) => `setsid -f env -i ${leaf} ignore-term` },
];

describe('process tree: escapes that re-parent and drop the marker variable (issue 28)', function () {
  this.timeout(120_000);
  const dirs = useTempDirs('escape');
  /** Every leaf a test saw start, with its start time, so that `after` kills only that process. */
  const seen: ProcessEntry[] = [];
  before(function () {
    if (process.platform !== 'linux') {
      skipBecause(this, `the tree is found through /proc, which ${process.platform} does not have`);
    }
  });
  after(() => {
    for (const entry of seen) {
      try {
        if (listProcesses().some((now) => now.pid === entry.pid && now.start === entry.start)) process.kill(entry.pid, 'SIGKILL');
      } catch {
        // ended meanwhile
      }
    }
  });

  /**
   * Starts every ESCAPES form in one command, which then sleeps; resolves once each form's leaf has
   * written its pid (or the command ended first, which the caller's assertion reports).
   */
  async function startAll(options: { signal?: AbortSignal; timeoutMs?: number }) {
    const work = dirs.make();
    const leafScript = path.join(work, 'leaf.sh');
    const sleep = execFileSync('/bin/sh', ['-c', 'command -v sleep'], { encoding: 'utf8' }).trim();
    // $1: the pid file; $2 = ignore-term: SIG_IGN survives the exec, so only SIGKILL stops the sleep.
    writeFileSync(leafScript, `[ "$2" = ignore-term ] && trap '' TERM\necho $$ > "$1.tmp" && mv "$1.tmp" "$1"\nexec ${sleep} 1000\n`);
    const forms = ESCAPES.map((form, index) => {
      const pidfile = path.join(work, `leaf-${index}`);
      return { ...form, pidfile, line: form.command(`/bin/sh ${leafScript} ${pidfile}`) };
    });
    const command = `${forms.map((form) => form.line).join('\n')}\nsleep 1000`;
    let ended = false;
    const running = runCommand({ command, cwd: work, ...options }, undefined);
    void running.finally(() => (ended = true));
    // Each form is a few fork/execs (tens of ms in all); the limit is for a loaded machine.
    await eventually(() => ended || forms.every((form) => existsSync(form.pidfile)), 20_000);
    const leaves = forms.map((form) => {
      const pid = existsSync(form.pidfile) ? Number(readFileSync(form.pidfile, 'utf8').trim()) : undefined;
      const entry = listProcesses().find((candidate) => candidate.pid === pid);
      if (entry) seen.push(entry);
      return { ...form, entry };
    });
    const missing = leaves.filter((leaf) => !leaf.entry).map((leaf) => leaf.name);
    assert.deepEqual(missing, [], 'every escape form started its sleep before the stop');
    return { running, leaves: leaves as Leaf[] };
  }

  type Leaf = (typeof ESCAPES)[number] & { entry: ProcessEntry };

  /** The names of the leaves still running (the same process: pid and start time). */
  function survivors(leaves: readonly Leaf[]): string[] {
    const now = listProcesses();
    return leaves
      .filter(({ entry }) => isRunning(entry.pid) && now.some((p) => p.pid === entry.pid && p.start === entry.start))
      .map((leaf) => leaf.name);
  }

  /** SIGTERM, then SIGKILL after the grace period: the wait covers both, with room for a loaded machine. */
  const STOP_LIMIT_MS = 3 * KILL_GRACE_MS + 5000;

  it('cancelling stops every escaped process', async () => {
    const controller = new AbortController();
    const { running, leaves } = await startAll({ signal: controller.signal });
    // The forms do what they say: re-parented (once the intermediate process has exited) and without the variable.
    const left = () => leaves.filter((leaf) => !descendantsOf(process.pid).has(leaf.entry.pid)).map((leaf) => leaf.name);
    const leaving = leaves.filter((leaf) => leaf.leaves).map((leaf) => leaf.name);
    await eventually(() => left().length === leaving.length, 10_000);
    assert.deepEqual(left(), leaving, 'these left the tree');
    const dropped = leaves.filter((leaf) => !readFileSync(`/proc/${leaf.entry.pid}/environ`, 'latin1').includes(`${RUN_MARKER_ENV}=`));
    assert.deepEqual(
      dropped.map((leaf) => leaf.name),
      leaves.filter((leaf) => leaf.drops).map((leaf) => leaf.name),
      'these dropped the variable',
    );
    controller.abort();
    assert.equal((await running).cancelled, true);
    await eventually(() => survivors(leaves).length === 0, STOP_LIMIT_MS);
    assert.deepEqual(survivors(leaves), [], 'escaped processes still running after the stop');
  });

  it('a timeout stops every escaped process', async () => {
    // The forms start within tens of ms; the timeout leaves them ample time on a loaded machine.
    const { running, leaves } = await startAll({ timeoutMs: 4000 });
    assert.equal((await running).timedOut, true);
    await eventually(() => survivors(leaves).length === 0, STOP_LIMIT_MS);
    assert.deepEqual(survivors(leaves), [], 'escaped processes still running after the stop');
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
