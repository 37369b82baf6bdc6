import type * as vscode from 'vscode';
import { formatBytes } from '../../core/limits';
import type { SessionManager } from './sessionManager';
import { sessionStats, type SessionStats } from './sessionStats';

/** How long after a change its background checkpoint has normally finished. */
const SETTLE_MS = 1000;
/** How often the stats are read while checkpoints fail (one small worker call). */
const POLL_MS = 5000;

/**
 * Makes a failing checkpoint visible. A failure loses nothing at first (every retained copy is in
 * the journal), which is exactly why it would go unnoticed until the journal limit starts refusing
 * outputs. The store checkpoints in the background after each change, so its state is read again
 * a moment after a change, and on a timer while checkpoints fail. The failure and its end are
 * logged once each; either way the session manager fires onDidChange, so the status bar, the tree
 * and open inspectors show the new state.
 */
export class CheckpointWatch implements vscode.Disposable {
  /** The failure logged last: logged again only when its kind changes, not on every retry. */
  private failing: { sessionId: string; kind: string } | undefined;
  private settleTimer: NodeJS.Timeout | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  /** Checks run one at a time, so an older answer never overwrites a newer one. */
  private checks: Promise<void> = Promise.resolve();
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly sessions: SessionManager,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.subscription = sessions.onDidChange(() => {
      void this.check();
      this.settleAfterChange();
    });
  }

  /** Reads the current session's checkpoint state and reports a change of it. */
  check(): Promise<void> {
    this.checks = this.checks.then(() => this.checkNow());
    return this.checks;
  }

  private async checkNow(): Promise<void> {
    // Never opens a session just to look at it: the first change opens one.
    if (!this.sessions.sessionId) return;
    let stats: SessionStats;
    try {
      stats = await sessionStats(await this.sessions.store());
    } catch {
      return; // switching or closing: the change that follows checks again
    }
    const error = stats.lastCheckpointError;
    const before = this.failing?.sessionId === stats.sessionId ? this.failing : undefined;
    const kind = error && (error.code ?? error.message);
    if (error && kind !== before?.kind) {
      this.failing = { sessionId: stats.sessionId, kind: kind! };
      this.log.warn(
        `checkpoint of session ${stats.sessionId} failed: ${error.message}. Retained outputs are safe in the journal ` +
          `(${formatBytes(stats.journalBytes)} of ${formatBytes(stats.journalLimitBytes)}); past that limit new outputs will be refused`,
      );
      this.startPolling();
      this.sessions.notifyChanged();
    } else if (!error && before) {
      this.failing = undefined;
      this.stopPolling();
      this.log.info(
        `checkpoints caught up in session ${stats.sessionId}: the session file holds every retained output again (journal ${formatBytes(stats.journalBytes)})`,
      );
      this.sessions.notifyChanged();
    } else if (!error && this.failing) {
      // Another session is current now; the failing one was closed (its journal replays on open).
      this.failing = undefined;
      this.stopPolling();
    }
    // Records still in the journal and no error yet: the checkpoint has not run (a busy machine, a
    // backoff). Look again, so a failure that comes later than SETTLE_MS is still seen.
    if (!error && stats.journalBytes > 0) this.settleAfterChange();
  }

  private settleAfterChange(): void {
    if (this.settleTimer) clearTimeout(this.settleTimer);
    this.settleTimer = setTimeout(() => {
      this.settleTimer = undefined;
      void this.check();
    }, SETTLE_MS);
  }

  private startPolling(): void {
    this.pollTimer ??= setInterval(() => void this.check(), POLL_MS);
  }

  private stopPolling(): void {
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.pollTimer = undefined;
  }

  dispose(): void {
    this.subscription.dispose();
    if (this.settleTimer) clearTimeout(this.settleTimer);
    this.stopPolling();
  }
}
