/**
 * The caller's side of a worker thread: it starts the worker, sends calls, settles each with its one
 * reply, and turns a crash or an exit into an error for every call pending and to come. The worker
 * keeps the process alive only while calls are in flight. Both lanes run on it: the store worker
 * (workers/workerHost.ts, requests of serve.ts's shape, `call`) and the search worker (search/lane.ts,
 * requests of its own shape, `request`, with a cancel sent by `notify`). A failed or terminated worker
 * is never restarted: its owner decides what comes next (the store: open a new session; the search
 * lane: a new host for the next search). Subclasses say how a failure reads and what goes with a stop.
 */
import { Worker } from 'node:worker_threads';
import { RecallError, describeError } from '../errors';
import { toError } from './errors';
import { isReply, type WorkerReply } from './reply';
import type { OpRequest } from './serve';

/** The operations a worker serves: each one's arguments, in order, and its result. */
export type OpShapes = Record<string, { args: unknown[]; result: unknown }>;

export interface CallOptions {
  /** Buffers of the arguments to transfer rather than copy. */
  transfer?: ArrayBuffer[];
  /** Builds the arguments asynchronously (e.g. content encoded in parts) before the call is sent. */
  encode?: () => Promise<{ args: unknown[]; transfer?: ArrayBuffer[] }>;
}

/** A request without its id: an OpRequest's fields, or those of a lane's own shape. */
type RequestBody = { op: string } & Record<string, unknown>;

interface Call {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

export abstract class WorkerHost<Ops extends OpShapes> {
  /** Set once the worker failed: every later call rejects with a copy of it. */
  failure: RecallError | undefined;
  protected state: 'running' | 'failed' | 'stopped' = 'running';
  private readonly worker: Worker;
  private refs = 0;
  private nextId = 1;
  private readonly pending = new Map<number, Call>();
  /** Whether the worker has answered anything yet (for the failure message). */
  private started = false;

  /** Starts the worker; throws if Node refuses to (e.g. bad `execArgv`). */
  protected constructor(
    /** Names the worker in messages ("store worker"). */
    private readonly name: string,
    workerPath: string,
    execArgv: string[],
    /** The worker's `workerData`: a script that serves several roles reads its role there. */
    workerData?: unknown,
  ) {
    this.worker = new Worker(workerPath, { execArgv, workerData });
    this.worker.on('message', (message: unknown) => {
      if (isReply(message)) this.onReply(message);
    });
    this.worker.on('error', (error) => this.fail(this.crashed(error, this.started)));
    this.worker.on('exit', (code) => this.fail(`it exited with code ${code}`));
    this.worker.unref();
  }

  /** The error of a failed worker (`what`: how it failed). */
  protected abstract failureError(what: string): RecallError;

  /** The error of a call after the worker was stopped (its last reference released, or `terminate`). */
  protected abstract stoppedError(): RecallError;

  /** Runs once, when the worker is stopped, terminated or has failed. */
  protected abstract stopped(): void;

  /**
   * How an uncaught error in the worker reads (`answered`: whether any reply came before). The store
   * worker answers its first call (`open`) at once, so an error before any reply means it could not
   * start; a worker whose first reply may take seconds overrides this.
   */
  protected crashed(error: unknown, answered: boolean): string {
    return `it ${answered ? 'crashed' : 'could not start'}: ${describeError(error)}`;
  }

  get threadId(): number {
    return this.worker.threadId;
  }

  retainRef(): void {
    this.refs++;
  }

  /** One reference fewer; the worker stops once none is left and no call is pending. */
  release(): void {
    this.refs = Math.max(0, this.refs - 1);
    this.maybeStop();
  }

  /** Sends `op` with `args` (for the object named by `handle`) and resolves with its result. */
  call<K extends keyof Ops & string>(
    op: K,
    handle: number | undefined,
    args: Ops[K]['args'],
    options: CallOptions = {},
  ): Promise<Ops[K]['result']> {
    return new Promise<Ops[K]['result']>((resolve, reject) => {
      const send = (callArgs: unknown[], transfer?: ArrayBuffer[]): void => {
        const body: Omit<OpRequest, 'id'> = { op, args: callArgs };
        if (handle !== undefined) body.handle = handle;
        this.post(body, transfer, { resolve, reject });
      };
      if (!options.encode) {
        send(args, options.transfer);
        return;
      }
      options.encode().then((encoded) => send(encoded.args, encoded.transfer), reject);
    });
  }

  /**
   * Sends `message` with a fresh `id` and resolves with the result of the one reply carrying it, like
   * `call`, for a worker whose requests are not serve.ts's OpRequest (the search worker's, whose
   * cancel is a message of its own). `sent` is told the id as the message goes, so that a later
   * message can name the call (see `notify`); it is not told if the message could not go.
   */
  protected request(message: RequestBody, transfer?: ArrayBuffer[], sent?: (id: number) => void): Promise<unknown> {
    return new Promise((resolve, reject) => this.post(message, transfer, { resolve, reject }, sent));
  }

  /**
   * Posts a message that gets no reply (the search worker's cancel of a call). Nothing is sent to a
   * worker that is no longer running: its calls have been settled already.
   */
  protected notify(message: RequestBody): void {
    if (this.state === 'running') this.worker.postMessage(message);
  }

  /**
   * Ends the worker now, calls in flight or not: how a lane cuts off work that does not stop (one
   * search step can run for ever). Its pending and later calls reject with `stoppedError()`.
   */
  terminate(): void {
    this.stop('stopped');
  }

  private post(body: RequestBody, transfer: ArrayBuffer[] | undefined, call: Call, sent?: (id: number) => void): void {
    if (this.state !== 'running') {
      call.reject(this.unavailableError());
      return;
    }
    const id = this.nextId++;
    const message = { ...body, id };
    try {
      try {
        this.worker.postMessage(message, transfer);
      } catch (error) {
        if (!transfer) throw error;
        this.worker.postMessage(message); // e.g. an untransferable buffer: copy it instead
      }
    } catch (error) {
      call.reject(
        new RecallError(
          'INVALID_ARGUMENT',
          `The ${body.op} arguments cannot be sent to the ${this.name} (${describeError(error)}); pass strings, numbers, Uint8Arrays and JSON-like objects.`,
        ),
      );
      return;
    }
    this.pending.set(id, call);
    this.updateRef();
    sent?.(id);
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
    this.failure = this.failureError(what);
    this.stop('failed');
  }

  /** Ends the worker: every pending call rejects (with the failure, if any), then `stopped()` runs. */
  private stop(state: 'failed' | 'stopped'): void {
    if (this.state !== 'running') return;
    this.state = state;
    const calls = [...this.pending.values()];
    this.pending.clear();
    for (const call of calls) call.reject(this.unavailableError());
    void this.worker.terminate();
    this.stopped();
  }

  /** A fresh error per rejection (stacks and identity are per call). */
  private unavailableError(): RecallError {
    const failure = this.failure ?? this.stoppedError();
    return new RecallError(failure.code, failure.message, failure.details);
  }

  private maybeStop(): void {
    if (this.refs > 0 || this.pending.size > 0) return;
    this.stop('stopped');
  }

  /** The worker keeps the process alive only while calls are in flight, like an in-process object. */
  private updateRef(): void {
    if (this.state !== 'running') return;
    if (this.pending.size > 0) this.worker.ref();
    else this.worker.unref();
  }
}
