import { isSessionLocked } from './sessionLock';
import { deleteSessionFiles, listSessions } from './sessionFiles';

export interface PruneLimits {
  sessionsMaxCount: number;
  sessionsMaxAgeDays: number;
  sessionsTotalQuotaBytes: number;
}

/**
 * Deletes old sessions in `dir` by count, age and total size, newest kept first; never `current`,
 * nor a session another live process holds (its lock). The extension and the MCP server prune
 * their folders with this, so a workspace's sessions follow one policy whoever wrote them.
 * Returns the deleted session IDs.
 */
export async function pruneSessions(dir: string, limits: PruneLimits, current: string | undefined): Promise<string[]> {
  const { sessionsMaxCount, sessionsMaxAgeDays, sessionsTotalQuotaBytes } = limits;
  const cutoff = Date.now() - sessionsMaxAgeDays * 86_400_000;
  const removed: string[] = [];
  let kept = 0;
  let bytes = 0;
  for (const session of await listSessions(dir)) {
    const keep =
      session.sessionId === current ||
      (kept < sessionsMaxCount && session.modifiedAt >= cutoff && bytes + session.bytes <= sessionsTotalQuotaBytes) ||
      (await isSessionLocked(session.file));
    if (keep) {
      kept++;
      bytes += session.bytes;
      continue;
    }
    await deleteSessionFiles(session.file);
    removed.push(session.sessionId);
  }
  return removed;
}
