/**
 * The caller's side of a worker thread that serves an operation table (serve.ts): it starts the
 * worker, sends calls, settles each with its one reply, and turns a crash or an exit into an error for
 * every call pending and to come. A failed worker is never restarted: its owner decides what comes
 * next (the store: open a new session). Subclasses say how a failure reads and what goes with a stop.
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

  protected constructor(
    /** Names the worker in messages ("store worker"). */
    private readonly name: string,
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
  }

  /** The error of a failed worker (`what`: how it failed). */
  protected abstract failureError(what: string): RecallError;

  /** The error of a call after the worker was stopped (its last reference released). */
  protected abstract stoppedError(): RecallError;

  /** Runs once, when the worker is stopped or has failed. */
  protected abstract stopped(): void;

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
      const send = (callArgs: unknown[], transfer?: ArrayBuffer[]): void =>
        this.post({ id: 0, op, handle, args: callArgs }, transfer, { resolve, reject });
      if (!options.encode) {
        send(args, options.transfer);
        return;
      }
      options.encode().then((encoded) => send(encoded.args, encoded.transfer), reject);
    });
  }

  private post(request: OpRequest, transfer: ArrayBuffer[] | undefined, call: Call): void {
    if (this.state !== 'running') {
      call.reject(this.unavailableError());
      return;
    }
    const id = this.nextId++;
    const message: OpRequest = { ...request, id };
    if (message.handle === undefined) delete message.handle;
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
          `The ${request.op} arguments cannot be sent to the ${this.name} (${describeError(error)}); pass strings, numbers, Uint8Arrays and JSON-like objects.`,
        ),
      );
      return;
    }
    this.pending.set(id, call);
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
    this.failure = this.failureError(what);
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
    if (this.refs > 0 || this.pending.size > 0 || this.state !== 'running') return;
    this.state = 'stopped';
    void this.worker.terminate();
    this.stopped();
  }

  /** The worker keeps the process alive only while calls are in flight, like an in-process object. */
  private updateRef(): void {
    if (this.state !== 'running') return;
    if (this.pending.size > 0) this.worker.ref();
    else this.worker.unref();
  }
}
