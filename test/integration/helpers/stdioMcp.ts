// A stdio MCP client for the real-host suites: the extension's own server (dist/mcp.js) started as
// an agent starts it, spoken to in newline-delimited JSON-RPC. Its sessions are other agents' sessions
// to the extension (agentSessions.test.ts, searchAllOutputs.test.ts).
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { scaled } from './host';

/** A stdio MCP client, newline-delimited JSON-RPC, as small as a client can be. */
export class StdioMcp {
  readonly child: ChildProcess;
  private nextId = 1;
  private readonly waiting = new Map<number, (message: { result?: unknown; error?: unknown }) => void>();
  stderr = '';

  constructor(script: string, args: string[]) {
    // The host's own runtime as plain Node (in Electron builds this variable makes it one).
    this.child = spawn(process.execPath, [script, ...args], {
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    createInterface({ input: this.child.stdout! }).on('line', (line) => {
      const message = JSON.parse(line) as { id?: number; result?: unknown; error?: unknown };
      if (typeof message.id === 'number') this.waiting.get(message.id)?.(message);
    });
  }

  request(method: string, params: object): Promise<unknown> {
    const id = this.nextId++;
    this.child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return new Promise((resolve, reject) => {
      // Answers take milliseconds; the deadline (×TEST_TIME_SCALE) turns a server that never answers into a failure that shows its stderr.
      const limitMs = scaled(60_000);
      const timer = setTimeout(() => reject(new Error(`${method} timed out after ${limitMs} ms; server stderr:\n${this.stderr}`)), limitMs);
      this.waiting.set(id, (message) => {
        clearTimeout(timer);
        if (message.error) reject(new Error(`${method}: ${JSON.stringify(message.error)}`));
        else resolve(message.result);
      });
    });
  }

  async initialize(name: string): Promise<void> {
    await this.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name, version: '9.9.9' } });
    this.child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  }

  async call(tool: string, args: object): Promise<string> {
    const result = (await this.request('tools/call', { name: tool, arguments: args })) as {
      content: { text: string }[];
      isError?: boolean;
    };
    const text = result.content.map((part) => part.text).join('');
    assert.ok(!result.isError, `${tool} failed: ${text}`);
    return text;
  }

  /** The client ends a stdio server by closing its stdin. */
  async close(): Promise<number | null> {
    const exited = new Promise<number | null>((resolve) => this.child.once('exit', resolve));
    this.child.stdin!.end();
    return exited;
  }
}
