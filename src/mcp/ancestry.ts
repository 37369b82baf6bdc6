/**
 * A process's ancestors, nearest first: how a hook finds the MCP server its agent started (the
 * agent is an ancestor of both). Linux reads /proc; elsewhere `ps` answers (macOS, the BSDs). An
 * empty list means unknown (Windows): the hook then works without a server.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Enough to reach an agent through a shell, `npx` and a launcher; past that, a shared ancestor is not the agent. */
export const MAX_ANCESTRY = 8;

function parentOf(pid: number): number | undefined {
  if (process.platform === 'linux') {
    try {
      // The command name (field 2) is in parentheses and may hold spaces: fields resume after the last ')'.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      return Number.isInteger(parent) ? parent : undefined;
    } catch {
      return undefined;
    }
  }
  if (process.platform === 'win32') return undefined;
  try {
    const parent = Number(execFileSync('ps', ['-o', 'ppid=', '-p', String(pid)], { encoding: 'utf8', timeout: 5000 }).trim());
    return Number.isInteger(parent) ? parent : undefined;
  } catch {
    return undefined;
  }
}

/** Whether process `pid` exists (another user's counts: signalling it is refused, not unknown). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A process's name (Linux: its `comm`, which npm's launcher sets to `npm exec …`), or undefined when it cannot be read. */
export function processName(pid: number): string | undefined {
  if (process.platform === 'linux') {
    try {
      return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      return undefined;
    }
  }
  if (process.platform === 'win32') return undefined;
  try {
    // macOS and the BSDs print the executable's path, a login shell with a leading '-'.
    const name = execFileSync('ps', ['-o', 'comm=', '-p', String(pid)], { encoding: 'utf8', timeout: 5000 }).trim();
    return name.slice(name.lastIndexOf('/') + 1).replace(/^-/, '') || undefined;
  } catch {
    return undefined;
  }
}

/**
 * What stands between an agent and a process it starts: a shell (an agent runs its hooks, and may
 * run its servers, through one) and npm's launcher (`npx`, `npm exec`, whose process renames itself
 * `npm exec …`). An agent itself is none of these.
 */
const WRAPPER = /^(?:sh|bash|dash|zsh|ksh|mksh|ash|fish|busybox|npx|npm|npm exec.*)$/;
/** A hook runs at most through a shell or two (`sh -c`, then `bash -lc`); a server also through `npx`'s two processes. */
export const MAX_WRAPPERS = 3;

/**
 * The agent a process was started by, from its ancestors (nearest first): the nearest one that is no
 * wrapper, at most MAX_WRAPPERS wrappers up; undefined when that is not known. A hook and a server
 * belong to the same agent exactly when this is the same process for both (hookClient.ts).
 */
export function agentOf(ancestors: readonly number[], nameOf: (pid: number) => string | undefined = processName): number | undefined {
  for (const pid of ancestors.slice(0, MAX_WRAPPERS + 1)) {
    const name = nameOf(pid);
    if (name === undefined) return undefined;
    if (!WRAPPER.test(name)) return pid;
  }
  return undefined;
}

/** The ancestors of `pid` (its parent first), stopping before pid 1 and after MAX_ANCESTRY. */
export function ancestorsOf(pid: number = process.pid): number[] {
  const chain: number[] = [];
  for (let current = parentOf(pid); current !== undefined && current > 1 && chain.length < MAX_ANCESTRY; current = parentOf(current)) {
    if (chain.includes(current)) break;
    chain.push(current);
  }
  return chain;
}
