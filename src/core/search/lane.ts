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
 * The worker's plumbing (start, one reply per search, crash or exit, ref while searches are in
 * flight) is worker/host.ts's, as for the store worker; what is here is the lane's policy. A host
 * never restarts its worker, so the lane makes a new one per worker it needs.
 */
import { RecallError, describeError } from '../errors';
import { WorkerHost } from '../worker/host';
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
  /** The worker request id while it runs (for its cancel). */
  id?: number;
  timer?: NodeJS.Timeout;
  /** Its worker, while it runs (a re-run after a termination goes to the next one). */
  worker?: SearchWorker;
}

/**
 * One search worker (the lane's worker script with `workerData.role` "search", service.ts). The lane
 * holds it until the lane is idle or a search in it does not stop; it is never reused after.
 */
class SearchWorker extends WorkerHost<Record<never, never>> {
  constructor(
    workerPath: string,
    execArgv: string[],
    private readonly onStopped: (worker: SearchWorker) => void,
  ) {
    super('search worker', workerPath, execArgv, { role: 'search' });
    // The lane's reference: the host would otherwise stop the worker whenever no search is in it.
    this.retainRef();
  }

  search(request: Omit<SearchRequest, 'id'>, transfer: ArrayBuffer[] | undefined, sent: (id: number) => void): Promise<SearchOutcome> {
    return this.request(request, transfer, sent) as Promise<SearchOutcome>;
  }

  /** Asks the worker to stop the search `id` between two of its slices; the search still replies. */
  cancel(id: number): void {
    this.notify({ op: 'cancel', id } satisfies SearchWorkerRequest);
  }

  protected failureError(what: string): RecallError {
    return unavailable(what);
  }

  protected stoppedError(): RecallError {
    // Seen by no caller: the lane settles or re-queues a worker's searches before it ends it.
    return unavailable('it was stopped');
  }

  protected stopped(): void {
    this.onStopped(this);
  }

  /** A search's first reply may come seconds after the worker started: an error before it is a crash too. */
  protected override crashed(error: unknown): string {
    return `it crashed: ${describeError(error)}`;
  }
}

export class SearchLane {
  private static readonly shared = new Map<string, SearchLane>();

  /**
   * The live lane for this script, options and purpose (creating it if needed), with one more reference. Each
   * purpose has a worker of its own: `copies` searches one copy or file (the session store holds that lane while it
   * is open), `sessions` searches across outputs and keeps sessions' views in its worker, which go with it when its
   * catalog lets the lane go (sharing the store's lane, they stayed as long as the store was open).
   */
  static acquire(workerPath: string, execArgv: string[], purpose: 'copies' | 'sessions' = 'copies'): SearchLane {
    const key = `${workerPath}\0${JSON.stringify(execArgv)}\0${purpose}`;
    let lane = SearchLane.shared.get(key);
    if (!lane) {
      lane = new SearchLane(key, workerPath, execArgv);
      SearchLane.shared.set(key, lane);
    }
    lane.refs++;
    return lane;
  }

  /** Lanes whose worker runs now (tests look). */
  static runningWorkers(): number {
    return [...SearchLane.shared.values()].filter((lane) => lane.worker !== undefined).length;
  }

  private refs = 0;
  private worker: SearchWorker | undefined;
  private readonly queue: Job[] = [];
  /** Jobs fetching their text or running in the worker. */
  private readonly active = new Set<Job>();
  /** Jobs sent to a worker and not yet finished. */
  private readonly running = new Set<Job>();

  private constructor(
    private readonly key: string,
    private readonly workerPath: string,
    private readonly execArgv: string[],
  ) {}

  release(): void {
    this.refs = Math.max(0, this.refs - 1);
    this.stopIfIdle();
  }

  /** Starts the worker ahead of a search whose source takes a while to make; one that cannot start fails that search. */
  start(): void {
    try {
      this.ensureWorker();
    } catch {
      // send() reports it.
    }
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
    let worker: SearchWorker;
    try {
      worker = this.ensureWorker();
    } catch (error) {
      job.reject(unavailable(`it could not be started: ${describeError(error)}`));
      this.finish(job);
      return;
    }
    job.worker = worker;
    this.running.add(job);
    // A reply from a worker the job has left (it was re-queued when that worker was ended) is not its own.
    const answered = (settle: () => void): void => {
      if (job.worker !== worker) return;
      settle();
      this.finish(job);
    };
    worker
      .search({ op: 'search', pattern, options, subject, source, timeoutMs }, transfer, (id) => (job.id = id))
      .then(
        (outcome) => answered(() => job.resolve(outcome)),
        (error: Error) => answered(() => job.reject(error)),
      );
    if (timeoutMs > 0 && Number.isFinite(timeoutMs)) this.arm(job, timeoutMs + GRACE_MS, () => timeoutError(timeoutMs));
  }

  private cancel(job: Job): void {
    job.reject(cancelledError());
    if (job.id === undefined || !this.running.has(job)) return; // waiting or fetching: it is dropped when its turn comes
    job.worker?.cancel(job.id);
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

  private finish(job: Job): void {
    this.detach(job);
    this.pump();
  }

  /** The job leaves its worker and the active set (to finish, or to wait for a re-run). */
  private detach(job: Job): void {
    clearTimeout(job.timer);
    this.running.delete(job);
    job.id = undefined;
    job.worker = undefined;
    this.active.delete(job);
  }

  /** A search that does not stop: end its worker; the other searches in it run again, first. */
  private replaceWorker(stuck: Job): void {
    const worker = stuck.worker;
    const others = [...this.running].filter((job) => job !== stuck && job.worker === worker);
    for (const job of others) this.detach(job);
    worker?.terminate(); // its calls reject, unheard: none of its jobs is in it any more once this returns
    this.queue.unshift(...others);
    this.finish(stuck);
  }

  private ensureWorker(): SearchWorker {
    this.worker ??= new SearchWorker(this.workerPath, this.execArgv, (worker) => {
      // Crashed, exited or ended: the next search starts a fresh one. (Its searches fail, or were re-queued.)
      if (this.worker === worker) this.worker = undefined;
    });
    return this.worker;
  }

  private stopIfIdle(): void {
    if (this.refs > 0 || this.queue.length > 0 || this.active.size > 0) return;
    if (SearchLane.shared.get(this.key) === this) SearchLane.shared.delete(this.key);
    this.worker?.terminate();
  }
}

const unavailable = (what: string): RecallError =>
  new RecallError('STORE_UNAVAILABLE', `The search worker stopped unexpectedly (${what}). Search again: a fresh worker starts.`, {
    reason: what,
  });
