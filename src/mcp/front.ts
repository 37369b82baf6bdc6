/**
 * The stdio entry's main thread: it owns stdin, stdout and the signals, answers the handshake at once
 * (handshake.ts) and runs the server in a worker thread (stdioWorker.ts), which loads meanwhile, on
 * the other core when there is one. Every stdin chunk goes to the server as it came; its answers to
 * the requests answered here are dropped, everything else it writes goes to stdout unchanged.
 */
import { Worker } from 'node:worker_threads';
import type { FromFront, ToFront } from './frontProtocol';
import { EarlyAnswers, type HandshakeData } from './handshake';

/** A line longer than this is not a handshake request; it is left to the server (which has its own limit). */
const MAX_HANDSHAKE_LINE = 1024 * 1024;

export function runFront(data: HandshakeData, serverScript: string, argv: readonly string[]): void {
  const early = new EarlyAnswers(data);
  /** The ids (JSON) of requests answered here whose answer from the server is still to come. */
  const answered = new Set<string>();
  let serverReady = false;
  let partial = '';
  /** The signal that asked the server to stop, if one did. */
  let stopSignal: NodeJS.Signals | undefined;

  // No execArgv: a preload given to this process (a recorder of its stdio in tests, a user's
  // --require) is for the process's streams, which this thread owns.
  const worker = new Worker(serverScript, { argv: [...argv], execArgv: [], workerData: { role: 'stdio', argv: [...argv] } });
  const send = (message: FromFront) => worker.postMessage(message);

  worker.on('message', (message: ToFront) => {
    if (message.kind === 'ready') serverReady = true;
    // The session is closed and its lock released: nothing is left to wait for.
    else if (message.kind === 'exit') exitNow(message.code, stopSignal);
    else if (!(answered.size > 0 && answeredHere(message.data))) process.stdout.write(message.data);
  });
  // A server that ends without saying so (a bad command line, a session that cannot open) ends the program with its code.
  worker.on('exit', (code) => process.exit(code));
  worker.on('error', (error) => {
    process.stderr.write(`tool-output-recall-mcp: ${error.stack ?? String(error)}\n`);
    process.exit(1);
  });

  function answeredHere(line: string): boolean {
    let message: { id?: unknown; method?: unknown };
    try {
      message = JSON.parse(line) as typeof message;
    } catch {
      return false;
    }
    if (message.method !== undefined || message.id === undefined) return false;
    return answered.delete(JSON.stringify(message.id));
  }

  function readHandshake(chunk: Buffer): void {
    partial += chunk.toString('utf8');
    for (let end = partial.indexOf('\n'); end >= 0; end = partial.indexOf('\n')) {
      const line = partial.slice(0, end).replace(/\r$/, '');
      partial = partial.slice(end + 1);
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        message = undefined;
      }
      const reply = early.answer(message);
      if (reply) {
        answered.add(JSON.stringify((message as { id: unknown }).id));
        process.stdout.write(`${JSON.stringify(reply)}\n`);
      }
    }
    if (partial.length > MAX_HANDSHAKE_LINE) partial = '';
  }

  process.stdin.on('data', (chunk: Buffer) => {
    // Answered here only until the server answers itself; the chunk goes to the server either way.
    if (!serverReady) readHandshake(chunk);
    send({ kind: 'in', data: chunk });
  });
  process.stdin.once('end', () => send({ kind: 'end' }));
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      stopSignal ??= signal;
      send({ kind: 'stop', why: signal });
    });
  }
}

/**
 * Ends the process. After a clean stop that a signal asked for, by that same signal with its default
 * action: the conventional end of a program that handles SIGINT or SIGTERM (its parent sees it killed
 * by that signal), and the one that skips Node's teardown. process.exit waits for every worker
 * thread's isolate to be disposed, V8's background compile jobs for sql.js's WebAssembly included:
 * 150-380 ms for a server stopped just after it started (measured at load 3-4), where Claude Code
 * follows its SIGINT with SIGTERM when the server has not exited within 100 ms.
 */
function exitNow(code: number, signal: NodeJS.Signals | undefined): void {
  if (code === 0 && signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  }
  process.exit(code);
}
