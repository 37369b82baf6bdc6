// The MCP server's session: one per process, locked like the extension's, resumable with --session,
// pruned by the extension's policy; and the HTTP front's checks (path, Host/Origin, bearer token).
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, realpathSync, utimesSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { request } from 'node:http';
import { defaultStoreDir } from '../../src/core/agentStore';
import { openStore } from '../../src/core/workers/stores';
import { pruneSessions } from '../../src/core/store/sessionPruning';
import { tryLockSession } from '../../src/core/store/sessionLock';
import { waitUntil } from '../unit/helpers/mochaRun';
import { eventually } from '../unit/helpers/processes';
import { useTempDirs } from '../unit/helpers/tempDirs';
import { connectHttp, connectStdio, ensureBuilt, okText, runToExit, startHttp } from '../unit/helpers/mcpServer';

const sessionOf = (stderr: string): string => {
  const match = /(?:started|resumed) session (\S+) at /.exec(stderr);
  assert.ok(match, stderr);
  return match[1];
};
const sessionsIn = (dir: string): string[] =>
  readdirSync(dir)
    .filter((name) => name.endsWith('.sqlite'))
    .sort();

describe('mcp: sessions', function () {
  this.timeout(120_000);
  const dirs = useTempDirs('mcp-sessions');
  before(ensureBuilt);

  it('resumes a session with --session: an outputId from the last run still reads', async () => {
    const workspace = dirs.make();
    const store = dirs.make();
    const first = await connectStdio(['--workspace', workspace, '--store', store]);
    const ran = okText(await first.client.callTool({ name: 'run_command', arguments: { command: 'seq 1 30000' } }));
    const outputId = /outputId "(out_[0-9a-f]+)"/.exec(ran)![1];
    await first.close();
    const sessionId = sessionOf(first.stderr());

    const second = await connectStdio(['--workspace', workspace, '--store', store, '--session', sessionId]);
    try {
      assert.match(second.stderr(), new RegExp(`resumed session ${sessionId} at `));
      const page = JSON.parse(
        okText(await second.client.callTool({ name: 'read_tool_output', arguments: { outputId, offset: 0, maxBytes: 8 } })).split('\n')[0],
      );
      assert.equal(page.text, '1\n2\n3\n4\n');
    } finally {
      await second.close();
    }
  });

  it('refuses a session another process holds, and one that does not exist', async () => {
    const store = dirs.make();
    const holder = await connectStdio(['--workspace', dirs.make(), '--store', store]);
    try {
      const sessionId = sessionOf(holder.stderr());
      const held = await runToExit(['--workspace', dirs.make(), '--store', store, '--session', sessionId]);
      assert.equal(held.code, 1);
      assert.match(
        held.stderr,
        new RegExp(`Session ${sessionId} is open in another process \\(a VS Code window or another server\\); omit --session`),
      );
      const missing = await runToExit(['--store', store, '--session', 'nosuchsession']);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, new RegExp(`There is no session nosuchsession in .*Sessions there, newest first: ${sessionId}\\.`));
    } finally {
      await holder.close();
    }
  });

  it('releases the lock when stdin closes, and after SIGTERM over HTTP', async () => {
    const store = dirs.make();
    const stdio = await connectStdio(['--workspace', dirs.make(), '--store', store]);
    const stdioSession = sessionOf(stdio.stderr());
    await stdio.close();
    const http = await startHttp(['--workspace', dirs.make(), '--store', store]);
    const httpSession = sessionOf(http.stderr());
    assert.ok(existsSync(path.join(store, `${httpSession}.sqlite.lock`)));
    assert.equal(await http.stop(), 0);
    for (const id of [stdioSession, httpSession]) {
      assert.equal(existsSync(path.join(store, `${id}.sqlite.lock`)), false, id);
      const lock = await tryLockSession(path.join(store, `${id}.sqlite`));
      assert.ok(lock, `${id} can be locked again`);
      await lock.release();
    }
  });

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`ends by ${signal}, the signal it was sent, at once: the lock goes, the output stays (its journal replays)`, async () => {
      const workspace = dirs.make();
      const store = dirs.make();
      const server = await connectStdio(['--workspace', workspace, '--store', store]);
      const ran = okText(await server.client.callTool({ name: 'run_command', arguments: { command: 'seq 1 30000' } }));
      const outputId = /outputId "(out_[0-9a-f]+)"/.exec(ran)![1];
      const sessionId = sessionOf(server.stderr());
      const child = (server.transport as unknown as { _process: ChildProcess })._process;
      const ended = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
        child.once('exit', (code, how) => resolve([code, how])),
      );
      child.kill(signal);
      // Killed by the signal itself (not exit code 0): the conventional end, without Node's teardown.
      assert.deepEqual(await ended, [null, signal]);
      assert.match(server.stderr(), new RegExp(`stopping \\(${signal}\\)`));
      // The server, a child of the process the client waited for, releases the lock as it ends, moments later.
      assert.ok(await eventually(() => !existsSync(path.join(store, `${sessionId}.sqlite.lock`))), 'the lock goes');
      const resumed = await connectStdio(['--workspace', workspace, '--store', store, '--session', sessionId]);
      try {
        const page = okText(await resumed.client.callTool({ name: 'read_tool_output', arguments: { outputId, offset: 0, maxBytes: 8 } }));
        assert.equal(JSON.parse(page.split('\n')[0]).text, '1\n2\n3\n4\n');
      } finally {
        await resumed.close();
      }
    });
  }

  it('keeps sessions in the per-workspace state folder by default', async () => {
    const workspace = dirs.make();
    const state = dirs.make();
    const server = await connectStdio(['--workspace', workspace], 'legacy', { XDG_STATE_HOME: state });
    await server.close();
    const dir = defaultStoreDir(realpathSync(workspace), { XDG_STATE_HOME: state });
    assert.deepEqual(sessionsIn(dir), [`${sessionOf(server.stderr())}.sqlite`]);
  });

  it('prunes old sessions at start with the extension policy (--sessions-max-count)', async () => {
    const store = dirs.make();
    const old: string[] = [];
    for (let i = 0; i < 3; i++) {
      const session = await openStore({ dir: store });
      await session.retain(`session ${i}`);
      old.push(session.sessionId);
      await session.close();
      const when = Date.now() / 1000 - 3600 * (3 - i);
      utimesSync(path.join(store, `${session.sessionId}.sqlite`), when, when);
    }
    const server = await connectStdio(['--workspace', dirs.make(), '--store', store, '--sessions-max-count', '2']);
    const current = sessionOf(server.stderr());
    // Pruning runs beside the server once its session is open; a server stopped meanwhile ends at once (as if
    // killed), and the next start prunes again.
    await waitUntil('the start-up pruning', () => /pruned 2 old session/.test(server.stderr()));
    await server.close();
    // The current session and the newest old one stay; the two oldest go.
    assert.deepEqual(sessionsIn(store), [`${current}.sqlite`, `${old[2]}.sqlite`].sort());
    assert.match(server.stderr(), new RegExp(`pruned 2 old session\\(s\\): ${old[1]}, ${old[0]}`));
  });
});

