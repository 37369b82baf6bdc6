/**
 * The worker thread behind `WorkerStore` (see `workerClient.ts` for the failure handling): one
 * `WorkerHost` per worker script, shared and reference-counted by its stores, which sends their
 * calls and keeps track of the ones in flight. It also holds the search lane of that script
 * (search/lane.ts): searches run on a worker of their own, so no search ever runs on this one.
 */
import { Worker } from 'node:worker_threads';
import { RecallError, describeError } from '../errors';
import { SearchLane } from '../search/lane';
import type { Encoded } from './workerContent';
import { toError } from '../worker/errors';
import type { ResultOf, WorkerOp, WorkerReply } from './workerProtocol';
import { isReply } from './workerProtocol';
import { defaultExecArgv } from '../worker/script';

/** The worker's end of a store: its handle, and its session (for the failure message). */
export interface StoreLink {
  readonly handle: number;
  readonly sessionId: string;
}

export interface CallOptions {
  transfer?: ArrayBuffer[];
  /** Builds (more of) the arguments asynchronously before the call is sent. */
  encode?: () => Promise<Encoded>;
}

interface Call {
  id: number;
  op: WorkerOp;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** One worker thread and the stores it serves. */
export class WorkerHost {
  private static readonly shared = new Map<string, WorkerHost>();

  /** A live host for this script (creating it if needed), with one more reference. */
  static acquire(workerPath: string, execArgv?: string[]): WorkerHost {
    const argv = execArgv ?? defaultExecArgv(workerPath);
    const key = `${workerPath}\0${JSON.stringify(argv)}`;
    let host = WorkerHost.shared.get(key);
    if (!host || host.state !== 'running') {
      host = new WorkerHost(key, workerPath, argv);
      WorkerHost.shared.set(key, host);
    }
    host.retainRef();
    return host;
  }

  failure: RecallError | undefined;
  /** Where this script's searches run. */
  readonly lane: SearchLane;
  private readonly worker: Worker;
  private state: 'running' | 'failed' | 'stopped' = 'running';
  private refs = 0;
  private nextId = 1;
  private readonly pending = new Map<number, Call>();
  private readonly links = new Set<StoreLink>();
  /** Whether the worker has answered anything yet (for the failure message). */
  private started = false;

  private constructor(
    private readonly key: string,
    workerPath: string,
    execArgv: string[],
  ) {
    this.worker = new Worker(workerPath, { execArgv });
    this.worker.on('message', (message: unknown) => {
      if (isReply(message)) this.onReply(message);
    });
    this.worker.on('error', (error) => this.fail(`it ${this.started ? 'crashed' : 'could not start'}: ${describeError(error)}`));
    this.worker.on('exit', (code) => this.fail(`it exited with code ${code}`));
    this.worker.unref();
    this.lane = SearchLane.acquire(workerPath, execArgv);
  }

  get threadId(): number {
    return this.worker.threadId;
  }

  retainRef(): void {
    this.refs++;
  }

  release(): void {
    this.refs = Math.max(0, this.refs - 1);
    this.maybeStop();
  }

  attach(link: StoreLink): void {
    this.links.add(link);
  }

  detach(link: StoreLink): void {
    this.links.delete(link);
  }

  call<K extends WorkerOp>(op: K, link: StoreLink | undefined, args: object, options: CallOptions = {}): Promise<ResultOf<K>> {
    return new Promise<ResultOf<K>>((resolve, reject) => {
      const send = (callArgs: object, transfer?: ArrayBuffer[]): void =>
        this.post(op, link, callArgs, transfer, resolve as (value: unknown) => void, reject);
      if (!options.encode) {
        send(args, options.transfer);
        return;
      }
      options.encode().then((encoded) => send({ ...args, ...encoded.args }, encoded.transfer), reject);
    });
  }

  private post(
    op: WorkerOp,
    link: StoreLink | undefined,
    args: object,
    transfer: ArrayBuffer[] | undefined,
    resolve: (value: unknown) => void,
    reject: (error: Error) => void,
  ): void {
    if (this.state !== 'running') {
      reject(this.unavailableError());
      return;
    }
    const id = this.nextId++;
    const message = { ...args, id, op, ...(link ? { handle: link.handle } : {}) };
    try {
      try {
        this.worker.postMessage(message, transfer);
      } catch (error) {
        if (!transfer) throw error;
        this.worker.postMessage(message); // e.g. an untransferable buffer: copy it instead
      }
    } catch (error) {
      reject(
        new RecallError(
          'INVALID_ARGUMENT',
          `The ${op} arguments cannot be sent to the store worker (${describeError(error)}); pass strings, numbers, Uint8Arrays and JSON-like objects.`,
        ),
      );
      return;
    }
    this.pending.set(id, { id, op, resolve, reject });
    this.updateRef();
  }

  private onReply(reply: WorkerReply): void {
    this.started = true;
    const call = this.pending.get(reply.id);
    if (!call) return;
    this.pending.delete(reply.id);
    if (reply.ok) call.resolve(reply.result);
    else call.reject(toError(reply.error));
    this.updateRef();
    this.maybeStop();
  }

  private fail(what: string): void {
    if (this.state !== 'running') return;
    this.state = 'failed';
    const sessions = [...this.links].map((link) => link.sessionId);
    this.failure = new RecallError(
      'STORE_UNAVAILABLE',
      `The session store worker stopped unexpectedly (${what}). Outputs cannot be retained or read${sessions.length > 0 ? ` in session ${sessions.join(', ')}` : ''} until a new session is opened.`,
      { reason: what },
    );
    if (WorkerHost.shared.get(this.key) === this) WorkerHost.shared.delete(this.key);
    const calls = [...this.pending.values()];
    this.pending.clear();
    for (const call of calls) call.reject(this.unavailableError());
    void this.worker.terminate();
    this.lane.release();
  }

  /** A fresh error per rejection (stacks and identity are per call). */
  private unavailableError(): RecallError {
    const failure = this.failure ?? new RecallError('STORE_UNAVAILABLE', 'The session store worker was stopped. Open a new session.');
    return new RecallError(failure.code, failure.message, failure.details);
  }

  private maybeStop(): void {
    if (this.refs > 0 || this.pending.size > 0 || this.state !== 'running') return;
    if (WorkerHost.shared.get(this.key) === this) WorkerHost.shared.delete(this.key);
    this.state = 'stopped';
    void this.worker.terminate();
    this.lane.release();
  }

  /** The worker keeps the process alive only while calls are in flight, like an in-process store. */
  private updateRef(): void {
    if (this.state !== 'running') return;
    if (this.pending.size > 0) this.worker.ref();
    else this.worker.unref();
  }
}
