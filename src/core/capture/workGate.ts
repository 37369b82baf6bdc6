/**
 * How much work of one kind this process runs at once. Every `run_command` holds up to two capture
 * buffers of `streamBytes` (stderr, the merged copy) and a finished copy, every `run_code` a Node process: without a bound, a
 * client that sends 200 calls at once gets 200 children and gigabytes held. Work beyond the bound
 * waits in a queue, first come first served, and is told afterwards how long it waited and why.
 */
import * as os from 'node:os';
import { MiB } from '../limits';

export interface GateLimits {
  /** Most pieces of work running at once. */
  maxConcurrent: number;
  /** Most bytes the running pieces may reserve together; one piece larger than this still runs, alone. */
  maxBytes: number;
}

export interface Admission {
  /** Milliseconds spent in the queue (0 when admitted at once). */
  waitedMs: number;
  /** Why it had to wait, in words for the model; undefined when it did not wait. */
  waitedFor?: string;
  /** The signal aborted while it waited: nothing was admitted (release is a no-op). */
  cancelled: boolean;
  /** Gives the slot and the bytes back; calling it again does nothing. */
  release(): void;
}

interface Waiter {
  bytes: number;
  admit(): void;
}

/** The setting that sizes the gates (0, its default, means sized to the machine). */
export const MAX_CONCURRENT_SETTING = 'toolOutputRecall.commands.maxConcurrent';

/** 4 per core, at least 8 (commands often wait on the disk or the network), at most 64. */
export function defaultMaxConcurrent(): number {
  return Math.min(64, Math.max(8, 4 * os.availableParallelism()));
}

/** An eighth of the machine's memory, within [256 MiB, 1 GiB]. */
export function defaultMaxBytes(): number {
  return Math.max(256 * MiB, Math.min(1024 * MiB, Math.floor(os.totalmem() / 8)));
}

const mib = (bytes: number): string => `${Math.round((bytes / MiB) * 10) / 10} MiB`;

export class WorkGate {
  private running = 0;
  private reserved = 0;
  private readonly queue: Waiter[] = [];
  private limits: GateLimits = { maxConcurrent: defaultMaxConcurrent(), maxBytes: defaultMaxBytes() };

  /** `noun`: what the work is called in messages ("commands", "programs"). */
  constructor(private readonly noun: string) {}

  /** Applies the limits given (0: the machine's default; a limit not given stays) and admits whoever now fits. */
  configure(limits: Partial<GateLimits>): void {
    if (limits.maxConcurrent !== undefined) this.limits.maxConcurrent = limits.maxConcurrent || defaultMaxConcurrent();
    if (limits.maxBytes !== undefined) this.limits.maxBytes = limits.maxBytes || defaultMaxBytes();
    this.pump();
  }

  /** What runs and waits now (for tests and logs). */
  state(): { running: number; reservedBytes: number; queued: number } & GateLimits {
    return { running: this.running, reservedBytes: this.reserved, queued: this.queue.length, ...this.limits };
  }

  /**
   * Resolves once the work may start, holding a slot and `bytes` until `release`; never rejects. An
   * abort while waiting resolves at once with `cancelled` (the caller then starts nothing).
   * `onWait` is told why, at once, when the work has to wait (for a log).
   */
  enter(bytes: number, signal?: AbortSignal, onWait?: (reason: string) => void): Promise<Admission> {
    if (signal?.aborted) return Promise.resolve(this.cancelled());
    if (this.queue.length === 0 && this.fits(bytes)) return Promise.resolve(this.take(bytes, 0));
    const waitedFor = this.blocker(bytes);
    onWait?.(waitedFor);
    const since = performance.now();
    return new Promise<Admission>((resolve) => {
      const waiter: Waiter = {
        bytes,
        admit: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(this.take(bytes, performance.now() - since, waitedFor));
        },
      };
      const onAbort = (): void => {
        this.queue.splice(this.queue.indexOf(waiter), 1);
        resolve(this.cancelled(performance.now() - since, waitedFor));
        this.pump(); // a large waiter leaving the head may let smaller ones behind it in
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
    });
  }

  private fits(bytes: number): boolean {
    if (this.running >= this.limits.maxConcurrent) return false;
    return this.running === 0 || this.reserved + bytes <= this.limits.maxBytes;
  }

  private take(bytes: number, waitedMs: number, waitedFor?: string): Admission {
    this.running++;
    this.reserved += bytes;
    let held = true;
    return {
      waitedMs: Math.round(waitedMs),
      ...(waitedFor ? { waitedFor } : {}),
      cancelled: false,
      release: () => {
        if (!held) return;
        held = false;
        this.running--;
        this.reserved -= bytes;
        this.pump();
      },
    };
  }

  private cancelled(waitedMs = 0, waitedFor?: string): Admission {
    return { waitedMs: Math.round(waitedMs), ...(waitedFor ? { waitedFor } : {}), cancelled: true, release: () => undefined };
  }

  /** First come, first served: the head waits for room even when a smaller one behind it would fit. */
  private pump(): void {
    while (this.queue.length > 0 && this.fits(this.queue[0].bytes)) this.queue.shift()!.admit();
  }

  /** Why work of `bytes` cannot start now, in the words of the result. */
  private blocker(bytes: number): string {
    const { maxConcurrent, maxBytes } = this.limits;
    const reasons: string[] = [];
    if (this.running >= maxConcurrent) {
      reasons.push(
        `${this.running} ${this.noun} were running, the most that run at once (${maxConcurrent}; setting ${MAX_CONCURRENT_SETTING})`,
      );
    } else if (this.reserved + bytes > maxBytes) {
      reasons.push(
        `the ${this.running} ${this.noun} running held ${mib(this.reserved)} of capture buffers, and with this one's ${mib(bytes)} they would pass the ${mib(maxBytes)} allowed in flight`,
      );
    }
    if (this.queue.length > 0) reasons.push(`${this.queue.length} more ${this.noun} were already queued ahead of it`);
    return reasons.join('; ');
  }
}

/** The line of a result that says the call waited before it started, and why. */
export function queuedLine(queued: { waitedMs: number; reason: string }): string {
  return `queued ${(queued.waitedMs / 1000).toFixed(1)} s before it started: ${queued.reason}.`;
}

/** The shells of `run_command` in this process. */
export const COMMAND_GATE = new WorkGate('commands');
/**
 * The sandboxes of `run_code`, apart from the commands: a program waiting for its nested
 * `run_command` must not hold the slot that command needs.
 */
export const PROGRAM_GATE = new WorkGate('programs');
