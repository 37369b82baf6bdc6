import { readFileSync } from 'node:fs';
import { scaled } from './timeScale';

/** Whether a process is running (a zombie awaiting its reaper counts as dead). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false; // gone between the two checks
  }
}

/**
 * Polls `check` until it holds or `limitMs` passes; returns its last answer. Not a timing assertion:
 * the limit only ends the wait for something that never comes, and is ×TEST_TIME_SCALE (timeScale.ts).
 */
export async function eventually(check: () => boolean, limitMs = 5000, everyMs = 20): Promise<boolean> {
  const until = Date.now() + scaled(limitMs);
  for (;;) {
    if (check()) return true;
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
