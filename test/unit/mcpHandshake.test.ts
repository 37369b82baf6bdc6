// The handshake dist/mcp.js answers before its server has loaded (src/mcp/handshake.ts, front.ts):
// each answer it gives equals the server's own answer to the same request on a fresh connection
// (the SDK's stdio entry with our server factory, in this process), in both protocol eras; what it
// is not sure of it leaves to the server; and the built entry answers with no server loaded at all.
import assert from 'node:assert/strict';
import { copyFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import { DEFAULT_LIMITS } from '../../src/core/limits';
import { resolveSettings } from '../../src/core/settings';
import { settingSchema } from '../../src/core/manifest';
import { EarlyAnswers } from '../../src/mcp/handshake';
import { handshakeData, serverFactory } from '../../src/mcp/server';
import { AgentTools } from '../../src/mcp/tools';
import { waitUntil } from './helpers/mochaRun';
import { useTempDirs } from './helpers/tempDirs';
import { MCP_BUNDLE, ensureBuilt } from './helpers/mcpServer';
import { spawn } from 'node:child_process';

type Message = Record<string, unknown>;

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'claude-code', version: '2.1.332' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const initialize = (id: number, protocolVersion: string): Message => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'codex-mcp-client', version: '0.171.0' } },
});
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };
const request = (id: number | string, method: string, params?: Message): Message => ({
  jsonrpc: '2.0',
  id,
  method,
  ...(params ? { params } : {}),
});

/** The server's answers to `messages` on one fresh stdio connection, by request id. */
async function serverAnswers(messages: Message[]): Promise<Map<string, Message>> {
  const tools = new AgentTools({
    store: () => Promise.reject(new Error('no store in a handshake test')),
    workspace: process.cwd(),
    settings: resolveSettings((key) => settingSchema(key)?.default),
    log: { info() {}, warn() {}, error() {} },
    shutdown: new AbortController().signal,
  });
  const input = new PassThrough();
  const answers = new Map<string, Message>();
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const message = JSON.parse(chunk.toString()) as Message;
      if (message.id !== undefined) answers.set(JSON.stringify(message.id), message);
      done();
    },
  });
  const previewBytes = { bytes: DEFAULT_LIMITS.previewBytes, set: false };
  const stdio = serveStdio(serverFactory(tools, previewBytes), { transport: new StdioServerTransport(input, output) });
  const ids = messages.filter((message) => message.id !== undefined).map((message) => JSON.stringify(message.id));
  try {
    for (const message of messages) input.write(`${JSON.stringify(message)}\n`);
    await waitUntil('the server answered every request', () => ids.every((id) => answers.has(id)));
  } finally {
    await stdio.close();
  }
  return answers;
}

/** Early answers for `messages` compared with the server's; returns how many were answered early. */
async function compare(messages: Message[]): Promise<number> {
  const early = new EarlyAnswers(handshakeData());
  const mine = messages.map((message) => early.answer(message) as Message | undefined);
  const theirs = await serverAnswers(messages);
  let answered = 0;
  messages.forEach((message, index) => {
    const answer = mine[index];
    if (!answer) return;
    answered++;
    assert.deepEqual(answer, theirs.get(JSON.stringify(message.id)), `the answer to ${JSON.stringify(message)}`);
  });
  return answered;
}

describe('MCP handshake answered before the server loads', function () {
  const dirs = useTempDirs('mcp-handshake');

  for (const version of [...handshakeData().legacyVersions, '2024-01-01', '2026-07-28']) {
    it(`2025 era: initialize asking ${version}, tools/list and ping equal the server's`, async () => {
      const answered = await compare([initialize(1, version), INITIALIZED, request(2, 'tools/list'), request('three', 'ping')]);
      assert.equal(answered, 3);
    });
  }

  it("2026 era (Claude Code): server/discover and tools/list with the request envelope equal the server's", async () => {
    const answered = await compare([request(0, 'server/discover', { _meta: ENVELOPE }), request(1, 'tools/list', { _meta: ENVELOPE })]);
    assert.equal(answered, 2);
  });

  it('leaves to the server what it is not sure of: a request before initialize, a second initialize, an unknown revision, a mix of eras, a page cursor', () => {
    const cases: Message[][] = [
      [request(1, 'tools/list')],
      [initialize(1, '2025-06-18'), initialize(2, '2025-06-18')],
      [request(1, 'server/discover', { _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2027-01-01' } })],
      [request(1, 'server/discover', { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } })],
      [initialize(1, '2025-06-18'), request(2, 'server/discover', { _meta: ENVELOPE })],
      [initialize(1, '2025-06-18'), request(2, 'tools/list', { cursor: 'x' })],
      [initialize(1, '2025-06-18'), request(2, 'tools/call', { name: 'run_command', arguments: {} }), request(3, 'tools/list')],
    ];
    for (const messages of cases) {
      const early = new EarlyAnswers(handshakeData());
      const answers = messages.map((message) => early.answer(message));
      assert.equal(answers.at(-1), undefined, JSON.stringify(messages));
    }
  });

  it('dist/mcp.js answers initialize, tools/list and server/discover with no server loaded; the rest waits for it', async function () {
    await ensureBuilt();
    // The entry beside a server bundle that never finishes loading: whatever it answers, it answers alone.
    const bundles = dirs.make();
    for (const file of ['mcp.js', 'handshake.json']) copyFileSync(path.join(path.dirname(MCP_BUNDLE), file), path.join(bundles, file));
    writeFileSync(path.join(bundles, 'mcpServer.js'), 'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);\n');
    const child = spawn(process.execPath, [path.join(bundles, 'mcp.js'), '--workspace', dirs.make(), '--store', dirs.make()], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    try {
      for (const message of [initialize(1, '2025-06-18'), INITIALIZED, request(2, 'tools/list'), request(3, 'tools/call', { name: 'x' })])
        child.stdin.write(`${JSON.stringify(message)}\n`);
      await waitUntil('initialize and tools/list answered', () => out.split('\n').filter(Boolean).length >= 2);
      const [first, second] = out
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { id: number; result: Message });
      assert.equal(first.id, 1);
      assert.equal((first.result.serverInfo as Message).name, 'tool-output-recall');
      assert.equal(second.id, 2);
      assert.deepEqual(second.result, { tools: handshakeData().tools });
      // A modern client on its own connection is answered the same way.
      const modern = spawn(process.execPath, [path.join(bundles, 'mcp.js')], { stdio: ['pipe', 'pipe', 'ignore'], cwd: dirs.make() });
      let modernOut = '';
      modern.stdout.on('data', (chunk: Buffer) => (modernOut += chunk.toString()));
      modern.stdin.write(`${JSON.stringify(request(0, 'server/discover', { _meta: ENVELOPE }))}\n`);
      await waitUntil('server/discover answered', () => modernOut.includes('\n'));
      modern.kill('SIGKILL');
      assert.deepEqual((JSON.parse(modernOut) as { result: Message }).result.supportedVersions, ['2026-07-28']);
      assert.equal(out.trim().split('\n').length, 2, 'tools/call waits for the server');
    } finally {
      child.kill('SIGKILL');
    }
  });
});
