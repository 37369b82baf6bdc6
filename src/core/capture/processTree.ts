import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, readlinkSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { RecallError, describeError } from '../errors';

/** Grace period between asking a process tree to stop and forcing it. */
export const KILL_GRACE_MS = 2000;

/**
 * Set in the environment of every command, with a value of its own: whatever the command starts
 * inherits it, so its processes can be found after they left its process group (setsid) or were
 * re-parented to init (a double fork), as long as they kept the environment they were given.
 */
export const RUN_MARKER_ENV = 'TOOL_OUTPUT_RECALL_RUN';

/**
 * On Linux, the shell's descriptor 3 is a second mark that every process it starts inherits: an open
 * (read-only) descriptor of a directory made for the run and deleted at once. Changing the
 * environment (`env -i`, `env -u`, perl's `%ENV = ()`) keeps descriptors, and so do setsid, nohup
 * and a double fork, which is how a process that left the tree and dropped RUN_MARKER_ENV is still
 * found. (A script that uses fd 3 itself replaces it, and keeps the environment mark.)
 *
 * What closes every descriptor it inherited, clears its environment and re-parents itself (a
 * thorough daemon) carries none of the marks. Catching it too would take a child subreaper, which
 * Node cannot make (prctl: a perl or python process with per-architecture syscall numbers between
 * Node and the shell, mirroring its exit and signals), or a cgroup of the command's own (systemd-run
 * --user --scope, only where a user systemd and its bus run); neither is done. What a command has
 * started outside its tree (systemd-run, at, a running tmux server) no tree search can find.
 */
const MARKER_FD = 3;

let runs = 0;

/** A command's shell and what identifies its tree. */
export interface ShellTree {
  child: ChildProcess;
  /** The value of RUN_MARKER_ENV in the command's processes. */
  marker: string;
  /** Linux: what /proc/<pid>/fd/<n> reads for the marker descriptor (MARKER_FD); none when it could not be made. */
  fdLink?: string;
  /** Linux: the shell's start time (clock ticks after boot); every process of the command started since. */
  since?: number;
}

/** Why a command could not start, as the error the model reads. */
export function startError(command: string, error: unknown): RecallError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'E2BIG') {
    return new RecallError(
      'INVALID_ARGUMENT',
      `The command is ${Buffer.byteLength(command)} bytes: with the environment, more than the system passes to a new process (E2BIG). Write the long part to a file (a script or a data file) and run or read that.`,
    );
  }
  if (code === 'ERR_INVALID_ARG_VALUE' || code === 'ERR_INVALID_ARG_TYPE') {
    return new RecallError('INVALID_ARGUMENT', `The command could not be started: ${describeError(error)}. Remove the NUL character.`);
  }
  return new RecallError('COMMAND_FAILED', `The command could not be started (${describeError(error)}).`);
}

/**
 * Starts `command` through the platform shell in a process group of its own, so that the whole tree
 * (the shell and everything it started) can be stopped together, with RUN_MARKER_ENV set and (on
 * Linux) the marker descriptor open, so that what leaves the group can still be found.
 */
export function spawnShell(command: string, cwd: string, env: NodeJS.ProcessEnv): ShellTree {
  const marker = `${process.pid}-${++runs}-${randomBytes(6).toString('hex')}`;
  const marked = { ...env, [RUN_MARKER_ENV]: marker };
  if (process.platform === 'win32') {
    return { marker, child: spawn(command, { cwd, env: marked, shell: true, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true }) };
  }
  const shell = process.env.SHELL && /\/(ba|z|da)?sh$/.test(process.env.SHELL) ? process.env.SHELL : '/bin/sh';
  const held = process.platform === 'linux' ? markerDescriptor(marker) : undefined;
  const stdio: ('ignore' | 'pipe' | number)[] = ['ignore', 'pipe', 'pipe'];
  // A number at index n becomes the child's fd n, without close-on-exec; Node makes no stream of it.
  if (held) stdio[MARKER_FD] = held.fd;
  let child: ChildProcess;
  try {
    child = spawn(shell, ['-c', command], {
      cwd,
      env: marked,
      detached: true, // a new process group: -pid addresses the whole tree
      stdio,
    });
  } finally {
    // spawn returns once the shell has exec'ed, holding its own copy: the link text names the mark
    // from then on (the directory's name is as unique as the marker), so this copy is not needed.
    if (held) closeSync(held.fd);
  }
  if (!held || child.pid === undefined) return { marker, child };
  // Read before the event loop runs again: until Node reaps the shell, even a shell that already
  // exited still has its stat.
  const since = Number(listProcesses([child.pid])[0]?.start);
  return { marker, child, fdLink: held.link, ...(Number.isFinite(since) ? { since } : {}) };
}

/**
 * A read-only descriptor of a directory made for this run and removed at once (so nothing is left
 * behind, whatever happens to this process), and its /proc link text: "<tmp>/tool-output-recall-run-<marker> (deleted)".
 * None when the temporary folder cannot be written: the command then runs with the other marks only.
 */
function markerDescriptor(marker: string): { fd: number; link: string } | undefined {
  const dir = path.join(tmpdir(), `tool-output-recall-run-${marker}`);
  let fd: number | undefined;
  try {
    mkdirSync(dir, { mode: 0o700 });
    fd = openSync(dir, 'r');
    rmdirSync(dir);
    return { fd, link: readlinkSync(`/proc/self/fd/${fd}`) };
  } catch {
    if (fd !== undefined) closeSync(fd);
    try {
      rmdirSync(dir);
    } catch {
      // not made, or removed already
    }
    return undefined;
  }
}

