/**
 * The stdio server in the worker thread main.ts starts: the entry owns the process's stdin, stdout
 * and signals and passes them over the worker's port (frontProtocol.ts); the SDK's own stdio
 * transport reads and writes the streams below, so it parses and frames exactly as over a pipe.
 */
import { readlinkSync, writeSync } from 'node:fs';
import { PassThrough, Writable } from 'node:stream';
import { parentPort } from 'node:worker_threads';
import type { FromFront, ToFront } from './frontProtocol';
import { stderrLog } from './log';
import { fail, serve } from './serve';

/** `script`: the entry's own script (the process's argv[1]; a worker's names the worker's file). */
export function runStdioWorker(argv: readonly string[], script: string | undefined): void {
  const port = parentPort;
  if (!port) throw new Error('runStdioWorker runs in the worker main.ts starts');
  const post = (message: ToFront) => port.postMessage(message);
  // The commands this server runs are this thread's children: at a signal the entry reads that one
  // task's list (/proc/self/task/<tid>/children) to know whether any is left to stop.
  const tid = threadId();
  if (tid !== undefined) post({ kind: 'thread', tid });
  const input = new PassThrough();
  // One message per write (the transport writes each message whole), so the entry can drop the
  // server's answers to the requests it answered itself.
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      post({ kind: 'out', data: chunk.toString('utf8') });
      done();
    },
  });
  let stop: ((why: string) => void) | undefined;
  let stopWhy: string | undefined;
  port.on('message', (message: FromFront) => {
    if (message.kind === 'in') input.write(message.data);
    else if (message.kind === 'end') stopSoon('stdin closed');
    else stopSoon(message.why);
  });
  function stopSoon(why: string): void {
    if (stop) stop(why);
    else stopWhy ??= why;
  }
  // Synchronous writes to fd 2: lines written just before the process ends are not lost on the way through the entry.
  const log = stderrLog({ write: (text: string) => writeSync(2, text) });
  serve(argv, log, {
    script,
    input,
    output,
    onStop(callback) {
      stop = callback;
      if (stopWhy !== undefined) callback(stopWhy);
    },
    // The entry removes what the process leaves behind, and releases the lock in the same synchronous
    // run that ends the process: released any earlier, another process could open the session while
    // this one's store worker still writes it.
    leave: (leftovers) => post({ kind: 'leftovers', leftovers }),
    exit: (code, leftovers) => post({ kind: 'exit', code, leftovers }),
    ready: () => post({ kind: 'ready' }),
  }).catch((error: unknown) =>
    fail(
      error,
      (code) => process.exit(code),
      (text) => writeSync(2, text),
    ),
  );
}

/** This thread's id where Linux says it (/proc/thread-self → <pid>/task/<tid>); undefined elsewhere. */
function threadId(): number | undefined {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isSafeInteger(tid) && tid > 0 ? tid : undefined;
  } catch {
    return undefined;
  }
}
