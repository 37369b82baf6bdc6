import { spawn, type ChildProcess } from 'node:child_process';

/** Grace period between asking a process tree to stop and forcing it. */
const KILL_GRACE_MS = 2000;

/**
 * Starts `command` through the platform shell in a process group of its own, so that the whole tree
 * (the shell and everything it started) can be stopped together.
 */
export function spawnShell(command: string, cwd: string, env: NodeJS.ProcessEnv): ChildProcess {
  if (process.platform === 'win32') {
    return spawn(command, { cwd, env, shell: true, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
  }
  return spawn(process.env.SHELL && /\/(ba|z|da)?sh$/.test(process.env.SHELL) ? process.env.SHELL : '/bin/sh', ['-c', command], {
    cwd,
    env,
    detached: true, // a new process group: -pid addresses the whole tree
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Stops the tree: SIGTERM to the group, SIGKILL to what is left after a grace period. */
export function killTree(child: ChildProcess): void {
  if (child.pid === undefined) return;
  const pid = child.pid;
  if (process.platform === 'win32') {
    spawn('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true });
    return;
  }
  signalGroup(pid, 'SIGTERM');
  const force = setTimeout(() => signalGroup(pid, 'SIGKILL'), KILL_GRACE_MS);
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
