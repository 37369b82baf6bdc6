/**
 * The search lane: searches run on their own worker thread (service.ts), never on the store
 * worker, so a page read is never queued behind a search, and a slow search cannot hold up reads,
 * retains or checkpoints.
 *
 * Up to MAX_RUNNING searches are in the worker at once; it interleaves them slice by slice, so one
 * long search (a huge text, a slow pattern) shares the lane instead of holding it. The others wait
 * here, in order, without their text: a retained copy's bytes are fetched (in slices, from the store
 * worker) only when its search is about to run, so hundreds of waiting searches cost no memory.
 *
 * A search stops at its time limit, counted from when it starts running, or when its signal aborts:
 * the worker checks between slices. Should a step not end (one RE2 match can scan the whole text),
 * the worker is terminated GRACE_MS later and the other searches in it are run again in a fresh one.
 *
 * One lane per worker script, shared and reference-counted (the store workers' hosts and file
 * searches hold it); the worker starts with the first search and ends with the last reference.
 */
import { Worker } from 'node:worker_threads';
import { RecallError, describeError } from '../errors';
import { toError } from '../worker/errors';
import { isReply, type WorkerReply } from '../worker/reply';
import type { SearchOptions } from '../types';
import type { SearchOutcome, SearchRequest, SearchSource, SearchWorkerRequest } from './protocol';
import { cancelledError, timeoutError } from './sliced';

/** Default time limit of one search, in ms from when it starts running. */
export const DEFAULT_SEARCH_TIMEOUT_MS = 10_000;

const MAX_RUNNING = 4;
/** How long a search may overrun its limit (or its cancellation) before its worker is terminated. */
const GRACE_MS = 2000;

export interface LaneSearch {
  pattern: string;
  options: SearchOptions;
  /** The output ID or the path, for error messages. */
  subject: string;
  /** The text to search, built when the search is about to run (and again if it must be re-run). */
  source: () => Promise<{ source: SearchSource; transfer?: ArrayBuffer[] }>;
  /** ms from the start of the run; 0: none. */
  timeoutMs: number;
  signal?: AbortSignal;
}

interface Job {
  request: LaneSearch;
  resolve(outcome: SearchOutcome): void;
  reject(error: Error): void;
  settled: boolean;
  /** The worker request id while it runs. */
  id?: number;
  timer?: NodeJS.Timeout;
  /** Its worker, while it runs (a re-run after a termination goes to the next one). */
  worker?: Worker;
}

export class SearchLane {
  private static readonly shared = new Map<string, SearchLane>();

  /** The live lane for this script and options (creating it if needed), with one more reference. */
  static acquire(workerPath: string, execArgv: string[]): SearchLane {
    const key = `${workerPath}\0${JSON.stringify(execArgv)}`;
    let lane = SearchLane.shared.get(key);
    if (!lane) {
      lane = new SearchLane(key, workerPath, execArgv);
      SearchLane.shared.set(key, lane);
    }
    lane.refs++;
    return lane;
  }

  private refs = 0;
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly queue: Job[] = [];
  /** Jobs fetching their text or running in the worker. */
  private readonly active = new Set<Job>();
  private readonly running = new Map<number, Job>();

  private constructor(
    private readonly key: string,
    private readonly workerPath: string,
    private readonly execArgv: string[],
  ) {}

  release(): void {
    this.refs = Math.max(0, this.refs - 1);
    this.stopIfIdle();
  }

  /** Runs a search in the lane: CANCELLED when its signal aborts first, TIMEOUT past its limit. */
  search(request: LaneSearch): Promise<SearchOutcome> {
    return new Promise<SearchOutcome>((resolve, reject) => {
      const job: Job = { request, resolve, reject, settled: false };
      const { signal } = request;
      if (signal?.aborted) {
        reject(cancelledError());
        return;
      }
      const onAbort = (): void => this.cancel(job);
      signal?.addEventListener('abort', onAbort, { once: true });
      const settle = (): void => {
        job.settled = true;
        signal?.removeEventListener('abort', onAbort);
      };
      job.resolve = (outcome) => {
        if (job.settled) return;
        settle();
        resolve(outcome);
      };
      job.reject = (error) => {
        if (job.settled) return;
        settle();
        reject(error);
      };
      this.queue.push(job);
      this.pump();
    });
  }

