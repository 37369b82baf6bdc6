/**
 * dist/mcpServer.js: the server bundle the entry (main.ts, dist/mcp.js) loads. Forked by the stdio
 * entry (front.ts) as a script of its own, it serves stdio in that child process; loaded in the
 * entry's process, it runs the command line itself (--http, --help, --version, `hook`, `plugin`).
 * scripts/build.mjs calls `handshakeData` to write dist/handshake.json.
 */
import { stderrLog } from './log';
import { fail, serve } from './serve';
import { runStdioChild } from './stdioChild';

export { handshakeData } from './server';

/** The command line in this thread: `hook <name>`, `plugin <agent>`, or the server over HTTP, or its help or version. */
export async function runCli(argv: readonly string[]): Promise<void> {
  try {
    // `hook <name>`: a hook for an agent's own tools (hook.ts), not a server.
    if (argv[0] === 'hook') return await (await import('./hook')).runHook(argv.slice(1));
    // `plugin <agent>`: prints OpenCode's or Kilo Code's plugin (pluginCommand.ts).
    if (argv[0] === 'plugin') {
      process.stdout.write((await import('./pluginCommand')).pluginText(argv[1], process.argv[1]));
      return;
    }
    await serve(argv, stderrLog());
  } catch (error) {
    fail(
      error,
      (code) => process.exit(code),
      (text) => process.stderr.write(text),
    );
  }
}

// The process's own script: forked by front.ts with `<the entry's script> <the server's arguments…>`.
if (process.argv[1] === __filename) runStdioChild(process.argv.slice(3), process.argv[2] || undefined);
