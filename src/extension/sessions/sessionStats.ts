import type { RecallStore } from '../../core/types';
import type { SessionStats } from '../../../webview/protocol';

// The page shows them, so the protocol file defines them (the page imports nothing from the host).
export type { SessionOrigin, SessionStats } from '../../../webview/protocol';

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
