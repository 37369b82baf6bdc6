/**
 * The stdio entry, the process the client starts and waits for: it owns stdin, stdout and the
 * signals, answers the handshake at once (handshake.ts) and forks the server as a child process
 * (stdioChild.ts), which loads meanwhile, on the other core when there is one. Every stdin chunk goes
 * to the server as it came; its answers to the requests answered here are dropped, everything else it
 * writes goes to stdout unchanged. This process stays small (no server, store or worker threads), so
 * it ends within milliseconds of a stop: even SIGKILL of a process holding the server took 235 ms at
 * load 10-13, and Claude Code sends SIGTERM 100 ms after its SIGINT, then SIGKILL. At a stop the
 * door's files go here, the server is told, and this process ends without waiting for it: the server
 * stops its commands, releases its lock and ends by itself, as it does when this process is killed.
 */
import { inCopilotHarness } from '../core/agents/harness';
import { fork } from 'node:child_process';
import { writeSync } from 'node:fs';
import { removeDoorNow, type FromFront, type Leftovers, type ToFront } from './frontProtocol';
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
  /** Told to stop (a signal, stdin's end): nothing more goes to stdout. */
  let stopping = false;
  /** What the server said must be removed at a stop (frontProtocol.ts); the lock is the server's own to release. */
  let leftovers: Leftovers = {};
  // The line the server would write at a stop: a client's log shows why the server ended.
  const log = stderrLog({ write: (text: string) => writeSync(2, text) });

  // No execArgv: a preload given to this process (a recorder of its stdio in tests, a user's
  // --require) is for the process's streams, which this one owns. The server's stderr comes through
  // here, not inherited: a client waits for every copy of the pipes it gave to close, so the server's
  // process, which ends after this one, holds none of them.
  const server = fork(serverScript, [process.argv[1] ?? '', ...argv], {
    execArgv: [],
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  const send = (message: FromFront) => {
    if (server.connected) server.send(message);
  };
  server.stderr?.on('data', (chunk: Buffer) => writeSync(2, chunk));

  server.on('message', (message: ToFront) => {
    if (message.kind === 'ready') serverReady = true;
    else if (message.kind === 'leftovers') settled(message.leftovers);
    // Stopping, the server answers nothing more: a client that closed stdin or sent a signal reads no further.
    else if (!stopping && !(answered.size > 0 && answeredHere(message.data))) process.stdout.write(message.data);
  });
  // A server that ends by itself (a bad command line, a session that cannot open, a crash) ends the
  // program with its code, once its last words on stderr are through.
  server.on('close', (code) => {
    removeDoorNow(leftovers);
    process.exit(code ?? 1);
  });
  server.on('error', (error) => {
    process.stderr.write(`tool-output-recall-mcp: ${error.stack ?? String(error)}\n`);
    if (server.pid === undefined) process.exit(1);
  });

  /**
   * What must be removed at a stop changed. The stop path is compiled now (a call that changes
   * nothing), not at the signal, where each millisecond of work took ten or more at a load of four
   * busy processes per core.
   */
  const settled = (now: Leftovers) => {
    leftovers = now;
    removeDoorNow({});
  };

  /**
   * Told to stop: the door's files go first, here and now (a hook must not find a server that is
   * ending), the server is told, and the process ends. After a signal, by that same signal with its
   * default action: the conventional end of a program that handles SIGINT or SIGTERM (its parent sees
   * it killed by that signal). At stdin's end, with code 0.
   */
  const stop = (message: FromFront, signal?: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    removeDoorNow(leftovers);
    send(message);
    log.info(`stopping (${message.kind === 'stop' ? message.why : 'stdin closed'})`);
    if (!signal) process.exit(0);
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
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
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop({ kind: 'stop', why: signal }, signal));
}
