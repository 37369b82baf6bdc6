/**
 * What a running command has printed so far, for a person watching it (VS Code's Retained Outputs
 * tree): the byte counts and a bounded tail of the merged output. It only observes the bytes the
 * capture already reads; the result, the copy and the preview do not depend on it.
 */

/**
 * The most of a running command's last bytes a progress report carries. Enough that the document
 * VS Code shows them in holds over 100,000 characters of ASCII once it slides: VS Code replaces a
 * longer content provider text whole, while a shorter one is diffed character by character, which
 * took seconds per redraw of a sliding 16 KiB window (issue 40). Copied 4 times a second at most.
 */
export const PROGRESS_TAIL_BYTES = 128 * 1024;

/** At most this often a listener is told (and once more when the command ends). */
export const PROGRESS_INTERVAL_MS = 250;

export interface CaptureProgress {
  /** Bytes of stdout and stderr so far (the merged output's total). */
  totalBytes: number;
  stdoutBytes: number;
  stderrBytes: number;
  /** The merged output's last bytes so far, at most PROGRESS_TAIL_BYTES (may start inside a character or a line). */
  tail: Buffer;
  /** True in the last report, sent when the command's streams have closed. */
  done: boolean;
}

export type ProgressListener = (progress: CaptureProgress) => void;

/**
 * Counts the bytes and keeps the last `tailBytes` of them in a fixed ring; reports to the listener at
 * most every `intervalMs` (the report a burst of chunks would make waits on a timer, so the last
 * bytes before a pause are reported too), and once more, `done`, at `finish`.
 */
export class ProgressTracker {
  private readonly ring: Buffer;
  /** Where the next byte goes in the ring; `filled` says how much of it holds bytes. */
  private at = 0;
  private filled = 0;
  private stdoutBytes = 0;
  private stderrBytes = 0;
  private lastReport = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private finished = false;

  constructor(
    private readonly listener: ProgressListener,
    private readonly tailBytes = PROGRESS_TAIL_BYTES,
    private readonly intervalMs = PROGRESS_INTERVAL_MS,
    private readonly now: () => number = Date.now,
  ) {
    this.ring = Buffer.alloc(Math.max(0, tailBytes));
  }

  write(stream: 'stdout' | 'stderr', chunk: Buffer): void {
    if (this.finished) return;
    if (stream === 'stdout') this.stdoutBytes += chunk.length;
    else this.stderrBytes += chunk.length;
    this.keep(chunk);
    this.schedule();
  }

  /** The last report (`done`); later writes are ignored. */
  finish(): void {
    if (this.finished) return;
    this.finished = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.report(true);
  }

  /** What a report says now. */
  snapshot(done = false): CaptureProgress {
    const size = this.ring.length;
    const start = this.filled < size ? 0 : this.at;
    const tail =
      this.filled < size
        ? Buffer.from(this.ring.subarray(0, this.filled))
        : Buffer.concat([this.ring.subarray(start), this.ring.subarray(0, start)]);
    return {
      totalBytes: this.stdoutBytes + this.stderrBytes,
      stdoutBytes: this.stdoutBytes,
      stderrBytes: this.stderrBytes,
      tail,
      done,
    };
  }

  private keep(chunk: Buffer): void {
    const size = this.ring.length;
    if (size === 0) return;
    // Only the chunk's last `size` bytes can stay.
    const from = chunk.length > size ? chunk.subarray(chunk.length - size) : chunk;
    const first = Math.min(from.length, size - this.at);
    from.copy(this.ring, this.at, 0, first);
    from.copy(this.ring, 0, first);
    this.at = (this.at + from.length) % size;
    this.filled = Math.min(size, this.filled + from.length);
  }

  private schedule(): void {
    if (this.timer) return;
    const wait = this.lastReport + this.intervalMs - this.now();
    if (wait <= 0) {
      this.report(false);
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.finished) this.report(false);
    }, wait);
  }

  private report(done: boolean): void {
    this.lastReport = this.now();
    try {
      this.listener(this.snapshot(done));
    } catch {
      // A watcher's failure never disturbs the command or its capture.
    }
  }
}
