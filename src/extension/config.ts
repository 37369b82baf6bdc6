import * as vscode from 'vscode';
import { DEFAULT_LIMITS, type Limits } from '../core/limits';
import { clampPageBytes } from '../core/pager';

/** Settings under `toolOutputRecall.*`, read fresh on each use so changes apply at once. */
export interface RecallSettings extends Limits {
  sessionsMaxCount: number;
  sessionsMaxAgeDays: number;
  sessionsTotalQuotaBytes: number;
  /** Journal bytes a session may hold on disk while checkpoints fail; 0 leaves it to the store (2 × the quota). */
  journalLimitBytes: number;
  defaultTimeoutSeconds: number;
  sensitivePatterns: string[];
  allowOutsideWorkspace: boolean;
}

export const SECTION = 'toolOutputRecall';

export function readSettings(): RecallSettings {
  const config = vscode.workspace.getConfiguration(SECTION);
  const int = (key: string, fallback: number): number => {
    const value = config.get<number>(key);
    return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : fallback;
  };
  // 0 (the default) leaves the bound to the store (twice the quota); the store takes at least 4 KiB.
  const journalLimit = int('store.journalLimitBytes', 0);
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
    sensitivePatterns: config.get<string[]>('readFilePage.sensitivePatterns') ?? [],
    allowOutsideWorkspace: config.get<boolean>('readFilePage.allowOutsideWorkspace') ?? false,
  };
}
