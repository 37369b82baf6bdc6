// The handshake dist/mcp.js answers before its server has loaded (src/mcp/handshake.ts, front.ts), from
// the built entry beside a server bundle that never finishes loading. Each answer compared with the
// server's own, in process: test/unit/mcpHandshake.test.ts.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { handshakeData } from '../../src/mcp/server';
import { ENVELOPE, initialize, INITIALIZED, request, type Message } from '../unit/helpers/mcpHandshake';
import { waitUntil } from '../unit/helpers/mochaRun';
import { useTempDirs } from '../unit/helpers/tempDirs';
import { MCP_BUNDLE, ensureBuilt } from '../unit/helpers/mcpServer';

describe('MCP handshake answered before the server loads', function () {
  const dirs = useTempDirs('mcp-handshake');

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
