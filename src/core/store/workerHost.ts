/**
 * The worker thread behind `WorkerStore` (see `workerClient.ts` for the failure handling): one
 * `WorkerHost` per worker script, shared and reference-counted by its stores, which sends their
 * calls, keeps track of the ones in flight, and replaces the worker after a runaway search.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { RecallError, describeError } from '../errors';
import type { Encoded } from './workerContent';
import type { OpenedStore, ResultOf, SerializedError, WorkerOp, WorkerOpenOptions, WorkerReply } from './workerProtocol';
import { isReply } from './workerProtocol';

/** The worker's end of a store: its current handle, and how to reopen it in a fresh worker. */
export interface StoreLink {
  handle: number | undefined;
  readonly reopen: WorkerOpenOptions;
  /** Set when the store could not be reopened after a restart. */
  failure?: RecallError;
}

export interface CallOptions {
  transfer?: ArrayBuffer[];
  /** ms; 0 or Infinity: none. */
  timeoutMs?: number;
  /**
   * Builds (more of) the arguments asynchronously before the call is sent, and again if it must be
   * replayed after its transferred buffers are gone.
   */
  encode?: () => Promise<Encoded>;
}

interface Call {
  id: number;
  op: WorkerOp;
  link: StoreLink | undefined;
  args: Record<string, unknown>;
  transfer?: ArrayBuffer[];
  /** The transferred content is gone from this thread: the call cannot be sent again without `encode`. */
  consumed: boolean;
  encode?: () => Promise<Encoded>;
  replayed: boolean;
  timeoutMs: number;
  timer?: NodeJS.Timeout;
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
    if (!host || host.state === 'failed' || host.state === 'stopped') {
      host = new WorkerHost(key, workerPath, argv);
      WorkerHost.shared.set(key, host);
    }
    host.retainRef();
    return host;
  }

  failure: RecallError | undefined;
  private worker: Worker;
  private state: 'running' | 'restarting' | 'failed' | 'stopped' = 'running';
  private refs = 0;
  private nextId = 1;
  private readonly pending = new Map<number, Call>();
  /** Calls made while restarting, sent once the stores are reopened. */
  private queued: Call[] = [];
  private readonly links = new Set<StoreLink>();
  /** Whether the current worker has answered anything yet (for the failure message). */
  private started = false;

  private constructor(
    private readonly key: string,
    private readonly workerPath: string,
    private readonly execArgv: string[],
  ) {
    this.worker = this.spawn();
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
      const timeoutMs = options.timeoutMs ?? 0;
      if (typeof timeoutMs !== 'number' || Number.isNaN(timeoutMs) || timeoutMs < 0) {
        reject(
          new RecallError(
            'INVALID_ARGUMENT',
            `timeoutMs must be a non-negative number of milliseconds (0 for no limit); got ${JSON.stringify(timeoutMs)}.`,
          ),
        );
        return;
      }
      const call: Call = {
        id: 0,
        op,
        link,
        args: args as Record<string, unknown>,
        transfer: options.transfer,
        consumed: false,
        replayed: false,
        timeoutMs,
        encode: options.encode,
        resolve: resolve,
        reject,
      };
      if (!call.encode) {
        this.send(call);
        return;
      }
      this.reencode(call).then(() => this.send(call), reject);
    });
  }

  private send(call: Call): void {
    if (this.state === 'restarting') this.queued.push(call);
    else this.post(call);
  }

  private async reencode(call: Call): Promise<void> {
    if (!call.encode) return;
    const encoded = await call.encode();
    call.args = { ...call.args, ...encoded.args };
    call.transfer = encoded.transfer;
    call.consumed = false;
  }

  private spawn(): Worker {
    const worker = new Worker(this.workerPath, { execArgv: this.execArgv });
    worker.on('message', (message: unknown) => {
      if (worker === this.worker && isReply(message)) this.onReply(message);
    });
    worker.on('error', (error) => {
      if (worker === this.worker) this.fail(`it ${this.started ? 'crashed' : 'could not start'}: ${describeError(error)}`);
    });
    worker.on('exit', (code) => {
      if (worker === this.worker) this.fail(`it exited with code ${code}`);
    });
    this.started = false;
    worker.unref();
    return worker;
  }

  private post(call: Call): void {
    if (this.state === 'failed' || this.state === 'stopped') {
      call.reject(this.unavailableError());
      return;
    }
    if (call.link?.failure) {
      call.reject(call.link.failure);
      return;
    }
    if (call.consumed) {
      call.reject(
        new RecallError(
          'STORE_UNAVAILABLE',
          'The store worker was restarted (a search ran past its time limit) while this retain was in flight, and its content had been transferred, so it could not be sent again. The output was not retained; only the preview is available.',
        ),
      );
      return;
    }
    call.id = this.nextId++;
    const message = { ...call.args, id: call.id, op: call.op, ...(call.link ? { handle: call.link.handle } : {}) };
    try {
      try {
        this.worker.postMessage(message, call.transfer);
      } catch (error) {
        if (!call.transfer) throw error;
        call.transfer = undefined; // e.g. an untransferable buffer: copy it instead
        this.worker.postMessage(message);
      }
    } catch (error) {
      call.reject(
        new RecallError(
          'INVALID_ARGUMENT',
          `The ${call.op} arguments cannot be sent to the store worker (${describeError(error)}); pass strings, numbers, Uint8Arrays and JSON-like objects.`,
        ),
      );
      return;
    }
    if (call.transfer) call.consumed = true;
    this.pending.set(call.id, call);
    if (call.timeoutMs > 0 && Number.isFinite(call.timeoutMs)) {
      call.timer = setTimeout(() => this.onTimeout(call), call.timeoutMs);
      call.timer.unref();
    }
    this.updateRef();
  }

  private onReply(reply: WorkerReply): void {
    this.started = true;
    const call = this.pending.get(reply.id);
    if (!call) return;
    this.pending.delete(reply.id);
    clearTimeout(call.timer);
    if (reply.ok) call.resolve(reply.result);
    else if (call.replayed && call.op === 'remove' && reply.error.code === 'NOT_FOUND')
      call.resolve(undefined); // the interrupted attempt removed it
    else call.reject(toError(reply.error));
    this.updateRef();
    this.maybeStop();
  }

  private onTimeout(call: Call): void {
    if (this.state !== 'running' || this.pending.get(call.id) !== call) return;
    this.pending.delete(call.id);
    const seconds = Number((call.timeoutMs / 1000).toFixed(3));
    call.reject(
      new RecallError(
        'TIMEOUT',
        `The search took longer than ${seconds} s and was stopped: this pattern makes the regular expression backtrack too much on this output (nested quantifiers such as "(a+)+" do). Use a simpler pattern or regex:false for a literal search.`,
        { timeoutMs: call.timeoutMs },
      ),
    );
    this.restart().catch((error: unknown) => this.fail(`it could not be restarted: ${describeError(error)}`));
  }

  /** Replaces a stuck worker: reopens every live store in a fresh one, then replays what was in flight. */
  private async restart(): Promise<void> {
    this.state = 'restarting';
    const interrupted = [...this.pending.values()].sort((a, b) => a.id - b.id);
    this.pending.clear();
    for (const call of interrupted) clearTimeout(call.timer);
    const stuck = this.worker;
    try {
      this.worker = this.spawn();
    } catch (error) {
      this.worker = stuck;
      this.state = 'running';
      this.fail(`it could not be restarted: ${describeError(error)}`);
      return;
    }
    void stuck.terminate();
    this.updateRef();
    const links = [...this.links];
    for (const link of links) link.handle = undefined;
    const reopened = links.map(
      (link) =>
        new Promise<void>((resolve) => {
          const call: Call = {
            id: 0,
            op: 'open',
            link: undefined,
            args: { options: link.reopen },
            consumed: false,
            replayed: false,
            timeoutMs: 0,
            resolve: (opened) => {
              link.handle = (opened as OpenedStore).handle;
              resolve();
            },
            reject: (error) => {
              link.failure = new RecallError(
                'STORE_UNAVAILABLE',
                `Session ${link.reopen.sessionId} could not be reopened after the store worker was restarted (${error.message}); outputs cannot be retained or read in it until a new session is opened.`,
              );
              resolve();
            },
          };
          this.post(call);
        }),
    );
    await Promise.all(reopened);
    for (const call of interrupted) {
      if (call.consumed && call.encode) await this.reencode(call).catch(() => undefined);
    }
    if (this.state !== 'restarting') {
      for (const call of interrupted) call.reject(this.unavailableError());
      return; // failed meanwhile: everything else was rejected
    }
    this.state = 'running';
    const queued = this.queued;
    this.queued = [];
    for (const call of interrupted) {
      call.replayed = true;
      this.post(call);
    }
    for (const call of queued) this.post(call);
    this.updateRef();
    this.maybeStop();
  }

  private fail(what: string): void {
    if (this.state === 'failed' || this.state === 'stopped') return;
    this.state = 'failed';
    const sessions = [...this.links].map((link) => link.reopen.sessionId);
    this.failure = new RecallError(
      'STORE_UNAVAILABLE',
      `The session store worker stopped unexpectedly (${what}). Outputs cannot be retained or read${sessions.length > 0 ? ` in session ${sessions.join(', ')}` : ''} until a new session is opened.`,
      { reason: what },
    );
    if (WorkerHost.shared.get(this.key) === this) WorkerHost.shared.delete(this.key);
    const calls = [...this.pending.values(), ...this.queued];
    this.pending.clear();
    this.queued = [];
    for (const call of calls) {
      clearTimeout(call.timer);
      call.reject(this.unavailableError());
    }
    void this.worker.terminate();
  }

  /** A fresh error per rejection (stacks and identity are per call). */
  private unavailableError(): RecallError {
    const failure = this.failure ?? new RecallError('STORE_UNAVAILABLE', 'The session store worker was stopped. Open a new session.');
    return new RecallError(failure.code, failure.message, failure.details);
  }

  private maybeStop(): void {
    if (this.refs > 0 || this.pending.size > 0 || this.queued.length > 0 || this.state === 'restarting') return;
    if (WorkerHost.shared.get(this.key) === this) WorkerHost.shared.delete(this.key);
    if (this.state === 'running') {
      this.state = 'stopped';
      void this.worker.terminate();
    }
  }

  /** The worker keeps the process alive only while calls are in flight, like an in-process store. */
  private updateRef(): void {
    if (this.state === 'failed' || this.state === 'stopped') return;
    if (this.pending.size > 0 || this.state === 'restarting') this.worker.ref();
    else this.worker.unref();
  }
}

