import type { RecallStore } from '../../core/types';

/** A session's counts and whether saving it keeps up: what the API, the status bar and the inspector show. */
export interface SessionStats {
  sessionId: string;
  outputs: number;
  retainedBytes: number;
  evicted: number;
  /** Retained bytes past which the oldest copies are evicted. */
  quotaBytes: number;
  /** Bytes of journal files on disk: outputs retained since the last checkpoint that succeeded. */
  journalBytes: number;
  /** Journal bytes past which `retain` rejects with STORE_UNAVAILABLE. */
  journalLimitBytes: number;
  /** Present while the latest checkpoint failed (`at` in epoch ms); absent once one succeeds. */
  lastCheckpointError?: { message: string; code?: string; at: number };
}

/**
 * The session an inspector's output belongs to, as the page shows it: named as a person knows it
 * (sessionNames.ts) and, for an earlier session of this window, read-only with the way back.
 */
export interface SessionOrigin {
  sessionId: string;
  /** When it started, its first command, its outputs and size. */
  name: string;
  /** This window's current session; otherwise an earlier one, shown read-only. */
  current: boolean;
}

export async function sessionStats(store: RecallStore): Promise<SessionStats> {
  const { outputs, retainedBytes, evicted, journalBytes, lastCheckpointError } = await store.stats();
  return {
    sessionId: store.sessionId,
    outputs,
    retainedBytes,
    evicted,
    quotaBytes: store.quotaBytes,
    journalBytes,
    journalLimitBytes: store.journalLimitBytes,
    ...(lastCheckpointError ? { lastCheckpointError } : {}),
  };
}
