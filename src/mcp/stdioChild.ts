/**
 * The stdio server in the child process the entry (front.ts) forks: the entry owns the client's
 * stdin, stdout and signals and passes them over the IPC channel (frontProtocol.ts); the SDK's own
 * stdio transport reads and writes the streams below, so it parses and frames exactly as over a pipe.
 * The entry exits the moment it is told to stop, without waiting for this process: the server stops
 * its commands and ends here, and it does the same when the entry is gone without a word (killed).
 */
import { writeSync } from 'node:fs';
import { PassThrough, Writable } from 'node:stream';
import { removeLeftoversNow, type FromFront, type ToFront } from './frontProtocol';
import { stderrLog } from './log';
import { fail, serve } from './serve';

/** `script`: the entry's own script (the client started it; this process's argv[1] is the server bundle). */
export function runStdioChild(argv: readonly string[], script: string | undefined): void {
  if (!process.send) throw new Error('runStdioChild runs in the process front.ts forks');
  // Once the entry is gone nothing reads what this process says: a message or a log line is dropped.
  const post = (message: ToFront) => {
    if (process.connected) process.send?.(message, undefined, undefined, ignore);
  };
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
  process.on('message', (message: FromFront) => {
    if (message.kind === 'in') input.write(message.data);
    else if (message.kind === 'end') stopSoon('stdin closed');
    else stopSoon(message.why);
  });
  // The entry ended (it said so first, or it was killed); a signal to the whole process group (^C in a terminal) reaches this process too.
  process.once('disconnect', () => stopSoon('the entry ended'));
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stopSoon(signal));
  function stopSoon(why: string): void {
    if (stop) stop(why);
    else stopWhy ??= why;
  }
  // Synchronous writes to fd 2, a pipe the entry copies to its own stderr; once the entry is gone, they fail (EPIPE).
  const log = stderrLog({ write: writeQuietly });
  serve(argv, log, {
    script,
    pid: process.ppid,
    input,
    output,
    onStop(callback) {
      stop = callback;
      if (stopWhy !== undefined) callback(stopWhy);
    },
    leave: (leftovers) => post({ kind: 'leftovers', leftovers }),
    /**
     * The lock goes in the same synchronous run that ends the process, by SIGKILL: every thread stops
     * there, the store's worker among them. process.exit would let that worker write the session for
     * the 150-380 ms of the threads' teardown while another server could already open it. Nobody reads
     * this end's status: the entry has exited already, or (the server was signalled alone) ends with it.
     */
    exit(_code, leftovers) {
      removeLeftoversNow(leftovers);
      process.kill(process.pid, 'SIGKILL');
    },
    ready: () => post({ kind: 'ready' }),
  }).catch((error: unknown) => fail(error, (code) => process.exit(code), writeQuietly));
}

function writeQuietly(text: string): void {
  try {
    writeSync(2, text);
  } catch {
    // the entry is gone (EPIPE): nobody reads this process's log any more
  }
}

const ignore = (): void => undefined;
