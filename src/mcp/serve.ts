/**
 * The server proper (dist/mcpServer.js): the session, the tools and one front end, stdio or HTTP.
 * `main.ts` (dist/mcp.js) is the small entry agents start: over stdio it answers the handshake itself
 * and runs this module in a child process (stdioChild.ts); with --http, --help, --version and for
 * `hook` it runs this module in its own thread. Exit codes: 0 after a clean shutdown, 1 when the
 * session cannot open, 2 for a bad command line.
 */
import { duplicateInHarness } from '../core/agents/harness';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import { describeError } from '../core/errors';
import { SessionAgentNote } from '../core/store/sessionAgent';
import { openAgentSession } from './agentSession';
import { lockFileFor } from '../core/store/sessionLock';
import { removeLeftoversNow, type Leftovers } from './frontProtocol';
import { listenForHooks } from './hookListener';
import { serveHttp, type HttpServer } from './http';
import { PROGRAM, type Log } from './log';
import { UsageError, parseOptions } from './options';
import { serverFactory } from './server';
import { TOKEN_ENV, bearerToken } from './token';
import { AgentTools } from './tools';

/** Where a stdio server reads and writes, and how it is told to stop (process streams and signals, or the entry's IPC channel). */
export interface StdioWire {
  /** The script the process was started with (the launcher, or dist/mcp.js): it tells a server the extension's launcher started (harness.ts). */
  script?: string;
  /** The process the agent started, when not this one (the entry, front.ts): the hook door is named by it (hookListener.ts). */
  pid?: number;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** Calls `stop` once when the server must end (stdin closed, SIGINT, SIGTERM). */
  onStop(stop: (why: string) => void): void;
  /** Ends the program with `code` at once, removing `leftovers` first (synchronously). */
  exit(code: number, leftovers: Leftovers): void;
  /**
   * Given when the entry ends the process the client waits for (stdioChild.ts): told what must be
   * removed, each time that grows (the entry removes the door's files at a stop before the server
   * hears of it); the server then stops without closing its session, and `exit` releases the lock.
   */
  leave?(leftovers: Leftovers): void;
  /** The server reads `input` from now on: answers come from it, not from the entry (main.ts). */
  ready?(): void;
}

