/**
 * The store worker's host (see `workerClient.ts` for the failure handling): one per worker script,
 * shared and reference-counted by its stores, on worker/host.ts. It also holds the search lane of
 * that script (search/lane.ts): searches run on a worker of their own, so no search ever runs on this one.
 */
import { RecallError } from '../errors';
import { SearchLane } from '../search/lane';
import { WorkerHost } from '../worker/host';
import { defaultExecArgv } from '../worker/script';
import type { StoreOpShapes } from '../store/storeOps';

/** The worker's end of a store: its handle, and its session (for the failure message). */
export interface StoreLink {
  readonly handle: number;
  readonly sessionId: string;
}

/** One store worker thread and the stores it serves. */
export class StoreWorkerHost extends WorkerHost<StoreOpShapes> {
  private static readonly shared = new Map<string, StoreWorkerHost>();

  /** A live host for this script (creating it if needed), with one more reference. */
  static acquire(workerPath: string, execArgv?: string[]): StoreWorkerHost {
    const argv = execArgv ?? defaultExecArgv(workerPath);
    const key = `${workerPath}\0${JSON.stringify(argv)}`;
    let host = StoreWorkerHost.shared.get(key);
    if (!host || host.state !== 'running') {
      host = new StoreWorkerHost(key, workerPath, argv);
      StoreWorkerHost.shared.set(key, host);
    }
    host.retainRef();
    return host;
  }

  /** Where this script's searches run. */
  readonly lane: SearchLane;
  private readonly links = new Set<StoreLink>();

  private constructor(
    private readonly key: string,
    workerPath: string,
    execArgv: string[],
  ) {
    super('store worker', workerPath, execArgv);
    this.lane = SearchLane.acquire(workerPath, execArgv);
  }

  attach(link: StoreLink): void {
    this.links.add(link);
  }

  detach(link: StoreLink): void {
    this.links.delete(link);
  }

  protected failureError(what: string): RecallError {
    const sessions = [...this.links].map((link) => link.sessionId);
    return new RecallError(
      'STORE_UNAVAILABLE',
      `The session store worker stopped unexpectedly (${what}). Outputs cannot be retained or read${sessions.length > 0 ? ` in session ${sessions.join(', ')}` : ''} until a new session is opened.`,
      { reason: what },
    );
  }

  protected stoppedError(): RecallError {
    return new RecallError('STORE_UNAVAILABLE', 'The session store worker was stopped. Open a new session.');
  }

  protected stopped(): void {
    if (StoreWorkerHost.shared.get(this.key) === this) StoreWorkerHost.shared.delete(this.key);
    this.lane.release();
  }
}
