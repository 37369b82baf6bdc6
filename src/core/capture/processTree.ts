import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

/** Grace period between asking a process tree to stop and forcing it. */
const KILL_GRACE_MS = 2000;

/**
 * Set in the environment of every command, with a value of its own: whatever the command starts
 * inherits it, so its processes can be found after they left its process group (setsid) or were
 * re-parented to init (a double fork), as long as they kept the environment they were given.
 */
export const RUN_MARKER_ENV = 'TOOL_OUTPUT_RECALL_RUN';

let runs = 0;

/** A command's shell and what identifies its tree. */
export interface ShellTree {
  child: ChildProcess;
  /** The value of RUN_MARKER_ENV in the command's processes. */
  marker: string;
}

/**
 * Starts `command` through the platform shell in a process group of its own, so that the whole tree
 * (the shell and everything it started) can be stopped together, with RUN_MARKER_ENV set so that
 * what leaves the group can still be found.
 */
export function spawnShell(command: string, cwd: string, env: NodeJS.ProcessEnv): ShellTree {
  const marker = `${process.pid}-${++runs}-${randomBytes(6).toString('hex')}`;
  const marked = { ...env, [RUN_MARKER_ENV]: marker };
  if (process.platform === 'win32') {
    return { marker, child: spawn(command, { cwd, env: marked, shell: true, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true }) };
  }
  const shell = process.env.SHELL && /\/(ba|z|da)?sh$/.test(process.env.SHELL) ? process.env.SHELL : '/bin/sh';
  const child = spawn(shell, ['-c', command], {
    cwd,
    env: marked,
    detached: true, // a new process group: -pid addresses the whole tree
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { marker, child };
}

/**
 * Stops the tree: SIGTERM, then SIGKILL to what is left after a grace period. Both go to the process
 * group and, on Linux, to every process found in the tree (see findTree): a `setsid` child is in a
 * group of its own and would outlive a signal to the shell's group alone.
 */
export function killTree({ child, marker }: ShellTree): void {
  if (child.pid === undefined) return;
  const pid = child.pid;
  if (process.platform === 'win32') {
    spawn('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true });
    return;
  }
  // Found before any signal: once the shell dies, its children are re-parented and only the marker
  // links them. A shell that exited already was reaped, and its pid is no longer a safe root.
  const exited = child.exitCode !== null || child.signalCode !== null;
  const found = findTree(marker, exited ? [] : [{ pid }]);
  signalGroup(pid, 'SIGTERM');
  signalEach(found, 'SIGTERM');
  const force = setTimeout(() => {
    signalGroup(pid, 'SIGKILL');
    // What was found then (while each is still the same process), what they started since, and
    // what carries the marker now.
    signalEach(findTree(marker, found), 'SIGKILL');
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

/**
 * On Linux, the processes of a command's tree: every process whose environment holds the command's
 * marker (also what left the tree by a double fork), and the descendants by parent pid of those and
 * of `roots` (also what was started with a clean environment). A root given with its `start` counts
 * only while it is still that process. Elsewhere (no /proc), nothing: the process group is all there is.
 */
export function findTree(marker: string, roots: readonly { pid: number; start?: string }[]): ProcessEntry[] {
  const all = listProcesses();
  const byPid = new Map(all.map((entry) => [entry.pid, entry]));
  const needle = `${RUN_MARKER_ENV}=${marker}\0`;
  const found = new Map<number, ProcessEntry>();
  const add = (entry: ProcessEntry): void => {
    if (entry.pid !== process.pid) found.set(entry.pid, entry);
  };
  for (const entry of all) if (hasMarker(entry.pid, needle)) add(entry);
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

/** Every process /proc lists; [] where there is no /proc. Processes that end mid-scan are skipped. */
export function listProcesses(): ProcessEntry[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
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