/** Runs the command line `argv` (after the program name); `wire` for stdio, or undefined to serve HTTP or print help. */
export async function serve(argv: readonly string[], log: Log, stdioWire?: StdioWire): Promise<void> {
  const parsed = await parseOptions(argv, process.env);
  if ('help' in parsed || 'version' in parsed) {
    process.stdout.write(`${'help' in parsed ? parsed.help : parsed.version}\n`);
    return;
  }
  // Before the session opens: a token file that cannot be trusted stops the start with nothing created.
  const bearer = parsed.http ? await bearerToken(parsed.http.auth) : undefined;
  // The session opens (sql.js, the worker, the lock) while the server already answers: a call that
  // needs the store waits for it; a session that cannot open ends the process with code 1.
  const opening = openAgentSession(parsed.storeDir, parsed.settings, log, parsed.sessionId);
  const shutdown = new AbortController();
  const tools = new AgentTools({
    store: async () => (await opening).store,
    workspace: parsed.workspace,
    storeDir: parsed.storeDir,
    settings: parsed.settings,
    log,
    shutdown: shutdown.signal,
  });
  // Names the session's agent for the VS Code inspector (sessionAgent.ts); never stops the server.
  const agent = opening.then((session) => {
    const note = new SessionAgentNote(session.store.file, (error) => log.warn(`recording the session's agent: ${describeError(error)}`));
    void note.started();
    return note;
  });
  agent.catch(noop); // a session that cannot open is reported once, below
  const previewBytes = { bytes: parsed.settings.previewBytes, set: parsed.previewBytesSet };
  // Started by VS Code's Copilot harness through the extension's launcher: the extension's own tools are offered there (harness.ts).
  const offersNone = duplicateInHarness(process.env, stdioWire ? stdioWire.script : process.argv[1]);
  if (offersNone) log.info("started by VS Code's Copilot harness, where the extension's own tools are offered: this server offers none");
  const factory = serverFactory(tools, previewBytes, (client) => void agent.then((note) => note.client(client), noop), offersNone);
  const wire: StdioWire = stdioWire ?? processWire(!parsed.http);

  let http: HttpServer | undefined;
  /**
   * Whether the entry ends the process the client waits for (stdioChild.ts, front.ts): then this
   * server need not close its session, and `exit` releases the lock in the same synchronous run that
   * ends the server's process. Otherwise (HTTP) this thread ends it with process.exit, which lets the
   * store's worker run on while it tears the threads down: the session is closed first, and the lock goes after it.
   */
  const entryEnds = wire.leave !== undefined;
  /** What the entry must remove when the process ends; it is told each time that grows. */
  const leftovers: { door?: readonly string[]; lock?: string } = {};
  const leave = (more: Leftovers) => {
    Object.assign(leftovers, more);
    wire.leave?.({ ...leftovers });
  };
  if (entryEnds) void opening.then((session) => leave({ lock: lockFileFor(session.store.file) }), noop);
  /** The door while it opens: a stop waits for it (a few file operations), so that its files are among those removed. */
  let doorOpening: Promise<unknown> | undefined;
  // A stdio server's agent may hand it its own shell tool's outputs through a hook (hookListener.ts);
  // where its door is, or why there is none, goes to the log and the session's record.
  const hooks = parsed.http
    ? undefined
    : opening.then(
        (session) => {
          if (shutdown.signal.aborted) return undefined;
          const door = listenForHooks({
            store: async () => session.store,
            sessionId: session.store.sessionId,
            workspace: parsed.workspace,
            log,
            pid: wire.pid,
            // Known before the files exist: the entry removes them at a stop that comes while the door opens.
            files: (files) => leave({ door: files }),
          });
          doorOpening = door.then((opened) => leave({ door: opened.files }));
          return door;
        },
        () => undefined,
      );
  void hooks?.then((door) => door && agent.then((note) => note.hooks(door.status))).catch(noop);
  let stopping = false;
  // Whichever way a stdio server is asked to end, it ends now: running commands are stopped (their
  // process trees get SIGTERM, synchronously), the door's files and the lock go, and the process exits
  // without closing the session. Nothing is lost: every copy the store acknowledged is in its synced
  // journal, which the next open replays. The last checkpoint took 100-350 ms at load 10, and Claude
  // Code, which follows its SIGINT with SIGTERM and then SIGKILL, killed 16 of 19 servers, leaving their files.
  const stop = (why: string) => {
    if (stopping) return;
    stopping = true;
    log.info(`stopping (${why})`);
    shutdown.abort();
    void (entryEnds ? (doorOpening ?? Promise.resolve()).catch(noop) : closeSession()).then(() => wire.exit(0, { ...leftovers }));
  };
  /** An HTTP server's end: its agent note written, then its session closed (a last checkpoint) and its lock released. */
  const closeSession = async () => {
    await agent.then((note) => note.idle()).catch(noop);
    await (await opening.catch(() => undefined))?.close();
  };
  wire.onStop(stop);

  if (parsed.http && bearer) {
    try {
      http = await serveHttp(factory, { port: parsed.http.port, bearer }, log);
    } catch (error) {
      await (await opening.catch(() => undefined))?.close();
      throw error;
    }
    // Where the token is, never the token: clients keep this log.
    if (bearer.created) log.info(`made a new bearer token ${bearer.where} (mode 0600: only you can read it)`);
    if ('from' in parsed.http.auth && parsed.http.auth.from === '--token') {
      log.warn(`--token shows the token to every local user (ps, /proc); set ${TOKEN_ENV} or use --token-file instead`);
    }
    log.info(`serving MCP at ${http.url}; bearer token required, ${bearer.where}; workspace ${parsed.workspace}`);
  } else {
    serveStdio(factory, {
      transport: new StdioServerTransport(wire.input as never, wire.output as never),
      onerror: (error) => log.warn(`stdio: ${describeError(error)}`),
    });
    wire.ready?.();
    log.info(`serving MCP on stdio; workspace ${parsed.workspace}`);
  }
  try {
    await opening;
  } catch (error) {
    await http?.close().catch(() => undefined);
    throw error;
  }
}

/** This process's own stdin, stdout and signals: HTTP, or stdio in the main thread (`stdio`). */
function processWire(stdio: boolean): StdioWire {
  return {
    input: process.stdin,
    output: process.stdout,
    onStop(stop) {
      if (stdio) {
        // The client ends a stdio server by closing its stdin (the MCP stdio binding).
        process.stdin.once('end', () => stop('stdin closed'));
        process.stdin.once('close', () => stop('stdin closed'));
      }
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
    },
    exit(code, leftovers) {
      removeLeftoversNow(leftovers);
      process.exit(code);
    },
  };
}

/** Prints why the program cannot go on and ends it: 2 for a bad command line, 1 otherwise. */
export function fail(error: unknown, exit: (code: number) => void, write: (text: string) => void): void {
  write(
    error instanceof UsageError
      ? `${PROGRAM}: ${error.message}\nRun ${PROGRAM} --help for the options.\n`
      : `${PROGRAM}: ${describeError(error)}\n`,
  );
  exit(error instanceof UsageError ? 2 : 1);
}

const noop = (): void => undefined;