/**
 * Stops the tree: SIGTERM, then SIGKILL to what is left after a grace period. Both go to the process
 * group and, on Linux, to every process found in the tree (see findTree): a `setsid` child is in a
 * group of its own and would outlive a signal to the shell's group alone.
 */
export function killTree(tree: ShellTree): void {
  const { child } = tree;
  if (child.pid === undefined) return;
  const pid = child.pid;
  if (process.platform === 'win32') {
    spawn('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true });
    return;
  }
  // Found before any signal: once the shell dies, its children are re-parented and only the marker
  // links them. A shell that exited already was reaped, and its pid is no longer a safe root.
  const exited = child.exitCode !== null || child.signalCode !== null;
  const found = findTree(tree, exited ? [] : [{ pid }]);
  signalGroup(pid, 'SIGTERM');
  signalEach(found, 'SIGTERM');
  const force = setTimeout(() => {
    signalGroup(pid, 'SIGKILL');
    // What was found then (while each is still the same process), what they started since, and
    // what carries a mark now.
    signalEach(findTree(tree, found), 'SIGKILL');
  }, KILL_GRACE_MS);
  force.unref();
}

/** Sends a signal to a process group; a group that is already gone is not an error. */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/** A process as /proc shows it; `start` (clock ticks after boot) tells a reused pid from the original. */
export interface ProcessEntry {
  pid: number;
  ppid: number;
  start: string;
}

/** What marks a command's processes (a ShellTree has them all). */
export interface TreeMarks {
  /** The value of RUN_MARKER_ENV. */
  marker: string;
  /** The link text of the marker descriptor, when there is one. */
  fdLink?: string;
  /** The shell's start time: nothing that started before it is looked into for a mark. */
  since?: number;
}

/**
 * On Linux, the processes of a command's tree: every process that holds one of its marks (the
 * marker in its environment, or the marker descriptor open: also what left the tree by a double
 * fork, and what dropped one of the two), and the descendants by parent pid of those and of `roots`
 * (also what closed its descriptors and cleared its environment, while its parent is known). A root
 * given with its `start` counts only while it is still that process. Elsewhere (no /proc), nothing:
 * the process group is all there is.
 */
export function findTree({ marker, fdLink, since }: TreeMarks, roots: readonly { pid: number; start?: string }[]): ProcessEntry[] {
  const all = listProcesses();
  const byPid = new Map(all.map((entry) => [entry.pid, entry]));
  const needle = `${RUN_MARKER_ENV}=${marker}\0`;
  const found = new Map<number, ProcessEntry>();
  const add = (entry: ProcessEntry): void => {
    if (entry.pid !== process.pid) found.set(entry.pid, entry);
  };
  for (const entry of all) {
    // A process older than the shell cannot be one it started (and reading every fd of every
    // process of the user would cost far more than the few started since).
    if (since !== undefined && !(Number(entry.start) >= since)) continue;
    if (hasMarker(entry.pid, needle) || (fdLink !== undefined && holdsLink(entry.pid, fdLink))) add(entry);
  }
  for (const root of roots) {
    const entry = byPid.get(root.pid);
    if (entry && (root.start === undefined || root.start === entry.start)) add(entry);
  }
  const children = new Map<number, ProcessEntry[]>();
  for (const entry of all) {
    const siblings = children.get(entry.ppid);
    if (siblings) siblings.push(entry);
    else children.set(entry.ppid, [entry]);
  }
  const pending = [...found.keys()];
  while (pending.length > 0) {
    for (const child of children.get(pending.pop()!) ?? []) {
      if (found.has(child.pid) || child.pid === process.pid) continue;
      add(child);
      pending.push(child.pid);
    }
  }
  return [...found.values()];
}

/**
 * Every process /proc lists (or only those of `pids`); [] where there is no /proc. Processes that
 * end mid-scan are skipped.
 */
export function listProcesses(pids?: readonly number[]): ProcessEntry[] {
  let names = pids?.map(String);
  try {
    names ??= readdirSync('/proc');
  } catch {
    return [];
  }
  const entries: ProcessEntry[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      // The command name (field 2) may hold spaces and parentheses: fields are counted after its last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      entries.push({ pid: Number(name), ppid: Number(fields[1]), start: fields[19] });
    } catch {
      // gone since readdir
    }
  }
  return entries;
}

/** Whether the process's environment holds `needle`; false when it cannot be read (another user's, gone). */
function hasMarker(pid: number, needle: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').includes(needle);
  } catch {
    return false;
  }
}

/** Whether one of the process's descriptors links to `link`; false when they cannot be read (another user's, gone). */
function holdsLink(pid: number, link: string): boolean {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false;
  }
  for (const fd of fds) {
    try {
      // readlink, not stat: the link text is enough, and stat would reach into what each descriptor
      // names (a hung network or FUSE mount would hang this scan).
      if (readlinkSync(`/proc/${pid}/fd/${fd}`) === link) return true;
    } catch {
      // closed since readdir
    }
  }
  return false;
}

/** Signals each process just found (findTree checked that each is the process it names); gone is not an error. */
function signalEach(entries: readonly ProcessEntry[], signal: NodeJS.Signals): void {
  for (const entry of entries) {
    try {
      process.kill(entry.pid, signal);
    } catch {
      // ended since the scan
    }
  }
}
