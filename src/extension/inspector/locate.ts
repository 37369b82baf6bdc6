/**
 * Where the inspector reads an output from. An output belongs to one session for good: this window's
 * current session, an earlier session of this window (read-only, for as long as it exists: see
 * SessionViews), or another agent's. A tab or the side view remembers the session of its output and
 * reads that one, whatever session is current.
 */
import { isRecallError } from '../../core/errors';
import type { RecallStore } from '../../core/types';
import type { InspectorServices } from './services';

export interface LocatedOutput {
  store: RecallStore;
  /** This window's session that holds the output (current or earlier); undefined for another agent's. */
  sessionId?: string;
}

/**
 * The store that holds `outputId`. With `sessionId` (this window's session that holds it), that
 * session's: the current store, or a read-only view of an earlier session (NOT_FOUND with
 * `details.sessionDeleted` once it is deleted). Without, where `services.store` finds it (another
 * agent's session, else the current one), and failing that, an earlier session of this window that
 * holds it. When no session has it, the current store: its `info` tells the caller NOT_FOUND.
 */
export async function locateOutput(services: InspectorServices, outputId: string, sessionId?: string): Promise<LocatedOutput> {
  const views = services.sessions;
  if (sessionId && views) return { store: await views.store(sessionId), sessionId };
  if (!views) return { store: await services.store(outputId) };
  let found: RecallStore | undefined;
  let missing: unknown;
  try {
    found = await services.store(outputId);
    await found.info(outputId);
    return { store: found, sessionId: (await views.isCurrent(found.sessionId)) ? found.sessionId : undefined };
  } catch (error) {
    if (!isRecallError(error, 'NOT_FOUND')) {
      if (found) return { store: found };
      throw error;
    }
    missing = error;
  }
  const earlier = await views.find(outputId).catch(() => undefined);
  if (earlier) return { store: await views.store(earlier), sessionId: earlier };
  if (found) return { store: found };
  throw missing;
}