describe('mcp: pruneSessions', () => {
  const dirs = useTempDirs('mcp-prune');

  it('keeps the current session and one another live process holds, past every limit', async () => {
    const dir = dirs.make();
    ['s1', 's2', 's3', 's4'].forEach((id, i) => {
      const file = path.join(dir, `${id}.sqlite`);
      writeFileSync(file, Buffer.alloc(1000));
      const when = Date.now() / 1000 - 86_400 * (10 - i);
      utimesSync(file, when, when);
    });
    // s2's lock names a live process other than this one (mocha's parent).
    writeFileSync(path.join(dir, 's2.sqlite.lock'), JSON.stringify({ pid: process.ppid, host: os.hostname(), at: Date.now() }));
    const removed = await pruneSessions(dir, { sessionsMaxCount: 1, sessionsMaxAgeDays: 365, sessionsTotalQuotaBytes: 10_000 }, 's1');
    assert.deepEqual(removed, ['s3']);
    assert.deepEqual(sessionsIn(dir), ['s1.sqlite', 's2.sqlite', 's4.sqlite']);
  });

  it('drops sessions older than the age limit and past the total size', async () => {
    const dir = dirs.make();
    for (const [id, ageDays, bytes] of [
      ['a', 0, 600],
      ['b', 1, 600],
      ['c', 40, 10],
    ] as const) {
      const file = path.join(dir, `${id}.sqlite`);
      writeFileSync(file, Buffer.alloc(bytes));
      const when = Date.now() / 1000 - 86_400 * ageDays;
      utimesSync(file, when, when);
    }
    const removed = await pruneSessions(dir, { sessionsMaxCount: 10, sessionsMaxAgeDays: 30, sessionsTotalQuotaBytes: 1000 }, undefined);
    assert.deepEqual(removed.sort(), ['b', 'c']);
  });
});

