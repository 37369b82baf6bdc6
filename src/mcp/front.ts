/**
 * The stdio entry's main thread: it owns stdin, stdout and the signals, answers the handshake at once
 * (handshake.ts) and runs the server in a worker thread (stdioWorker.ts), which loads meanwhile, on
 * the other core when there is one. Every stdin chunk goes to the server as it came; its answers to
 * the requests answered here are dropped, everything else it writes goes to stdout unchanged.
 */
import { inCopilotHarness } from '../core/agents/harness';
import { readFileSync, readdirSync, writeSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { removeDoorNow, removeLeftoversNow, type FromFront, type Leftovers, type ToFront } from './frontProtocol';
import { EarlyAnswers, type HandshakeData } from './handshake';
import { stderrLog } from './log';

/** A line longer than this is not a handshake request; it is left to the server (which has its own limit). */
const MAX_HANDSHAKE_LINE = 1024 * 1024;

export function runFront(data: HandshakeData, serverScript: string, argv: readonly string[]): void {
  // In VS Code's Copilot harness the server decides whether it offers tools at all (harness.ts): it answers everything.
  const early = new EarlyAnswers(data, !inCopilotHarness());
  /** The ids (JSON) of requests answered here whose answer from the server is still to come. */
  const answered = new Set<string>();
  let serverReady = false;
  let partial = '';
  /** The signal that asked the server to stop, if one did. */
  let stopSignal: NodeJS.Signals | undefined;
  /** Told to stop (a signal, stdin's end): nothing more goes to stdout. */
  let stopping = false;
  /** The code the program ends with once the server's thread has ended, when the end is decided here. */
  let endCode: number | undefined;
  /** What the server said the process must remove when it ends (frontProtocol.ts). */
  let leftovers: Leftovers = {};
  /** The server's thread (Linux), whose children are the commands it runs. */
  let serverTid: number | undefined;
  // The line the server would write at a stop: a client's log shows why the server ended.
  const log = stderrLog({ write: (text: string) => writeSync(2, text) });

  // No execArgv: a preload given to this process (a recorder of its stdio in tests, a user's
  // --require) is for the process's streams, which this thread owns.
  const worker = new Worker(serverScript, {
    argv: [...argv],
    execArgv: [],
    workerData: { role: 'stdio', argv: [...argv], script: process.argv[1] },
  });
  const send = (message: FromFront) => worker.postMessage(message);

  worker.on('message', (message: ToFront) => {
    if (message.kind === 'ready') serverReady = true;
    else if (message.kind === 'thread') serverTid = message.tid;
    else if (message.kind === 'leftovers') settled(message.leftovers);
    // The server has stopped its running commands: nothing is left to wait for.
    else if (message.kind === 'exit') exitNow(message.code, message.leftovers);
    // Stopping, the server answers nothing more: a client that closed stdin or sent a signal reads no further.
    else if (!stopping && !(answered.size > 0 && answeredHere(message.data))) process.stdout.write(message.data);
  });
  // A server that ends without saying so (a bad command line, a session that cannot open, a crash)
  // ends the program with its code. Its thread has ended, and the store's within it: the lock can go.
  worker.on('exit', (code) => {
    removeLeftoversNow(leftovers);
    process.exit(endCode ?? code);
  });
  worker.on('error', (error) => {
    process.stderr.write(`tool-output-recall-mcp: ${error.stack ?? String(error)}\n`);
    endCode = 1;
  });

  /**
   * Ends the process, first removing what it leaves behind (the lock last). After a clean stop that a
   * signal asked for, by that same signal with its default action: the conventional end of a program
   * that handles SIGINT or SIGTERM (its parent sees it killed by that signal), and the one that skips
   * Node's teardown; the lock goes in the same synchronous run, so the store's worker, which writes the
   * session, ends with the process. process.exit would wait for every worker thread's isolate to be
   * disposed, V8's background compile jobs for sql.js's WebAssembly included (150-380 ms at load 3-4),
   * where Claude Code sends SIGTERM 100 ms after its SIGINT and SIGKILL soon after. Without a signal
   * (stdin closed) the program ends with `code`: the server's thread ends first, then the lock goes.
   */
  const exitNow = (code: number, more: Leftovers = {}) => {
    leftovers = { ...leftovers, ...more };
    removeDoorNow(leftovers);
    if (code === 0 && stopSignal) {
      removeLeftoversNow(leftovers);
      process.removeAllListeners(stopSignal);
      process.kill(process.pid, stopSignal);
    }
    endCode = code;
    void worker.terminate();
  };

  /**
   * What the process must remove changed. Once the door has settled, a stop can end the process from
   * here: what that path runs is compiled now (a call that changes nothing), not at the signal, where
   * each millisecond of work took ten or more at a load of four busy processes per core.
   */
  const settled = (now: Leftovers) => {
    leftovers = now;
    if (now.door === undefined) return;
    runsAnything(serverTid);
    removeLeftoversNow({});
  };

  /**
   * Told to stop: the door's files go first, here and now (the server's thread may be busy, and a hook
   * must not find a server that is ending). When nothing the server started is running and its door is
   * settled, nothing needs the server's thread: the process ends from here. Otherwise the server stops
   * its commands (their process trees) first and then says so (`exit`).
   */
  const stop = (message: FromFront) => {
    stopping = true;
    removeDoorNow(leftovers);
    if (leftovers.door === undefined || runsAnything(serverTid)) return send(message);
    log.info(`stopping (${message.kind === 'stop' ? message.why : 'stdin closed'})`);
    exitNow(0);
  };

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
  process.stdin.once('end', () => stop({ kind: 'end' }));
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      stopSignal ??= signal;
      stop({ kind: 'stop', why: signal });
    });
  }
}

/**
 * Whether a process this one started (a running command) is still there, from Linux's
 * /proc/self/task/<tid>/children (each thread's children: commands start in the server's thread,
 * `serverTid`, the one list read when it is known: reading all thirteen threads' took 0.5-1 ms);
 * true where that cannot be told (another system, no such file).
 */
function runsAnything(serverTid: number | undefined): boolean {
  const children = (task: string | number) => readFileSync(`/proc/self/task/${task}/children`, 'latin1').trim() !== '';
  try {
    return serverTid === undefined ? readdirSync('/proc/self/task').some(children) : children(serverTid);
  } catch {
    return true;
  }
}
