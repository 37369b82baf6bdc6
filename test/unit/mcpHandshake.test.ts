// The handshake dist/mcp.js answers before its server has loaded (src/mcp/handshake.ts, front.ts):
// each answer it gives equals the server's own answer to the same request on a fresh connection
// (the SDK's stdio entry with our server factory, in this process), in both protocol eras; what it
// is not sure of it leaves to the server. The built entry answers with no server loaded at all:
// test/system/mcpHandshakeEntry.test.ts.
import assert from 'node:assert/strict';
import { PassThrough, Writable } from 'node:stream';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import { DEFAULT_LIMITS } from '../../src/core/limits';
import { resolveSettings } from '../../src/core/settings';
import { settingSchema } from '../../src/core/manifest';
import { EarlyAnswers } from '../../src/mcp/handshake';
import { handshakeData, serverFactory } from '../../src/mcp/server';
import { AgentTools } from '../../src/mcp/tools';
import { ENVELOPE, initialize, INITIALIZED, request, type Message } from './helpers/mcpHandshake';
import { waitUntil } from './helpers/mochaRun';

/** Tools with no store (a handshake needs none) and no search worker: a handshake test starts none. */
function storelessTools(): AgentTools {
  const tools = new AgentTools({
    store: () => Promise.reject(new Error('no store in a handshake test')),
    workspace: process.cwd(),
    storeDir: process.cwd(),
    settings: resolveSettings((key) => settingSchema(key)?.default),
    log: { info() {}, warn() {}, error() {} },
    shutdown: new AbortController().signal,
  });
  tools.warm = () => undefined;
  return tools;
}

/** The server's answers to `messages` on one fresh stdio connection, by request id. */
async function serverAnswers(messages: Message[], tools = storelessTools()): Promise<Map<string, Message>> {
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

  it("a client that lists the tools for its model gets the search across outputs warmed; VS Code's client, offered none, does not", async () => {
    const warmed: string[] = [];
    const tools = storelessTools();
    tools.warm = () => void warmed.push('warm');
    const listed = await serverAnswers([initialize(1, '2025-06-18'), INITIALIZED, request(2, 'tools/list')], tools);
    assert.ok(((listed.get('2')?.result as { tools: unknown[] }).tools ?? []).length > 0);
    assert.deepEqual(warmed, ['warm']);
    const vscode = {
      ...initialize(1, '2025-06-18'),
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'Visual Studio Code', version: '1.107.0' } },
    };
    const none = await serverAnswers([vscode, INITIALIZED, request(2, 'tools/list')], tools);
    assert.deepEqual((none.get('2')?.result as { tools: unknown[] }).tools, []);
    assert.deepEqual(warmed, ['warm'], 'no warm-up for a client offered no tools');
  });
});
