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

/** The ancestors of `pid` (its parent first), stopping before pid 1 and after MAX_ANCESTRY. */
export function ancestorsOf(pid: number = process.pid): number[] {
  const chain: number[] = [];
  for (let current = parentOf(pid); current !== undefined && current > 1 && chain.length < MAX_ANCESTRY; current = parentOf(current)) {
    if (chain.includes(current)) break;
    chain.push(current);
  }
  return chain;
}
