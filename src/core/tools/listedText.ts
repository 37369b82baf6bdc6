/**
 * How an output's row reads for the model (list_tool_outputs, a search across outputs): the fields
 * of `ListedOutput` in the tools' words, with a `session` only when it is another session's, since
 * reading it then takes that session explicitly.
 */
import type { ListedOutput } from '../types';

export function listedRow(row: ListedOutput, currentSessionId: string, now: number): Record<string, unknown> {
  return {
    outputId: row.outputId,
    ...(row.sessionId === currentSessionId ? {} : { session: row.sessionId }),
    ...(row.agents ? { agent: row.agents.join(', ') } : {}),
    ...(row.tool ? { tool: row.tool } : {}),
    ...(row.title ? { command: row.title } : {}),
    at: new Date(row.createdAt).toISOString(),
    ago: ago(now - row.createdAt),
    ...(row.exitCode !== undefined ? { exit: row.exitCode } : {}),
    ...(row.signal ? { signal: row.signal } : {}),
    totalBytes: row.totalBytes,
    ...(row.droppedBytes ? { droppedBytes: row.droppedBytes } : {}),
    complete: row.complete,
    ...(row.evicted ? { evicted: true } : {}),
    ...(row.notable ? { notable: row.notable } : {}),
  };
}

/** `,"session":"…"` for a read call of another session's output; '' for the current session's. */
export const sessionField = (row: Pick<ListedOutput, 'sessionId'>, currentSessionId: string): string =>
  row.sessionId === currentSessionId ? '' : `,"session":"${row.sessionId}"`;

/** "42 s", "5 min", "3 h", "2 d": how long ago, for a model that may not know the time. */
export function ago(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} h` : `${Math.round(hours / 24)} d`;
}