  /** Starts waiting searches while fewer than MAX_RUNNING are active. */
  private pump(): void {
    while (this.active.size < MAX_RUNNING && this.queue.length > 0) {
      const job = this.queue.shift() as Job;
      if (job.settled) continue;
      this.active.add(job);
      job.request.source().then(
        ({ source, transfer }) => (job.settled ? this.finish(job) : this.send(job, source, transfer)),
        (error: unknown) => {
          job.reject(error instanceof Error ? error : new Error(describeError(error)));
          this.finish(job);
        },
      );
    }
    this.stopIfIdle();
  }

  private send(job: Job, source: SearchSource, transfer?: ArrayBuffer[]): void {
    const { pattern, options, subject, timeoutMs } = job.request;
    const id = this.nextId++;
    const message: SearchRequest = { id, op: 'search', pattern, options, subject, source, timeoutMs };
    let worker: Worker;
    try {
      worker = this.ensureWorker();
      worker.postMessage(message, transfer);
    } catch (error) {
      job.reject(unavailable(`it could not be started: ${describeError(error)}`));
      this.finish(job);
      return;
    }
    job.id = id;
    job.worker = worker;
    this.running.set(id, job);
    if (timeoutMs > 0 && Number.isFinite(timeoutMs)) this.arm(job, timeoutMs + GRACE_MS, () => timeoutError(timeoutMs));
    worker.ref();
  }

  private cancel(job: Job): void {
    job.reject(cancelledError());
    if (job.id === undefined || !this.running.has(job.id)) return; // waiting or fetching: it is dropped when its turn comes
    job.worker?.postMessage({ op: 'cancel', id: job.id } satisfies SearchWorkerRequest);
    this.arm(job, GRACE_MS, cancelledError);
  }

  /** Terminates the worker if `job` has not been answered within `ms`. */
  private arm(job: Job, ms: number, error: () => RecallError): void {
    clearTimeout(job.timer);
    job.timer = setTimeout(() => {
      job.reject(error());
      this.replaceWorker(job);
    }, ms);
    job.timer.unref();
  }

  private onReply(reply: WorkerReply): void {
    const job = this.running.get(reply.id);
    if (!job) return;
    if (reply.ok) job.resolve(reply.result as SearchOutcome);
    else job.reject(toError(reply.error));
    this.finish(job);
  }

  private finish(job: Job): void {
    clearTimeout(job.timer);
    if (job.id !== undefined) this.running.delete(job.id);
    job.id = undefined;
    job.worker = undefined;
    this.active.delete(job);
    if (this.running.size === 0) this.worker?.unref();
    this.pump();
  }

  /** A search that does not stop: end its worker; the other searches in it run again, first. */
  private replaceWorker(stuck: Job): void {
    const worker = stuck.worker;
    const others = [...this.running.values()].filter((job) => job !== stuck && job.worker === worker);
    if (worker) this.drop(worker);
    for (const job of others) {
      this.running.delete(job.id as number);
      clearTimeout(job.timer);
      job.id = undefined;
      job.worker = undefined;
      this.active.delete(job);
    }
    this.queue.unshift(...others);
    this.finish(stuck);
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.workerPath, { execArgv: this.execArgv, workerData: { role: 'search' } });
    worker.on('message', (message: unknown) => {
      if (isReply(message)) this.onReply(message);
    });
    worker.on('error', (error) => this.lost(worker, `it crashed: ${describeError(error)}`));
    worker.on('exit', (code) => this.lost(worker, `it exited with code ${code}`));
    worker.unref();
    this.worker = worker;
    return worker;
  }

  /** The worker died: its searches fail (a new worker starts with the next one). */
  private lost(worker: Worker, what: string): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    for (const job of [...this.running.values()].filter((each) => each.worker === worker)) {
      job.reject(unavailable(what));
      this.finish(job);
    }
  }

  private drop(worker: Worker): void {
    if (this.worker === worker) this.worker = undefined;
    void worker.terminate();
  }

  private stopIfIdle(): void {
    if (this.refs > 0 || this.queue.length > 0 || this.active.size > 0) return;
    if (SearchLane.shared.get(this.key) === this) SearchLane.shared.delete(this.key);
    if (this.worker) this.drop(this.worker);
  }
}

const unavailable = (what: string): RecallError =>
  new RecallError('STORE_UNAVAILABLE', `The search worker stopped unexpectedly (${what}). Search again: a fresh worker starts.`, {
    reason: what,
  });
