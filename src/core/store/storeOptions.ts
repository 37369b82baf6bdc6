/**
 * What opening a session store takes, and the check of it: the limits with their defaults and
 * ranges, and the session id's shape. Every bad option is an INVALID_ARGUMENT naming the rule.
 */
import { RecallError } from '../errors';
import { isSessionIdShape, newSessionId } from '../ids';
import { DEFAULT_LIMITS, JOURNAL_LIMIT_QUOTAS, MIN_STORE_BYTES } from '../limits';
import type { MigrationHooks } from './migration';
import type { RecallSettings } from '../settings';

export interface OpenStoreOptions {
  /** Folder that holds the session files. Created if missing. */
  dir: string;
  /** Resume this session (or create it under this id). Omit to start a new session. */
  sessionId?: string;
  /** Retained bytes before the oldest copies are evicted (default 64 MiB). */
  quotaBytes?: number;
  /** Largest copy (default 8 MiB); larger content keeps head and tail around a gap. */
  copyBytes?: number;
  /**
   * Journal bytes on disk (changes no checkpoint has saved yet) past which new copies are refused
   * with STORE_UNAVAILABLE; reached only while checkpoints fail. Default: twice the quota.
   */
  journalLimitBytes?: number;
  /** @internal recorded in a fork's file. */
  forkedFrom?: string;
  /**
   * @internal 'manual' turns off background checkpoints (tests simulate a crash before one runs);
   * flush(), close(), remove() and fork() still checkpoint.
   */
  checkpoints?: 'auto' | 'manual';
  /** @internal tests: a failure injected into the migration of a layout-1 file. */
  migration?: MigrationHooks;
}

export interface StoreLimits {
  sessionId: string;
  quotaBytes: number;
  copyBytes: number;
  journalLimitBytes: number;
}

/** The options with their defaults filled in, or INVALID_ARGUMENT for the first one out of range. */
export function checkStoreOptions(options: OpenStoreOptions): StoreLimits {
  const copyBytes = options.copyBytes ?? DEFAULT_LIMITS.copyBytes;
  const quotaBytes = options.quotaBytes ?? DEFAULT_LIMITS.sessionQuotaBytes;
  if (typeof options.dir !== 'string' || options.dir.length === 0)
    throw new RecallError('INVALID_ARGUMENT', 'openStore needs a "dir" folder for session files.');
  if (!Number.isInteger(copyBytes) || copyBytes < MIN_STORE_BYTES)
    throw new RecallError('INVALID_ARGUMENT', `copyBytes must be an integer of at least ${MIN_STORE_BYTES}; got ${copyBytes}.`);
  if (!Number.isInteger(quotaBytes) || quotaBytes < copyBytes)
    throw new RecallError('INVALID_ARGUMENT', `quotaBytes must be an integer of at least copyBytes (${copyBytes}); got ${quotaBytes}.`);
  const journalLimitBytes = options.journalLimitBytes ?? JOURNAL_LIMIT_QUOTAS * quotaBytes;
  // Any limit works: an empty journal takes any one copy, so a small one only means more checkpoints.
  if (!Number.isInteger(journalLimitBytes) || journalLimitBytes < MIN_STORE_BYTES)
    throw new RecallError(
      'INVALID_ARGUMENT',
      `journalLimitBytes must be an integer of at least ${MIN_STORE_BYTES}; got ${journalLimitBytes}.`,
    );
  if (options.sessionId !== undefined && !isSessionIdShape(options.sessionId)) {
    throw new RecallError('INVALID_ARGUMENT', `"${options.sessionId}" is not a session id (letters, digits, "_" and "-", at most 64).`);
  }
  const sessionId = options.sessionId ?? newSessionId();
  return { sessionId, quotaBytes, copyBytes, journalLimitBytes };
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
