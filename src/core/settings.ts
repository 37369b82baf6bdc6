/**
 * The user's limits and policies, as one engine shape for every front end: the extension reads them
 * from VS Code settings (`toolOutputRecall.*`), the MCP server from flags and environment
 * variables. Both hand over a getter keyed by the setting name without its prefix
 * (`previewBytes`, `sessions.maxCount`), and get the same clamps and fallbacks here.
 */
import { DEFAULT_LIMITS, type Limits } from './limits';
import { clampPageBytes } from './pager';
import type { OpenStoreOptions } from './store/sessionStore';

export interface RecallSettings extends Limits {
  sessionsMaxCount: number;
  sessionsMaxAgeDays: number;
  sessionsTotalQuotaBytes: number;
  /** Journal bytes a session may hold on disk while checkpoints fail; 0 leaves it to the store (2 × the quota). */
  journalLimitBytes: number;
  defaultTimeoutSeconds: number;
  /** Most commands (and, apart, programs) running at once; 0: sized to the machine (see capture/workGate.ts). */
  commandsMaxConcurrent: number;
  sensitivePatterns: string[];
  allowOutsideWorkspace: boolean;
}

/** Resolves every setting from `get` (undefined or a bad value falls back to the default). */
export function resolveSettings(get: (key: string) => unknown): RecallSettings {
  const int = (key: string, fallback: number): number => {
    const value = get(key);
    return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : fallback;
  };
  // 0 (the default) leaves the bound to the store (twice the quota); the store takes at least 4 KiB.
  const journalLimit = int('store.journalLimitBytes', 0);
  const patterns = get('readFilePage.sensitivePatterns');
  return {
    previewBytes: int('previewBytes', DEFAULT_LIMITS.previewBytes),
    historyBytes: int('historyBytes', DEFAULT_LIMITS.historyBytes),
    pageBytes: clampPageBytes(int('pageBytes', DEFAULT_LIMITS.pageBytes)),
    copyBytes: int('copyBytes', DEFAULT_LIMITS.copyBytes),
    streamBytes: int('streamBytes', DEFAULT_LIMITS.streamBytes),
    sessionQuotaBytes: Math.max(int('sessionQuotaBytes', DEFAULT_LIMITS.sessionQuotaBytes), int('copyBytes', DEFAULT_LIMITS.copyBytes)),
    sessionsMaxCount: int('sessions.maxCount', 20),
    sessionsMaxAgeDays: int('sessions.maxAgeDays', 30),
    sessionsTotalQuotaBytes: int('sessions.totalQuotaBytes', 512 * 1024 * 1024),
    journalLimitBytes: journalLimit === 0 ? 0 : Math.max(4096, journalLimit),
    defaultTimeoutSeconds: int('runCommand.defaultTimeoutSeconds', 600),
    commandsMaxConcurrent: int('commands.maxConcurrent', 0),
    sensitivePatterns: Array.isArray(patterns) ? patterns.filter((p): p is string => typeof p === 'string') : [],
    allowOutsideWorkspace: get('readFilePage.allowOutsideWorkspace') === true,
  };
}

/** How a session opens under these settings. */
export function sessionStoreOptions(
  dir: string,
  sessionId: string,
  settings: RecallSettings,
  forkedFrom?: string,
): OpenStoreOptions & { sessionId: string } {
  return {
    dir,
    sessionId,
    quotaBytes: settings.sessionQuotaBytes,
    copyBytes: settings.copyBytes,
    forkedFrom,
    // 0 is "the store's default", which the store derives from the quota.
    ...(settings.journalLimitBytes > 0 ? { journalLimitBytes: settings.journalLimitBytes } : {}),
  };
}
