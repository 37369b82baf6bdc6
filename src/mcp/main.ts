/**
 * dist/mcp.js, the package's `tool-output-recall-mcp`: the Tool Output Recall engine as an MCP
 * server for agents outside VS Code (Claude Code, Codex, Gemini CLI, Qwen Code, Copilot CLI, Cursor).
 * One session per process; stdio unless --http.
 *
 * This file stays small: over stdio it answers the handshake before the server has loaded
 * (front.ts, handshake.ts), so a client that starts its first turn a second after spawning the
 * server finds its tools on any machine. The server itself is dist/mcpServer.js (serverEntry.ts).
 * Exit codes: 0 after a clean shutdown, 1 when the session cannot open, 2 for a bad command line.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { runFront } from './front';
import type { HandshakeData } from './handshake';
import type * as ServerEntry from './serverEntry';

const SERVER = path.join(__dirname, 'mcpServer.js');
const argv = process.argv.slice(2);

/** Anything but a stdio server: `hook`, `plugin`, --http, --help, --version (options.ts parses them all). */
const inThisThread =
  argv[0] === 'hook' || argv[0] === 'plugin' || argv.some((arg) => /^(?:--http(?:=|$)|--help$|-h$|--version$)/.test(arg));

if (inThisThread) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the server bundle beside this one, loaded only when needed
  void (require(SERVER) as typeof ServerEntry).runCli(argv);
} else {
  const data = JSON.parse(readFileSync(path.join(__dirname, 'handshake.json'), 'utf8')) as HandshakeData;
  runFront(data, SERVER, argv);
}
