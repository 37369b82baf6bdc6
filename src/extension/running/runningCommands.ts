/**
 * The run_command calls running in this window, for a person: the command, its bytes so far, its
 * elapsed time and a bounded tail (what capture's onProgress reports, src/core/capture/progress.ts),
 * and a way to stop it. RecallTool adds a call when it starts and removes it when the tool returns;
 * the Retained Outputs tree lists them and its Cancel aborts the call's signal, which stops the whole
 * process tree exactly as the tool's own cancellation does. No vscode import, so the unit suite can
 * test it in plain Node.
 */
import type { CaptureProgress } from '../../core/capture/progress';

export interface RunningCommand {
  /** `running:<n>`, unique in this window. */
  readonly id: string;
  readonly command: string;
  readonly startedAt: number;
  totalBytes: number;
  stdoutBytes: number;
  stderrBytes: number;
  /** The last bytes so far, at most PROGRESS_TAIL_BYTES (empty before the first report). */
  tail: Buffer;
  /** Set once Cancel was asked for (the process tree is being stopped). */
  cancelling: boolean;
  /** Set when the tool returned: when, whether the call was cancelled, and the copy it retained (if any). */
  ended?: { at: number; cancelled: boolean; outputId?: string };
}

type Listener = (id: string | undefined) => void;

export class RunningCommands {
  private readonly running = new Map<string, { entry: RunningCommand; abort: AbortController }>();
  private readonly listeners = new Set<Listener>();
  private next = 1;

  /** The calls running now, oldest first. */
  list(): RunningCommand[] {
    return [...this.running.values()].map(({ entry }) => entry);
  }

  get(id: string): RunningCommand | undefined {
    return this.running.get(id)?.entry;
  }

  /**
   * Adds a call; aborting `abort` (Cancel) stops it. Returns what the tool hands capture as its
   * progress listener, and `end`, which removes the call (the tool returned, whatever the outcome)
   * and records how it ended on the entry, which a watcher may still hold (its last counts stay).
   */
  start(
    command: string,
    abort: AbortController,
    now = Date.now(),
  ): { id: string; progress: (p: CaptureProgress) => void; end: (outputId?: string, at?: number) => void } {
    const id = `running:${this.next++}`;
    const entry: RunningCommand = {
      id,
      command,
      startedAt: now,
      totalBytes: 0,
      stdoutBytes: 0,
      stderrBytes: 0,
      tail: Buffer.alloc(0),
      cancelling: false,
    };
    this.running.set(id, { entry, abort });
    this.fire(undefined);
    return {
      id,
      progress: (p) => {
        if (!this.running.has(id)) return;
        entry.totalBytes = p.totalBytes;
        entry.stdoutBytes = p.stdoutBytes;
        entry.stderrBytes = p.stderrBytes;
        entry.tail = p.tail;
        this.fire(id);
      },
      end: (outputId, at = Date.now()) => {
        if (!this.running.delete(id)) return;
        entry.ended = { at, cancelled: abort.signal.aborted, ...(outputId ? { outputId } : {}) };
        this.fire(undefined);
      },
    };
  }

  /** Stops a call's whole process tree (its signal aborts); false when it is no longer running. */
  cancel(id: string): boolean {
    const found = this.running.get(id);
    if (!found) return false;
    found.entry.cancelling = true;
    found.abort.abort();
    this.fire(id);
    return true;
  }

  /** Called with the call that changed (its bytes), or undefined when the list itself changed. */
  onDidChange(listener: Listener): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  private fire(id: string | undefined): void {
    for (const listener of [...this.listeners]) listener(id);
  }
}

/** This window's running commands: one registry per extension host, shared by the tools and the tree. */
export const RUNNING_COMMANDS = new RunningCommands();
