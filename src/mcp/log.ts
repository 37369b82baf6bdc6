/**
 * The server's log: lines on stderr, because stdout carries the MCP messages over stdio. Clients
 * show a server's stderr in their logs (Claude Code `--debug`, Codex and Cursor's MCP logs).
 */
export interface Log {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export const PROGRAM = 'tool-output-recall-mcp';

export function stderrLog(stream: { write(text: string): unknown } = process.stderr): Log {
  const line = (level: string) => (message: string) => {
    stream.write(`[${PROGRAM}] ${level}${message}\n`);
  };
  return { info: line(''), warn: line('warning: '), error: line('error: ') };
}
