/**
 * The built MCP server (dist/mcp.js, rebuilt when a source is newer) run as real child processes,
 * reached by the SDK's client over stdio or Streamable HTTP, in either protocol era.
 */
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { scaled } from './timeScale';

const exec = promisify(execFile);
export const REPO = path.resolve(__dirname, '../../..');
export const MCP_BUNDLE = path.join(REPO, 'dist/mcp.js');

/** Legacy: the 2025 handshake every current client (Claude Code, Codex, Cursor) uses; modern: 2026-07-28. */
export type Era = 'legacy' | 'modern';

function newestSource(dir: string): number {
  return Math.max(
    0,
    ...readdirSync(dir, { withFileTypes: true }).map((entry) => {
      const full = path.join(dir, entry.name);
      return entry.isDirectory() ? newestSource(full) : statSync(full).mtimeMs;
    }),
  );
}

/** Builds dist/ when dist/mcp.js is missing or older than a source or package.json (which it inlines). */
export async function ensureBuilt(): Promise<void> {
  const newest = Math.max(newestSource(path.join(REPO, 'src')), statSync(path.join(REPO, 'package.json')).mtimeMs);
  const fresh = ['dist/mcp.js', 'dist/mcpServer.js', 'dist/handshake.json', 'dist/storeWorker.js', 'dist/sql-wasm.wasm'].every((file) =>
    existsSync(path.join(REPO, file)),
  );
  if (fresh && statSync(MCP_BUNDLE).mtimeMs >= newest) return;
  await exec(process.execPath, [path.join(REPO, 'scripts/build.mjs')], { cwd: REPO });
}

export function newClient(era: Era): Client {
  return new Client(
    { name: 'recall-unit-test', version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
}

export interface StdioServer {
  client: Client;
  transport: StdioClientTransport;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

/** Starts `node dist/mcp.js <args>` under the SDK client's stdio transport and connects. */
export async function connectStdio(
  args: string[],
  era: Era = 'legacy',
  env: Record<string, string> = {},
  script: string = MCP_BUNDLE,
): Promise<StdioServer> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [script, ...args],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = newClient(era);
  await client.connect(transport);
  await sessionOpened(() => stderr);
  return { client, transport, stderr: () => stderr, close: () => client.close() };
}

const SESSION_LINE = /(?:started|resumed) session \S+ at /;

/**
 * Waits for the server's session line: it answers initialize before its session opens (so a client
 * sees its tools at once), and tests read the session's id and file from that line.
 */
async function sessionOpened(stderr: () => string): Promise<void> {
  // Milliseconds on an idle machine; the generous deadline (×TEST_TIME_SCALE) only turns a server that never opens one into an error.
  const end = Date.now() + scaled(60_000);
  while (!SESSION_LINE.test(stderr())) {
    if (Date.now() > end) throw new Error(`the server never opened its session: ${stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The bearer token startHttp gives the server unless the test sets TOOL_OUTPUT_RECALL_MCP_TOKEN itself (HTTP always needs one). */
export const HTTP_TEST_TOKEN = 'unit-test-http-token-0123456789';

export interface HttpServerProcess {
  url: string;
  /** The Authorization header for HTTP_TEST_TOKEN. */
  auth: Record<string, string>;
  child: ChildProcess;
  stderr(): string;
  /** Sends SIGTERM and waits for the exit (the server closes its session first). */
  stop(): Promise<number | null>;
}

/**
 * Starts `node dist/mcp.js --http 0 <args>` and waits for the URL it serves. A variable set to ''
 * in `env` is left out (TOOL_OUTPUT_RECALL_MCP_TOKEN: '' starts the server with no token given).
 */
export async function startHttp(args: string[], env: Record<string, string> = {}): Promise<HttpServerProcess> {
  const merged = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TOOL_OUTPUT_RECALL_MCP_TOKEN: HTTP_TEST_TOKEN, ...env };
  const child = spawn(process.execPath, [MCP_BUNDLE, '--http', '0', ...args], {
    env: Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== '')),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /serving MCP at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
      if (match && SESSION_LINE.test(stderr)) resolve(match[1]);
    });
    void exited.then((code) => reject(new Error(`the server exited with ${code} before serving: ${stderr}`)));
  });
  return {
    url,
    auth: { Authorization: `Bearer ${HTTP_TEST_TOKEN}` },
    child,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

export async function connectHttp(url: string, era: Era = 'legacy', headers: Record<string, string> = {}): Promise<Client> {
  const client = newClient(era);
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/** Runs `node dist/mcp.js <args>` to its exit (for command lines that must fail). */
export async function runToExit(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [MCP_BUNDLE, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stderr };
}

/** A tool result's text blocks, checked for the shape every client can show: text only, ≤ 8,000 bytes each, no structuredContent. */
export function textOf(result: unknown): string {
  const { content, structuredContent } = result as { content: { type: string; text: string }[]; structuredContent?: unknown };
  assert.equal(structuredContent, undefined, 'no structuredContent');
  assert.ok(content.length > 0, 'at least one content block');
  for (const block of content) {
    assert.equal(block.type, 'text');
    assert.ok(Buffer.byteLength(block.text) <= 8000, `a block of ${Buffer.byteLength(block.text)} bytes`);
  }
  return content.map((block) => block.text).join('');
}

/** textOf a result that must have succeeded (the failure's text is the assertion message). */
export function okText(result: unknown): string {
  const text = textOf(result);
  assert.notEqual((result as { isError?: boolean }).isError, true, text);
  return text;
}