function toError(serialized: SerializedError): Error {
  if (serialized.code) return new RecallError(serialized.code, serialized.message, serialized.details ?? {});
  const error = new Error(serialized.message);
  error.name = serialized.name;
  if (serialized.stack) error.stack = `${error.stack}\n    --- in the store worker ---\n${serialized.stack}`;
  return error;
}

let defaultPath: string | undefined;

/** `storeWorker.js` beside the bundle (dist/), else `worker.ts` beside this file (sources, tsx). */
export function defaultWorkerPath(): string {
  if (defaultPath) return defaultPath;
  const bundled = path.join(__dirname, 'storeWorker.js');
  const source = path.join(__dirname, 'worker.ts');
  defaultPath = !existsSync(bundled) && existsSync(source) ? source : bundled;
  return defaultPath;
}

/**
 * A `.ts` worker runs under tsx's CommonJS hook (the path is resolved here so it does not depend on
 * the worker's cwd; createRequire keeps bundlers from pulling tsx in). Anything else gets no options,
 * rather than inheriting the parent's (e.g. the extension host's `--inspect`).
 */
function defaultExecArgv(workerPath: string): string[] {
  if (!/\.[cm]?ts$/.test(workerPath)) return [];
  return ['--require', createRequire(__filename).resolve('tsx/cjs')];
}
