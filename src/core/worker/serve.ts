/**
 * The worker side of an operation table: answers each request on `port` with exactly one reply, and
 * keeps the two queues of a store lane. An operation that starts `now` (a short read an interactive
 * reader waits on) starts the moment it arrives; every other one waits in one queue, in order, and
 * starts one per turn of the event loop, so reads that arrive meanwhile go first. Runs are concurrent
 * once started, as they would be on an object shared by several callers.
 */
import type { MessagePort } from 'node:worker_threads';
import { RecallError } from '../errors';
import { serializeError } from './errors';
import type { WorkerReply } from './reply';

type Port = Pick<MessagePort, 'on' | 'postMessage'>;

/** What a worker's run of an operation gives back: its result, and the buffers to transfer with it. */
export interface Outcome<Result = unknown> {
  result: Result;
  transfer?: ArrayBuffer[];
}

/** One request: the operation's name, the arguments of its method in order, and the object it is for. */
export interface OpRequest {
  id: number;
  op: string;
  /** Which of the worker's objects (a store) the operation is for; unset for `open` and the like. */
  handle?: number;
  args: unknown[];
}

/** How the worker serves one operation. */
export interface Served {
  /** Starts the moment it arrives, rather than in turn. */
  now: boolean;
  run(request: OpRequest): Promise<Outcome>;
}

/**
 * Serves the requests arriving on `port` (a worker's `parentPort`). `served` looks an operation up
 * (undefined: this worker has no such operation, answered INVALID_ARGUMENT); `name` names the
 * worker in that answer.
 */
export function serveOps(port: Port, name: string, served: (op: string) => Served | undefined): void {
  const reply = (message: WorkerReply, transfer?: ArrayBuffer[]): void => {
    try {
      port.postMessage(message, transfer);
    } catch (error) {
      // A result or details that cannot be cloned: answer with an error rather than never.
      port.postMessage({ id: message.id, ok: false, error: serializeError(error) } satisfies WorkerReply);
    }
  };

  /** The queue of long work: one start per turn of the event loop. */
  const queue: (() => void)[] = [];
  const startNext = (): void => {
    (queue.shift() as () => void)();
    if (queue.length > 0) setImmediate(startNext);
  };
  const later = (start: () => void): void => {
    queue.push(start);
    if (queue.length === 1) setImmediate(startNext);
  };

  port.on('message', (request: OpRequest) => {
    if (typeof request?.id !== 'number') return;
    const op = typeof request.op === 'string' ? served(request.op) : undefined;
    if (!op) {
      const error = new RecallError('INVALID_ARGUMENT', `The ${name} has no operation "${String(request.op)}".`);
      reply({ id: request.id, ok: false, error: serializeError(error) });
      return;
    }
    const start = (): void => {
      op.run({ ...request, args: Array.isArray(request.args) ? request.args : [] }).then(
        ({ result, transfer }) => reply({ id: request.id, ok: true, result }, transfer),
        (error: unknown) => reply({ id: request.id, ok: false, error: serializeError(error) }),
      );
    };
    if (op.now) start();
    else later(start);
  });
}
