import type { ReadResult, RetainMeta, RetainResult, SearchOptions, SearchResult } from '../core/types';
import type { SessionManager } from './sessions/sessionManager';
import { sessionStats, type SessionStats } from './sessions/sessionStats';

export type { SessionStats };

/**
 * What `activate()` returns to other extensions:
 * `vscode.extensions.getExtension('tool-output-recall.tool-output-recall')?.exports`.
 * Another extension or agent can keep its own large results in the user's session and hand the
 * model an outputId that `read_tool_output` resolves.
 */
export interface ToolOutputRecallApi {
  /** Bumped on breaking changes. */
  readonly version: 1;
  /** The current session's id (opens the session if needed). */
  sessionId(): Promise<string>;
  retain(content: string | Uint8Array, meta?: RetainMeta): Promise<RetainResult>;
  read(outputId: string, offset?: number, maxBytes?: number): Promise<ReadResult>;
  search(outputId: string, pattern: string, options?: SearchOptions): Promise<SearchResult>;
  /** The current session's counts and whether saving it keeps up (opens the session if needed). */
  stats(): Promise<SessionStats>;
}

export function createApi(sessions: SessionManager): ToolOutputRecallApi {
  return {
    version: 1,
    sessionId: async () => (await sessions.store()).sessionId,
    retain: (content, meta) => sessions.retain(content, meta),
    read: async (outputId, offset, maxBytes) => (await sessions.store()).read(outputId, offset, maxBytes),
    search: async (outputId, pattern, options) => (await sessions.store()).search(outputId, pattern, options),
    stats: async () => sessionStats(await sessions.store()),
  };
}
