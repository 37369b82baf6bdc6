/**
 * The user's limits and policies, as one engine shape for every front end: the extension reads them
 * from VS Code settings (`toolOutputRecall.*`), the MCP server from flags and environment
 * variables. Both hand over a getter keyed by the setting name without its prefix
 * (`previewBytes`, `sessions.maxCount`), and get the same clamps and fallbacks here.
 */
import { MIN_STORE_BYTES, type Limits } from './limits';
import { clampPageBytes } from './pager';
import { settingSchema } from './manifest';

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
  // The fallback is the setting's default in the manifest: the one place defaults live, for both front ends.
  const int = (key: string): number => {
    const value = get(key);
    return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : (settingSchema(key)?.default as number);
  };
  // 0 (the default) leaves the bound to the store (twice the quota); the store takes at least MIN_STORE_BYTES.
  const journalLimit = int('store.journalLimitBytes');
  const patterns = get('readFilePage.sensitivePatterns');
  return {
    previewBytes: int('previewBytes'),
    historyBytes: int('historyBytes'),
    pageBytes: clampPageBytes(int('pageBytes')),
    copyBytes: int('copyBytes'),
    streamBytes: int('streamBytes'),
    sessionQuotaBytes: Math.max(int('sessionQuotaBytes'), int('copyBytes')),
    sessionsMaxCount: int('sessions.maxCount'),
    sessionsMaxAgeDays: int('sessions.maxAgeDays'),
    sessionsTotalQuotaBytes: int('sessions.totalQuotaBytes'),
    journalLimitBytes: journalLimit === 0 ? 0 : Math.max(MIN_STORE_BYTES, journalLimit),
    defaultTimeoutSeconds: int('runCommand.defaultTimeoutSeconds'),
    commandsMaxConcurrent: int('commands.maxConcurrent'),
    sensitivePatterns: Array.isArray(patterns) ? patterns.filter((p): p is string => typeof p === 'string') : [],
    allowOutsideWorkspace: get('readFilePage.allowOutsideWorkspace') === true,
  };
}