describe('mcp: HTTP checks', function () {
  this.timeout(60_000);
  const dirs = useTempDirs('mcp-http');
  const TOKEN = 'unit-test-token-0123456789';
  let server: Awaited<ReturnType<typeof startHttp>>;
  before(async () => {
    await ensureBuilt();
    server = await startHttp(['--workspace', dirs.make(), '--store', dirs.make()], { TOOL_OUTPUT_RECALL_MCP_TOKEN: TOKEN });
  });
  after(() => server.stop());

  const initialize = (headers: Record<string, string>, url = server.url) =>
    fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fetch', version: '1' } },
      }),
    });

  it('serves only http://127.0.0.1:PORT/mcp', async () => {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const other = await initialize({ Authorization: `Bearer ${TOKEN}` }, server.url.replace('/mcp', '/other'));
    assert.equal(other.status, 404);
    assert.match(await other.text(), /the MCP endpoint is \/mcp/);
  });

  it('refuses a foreign Host or Origin (DNS rebinding) before the token is looked at', async () => {
    const port = new URL(server.url).port;
    // fetch does not let a caller set Host (a browser never would), so this request goes through node:http.
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const sent = request(
        server.url,
        { method: 'POST', headers: { Host: `evil.example:${port}`, 'Content-Type': 'application/json' } },
        (res) => {
          res.resume();
          resolve(res.statusCode);
        },
      );
      sent.on('error', reject);
      sent.end('{}');
    });
    assert.equal(status, 403);
    assert.equal((await initialize({ Origin: 'http://evil.example', Authorization: `Bearer ${TOKEN}` })).status, 403);
    assert.match(server.stderr(), /refused POST with Host "evil\.example:\d+"/);
  });

  it('requires the bearer token: 401 with WWW-Authenticate without it or with a wrong one', async () => {
    for (const headers of [{}, { Authorization: 'Bearer wrong-token-0123456789' }, { Authorization: TOKEN }] as Record<string, string>[]) {
      const response = await initialize(headers);
      assert.equal(response.status, 401, JSON.stringify(headers));
      assert.equal(response.headers.get('www-authenticate'), 'Bearer');
    }
    const ok = await initialize({ Authorization: `Bearer ${TOKEN}`, Origin: `http://localhost:${new URL(server.url).port}` });
    assert.equal(ok.status, 200);
  });

  it('lets a client with the token call tools', async () => {
    const client = await connectHttp(server.url, 'legacy', { Authorization: `Bearer ${TOKEN}` });
    try {
      assert.match(okText(await client.callTool({ name: 'run_command', arguments: { command: 'echo token-ok' } })), /token-ok/);
    } finally {
      await client.close();
    }
  });
});
