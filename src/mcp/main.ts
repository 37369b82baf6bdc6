/**
 * dist/mcp.js, the package's `tool-output-recall-mcp`: the Tool Output Recall engine as an MCP
 * server for agents outside VS Code (Claude Code, Codex, Cursor). One session per process; stdio
 * unless --http. Exit codes: 0 after a clean shutdown, 1 when the session cannot open, 2 for a bad
 * command line.
 */
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { describeError } from '../core/errors';
import { SessionAgentNote } from '../core/store/sessionAgent';
import { openAgentSession } from './agentSession';
import { serveHttp, type HttpServer } from './http';
import { PROGRAM, stderrLog } from './log';
import { UsageError, parseOptions } from './options';
import { serverFactory } from './server';
import { TOKEN_ENV, bearerToken } from './token';
import { AgentTools } from './tools';

async function main(): Promise<void> {
  // `hook <name>`: a hook for an agent's own tools (hook.ts), not a server.
  if (process.argv[2] === 'hook') return (await import('./hook')).runHook(process.argv.slice(3));
  const log = stderrLog();
  const parsed = await parseOptions(process.argv.slice(2), process.env);
  if ('help' in parsed || 'version' in parsed) {
    process.stdout.write(`${'help' in parsed ? parsed.help : parsed.version}\n`);
    return;
  }
  // Before the session opens: a token file that cannot be trusted stops the start with nothing created.
  const bearer = parsed.http ? await bearerToken(parsed.http.auth) : undefined;
  // The session opens (sql.js, the worker, the lock) while the server already answers: a client
  // that starts its first turn a second after spawning us (Codex's start-up grace) must find our
  // tools listed. A call that needs the store waits for it; a session that cannot open ends the
  // process with code 1, as before.
  const opening = openAgentSession(parsed.storeDir, parsed.settings, log, parsed.sessionId);
  const shutdown = new AbortController();
  const tools = new AgentTools({
    store: async () => (await opening).store,
    workspace: parsed.workspace,
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
  const factory = serverFactory(tools, previewBytes, (client) => void agent.then((note) => note.client(client), noop));

  let http: HttpServer | undefined;
  let stdio: { close(): Promise<void> } | undefined;
  let closing: Promise<void> | undefined;
  // Running commands are stopped (their whole process trees), the store takes its last checkpoint
  // and the lock goes, whichever way the server is asked to end.
  const stop = (why: string) => {
    closing ??= (async () => {
      log.info(`stopping (${why})`);
      shutdown.abort();
      await http?.close().catch((error) => log.warn(`closing http: ${describeError(error)}`));
      await stdio?.close().catch(() => undefined);
      const session = await opening.catch(() => undefined);
      await (await agent.catch(() => undefined))?.idle();
      await session?.close();
      process.exit(0);
    })();
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));

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
    // The client ends a stdio server by closing its stdin (the MCP stdio binding).
    process.stdin.once('end', () => stop('stdin closed'));
    process.stdin.once('close', () => stop('stdin closed'));
    stdio = serveStdio(factory, { onerror: (error) => log.warn(`stdio: ${describeError(error)}`) });
    log.info(`serving MCP on stdio; workspace ${parsed.workspace}`);
  }
  try {
    await opening;
  } catch (error) {
    await http?.close().catch(() => undefined);
    throw error;
  }
}

const noop = (): void => undefined;

main().catch((error) => {
  process.stderr.write(
    error instanceof UsageError
      ? `${PROGRAM}: ${error.message}\nRun ${PROGRAM} --help for the options.\n`
      : `${PROGRAM}: ${describeError(error)}\n`,
  );
  process.exit(error instanceof UsageError ? 2 : 1);
});
