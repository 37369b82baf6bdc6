// Spawn → initialize reply of the MCP server beside spawn → exit of `node -e 0` (the floor any Node
// server pays on this machine), interleaved so that load drifting during the run falls on both.
// Codex drops a server that has not answered within its start-up grace (1,000 ms by default), and
// Claude Code starts its first turn without waiting: the reply must come before the session opens.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'recall-bench', version: '1' } },
})}\n`;

function timeInitialize(server) {
  const scratch = mkdtempSync(path.join(tmpdir(), 'tor-bench-start-'));
  const t0 = performance.now();
  const child = spawn(process.execPath, [server, '--workspace', scratch, '--store', scratch], { stdio: ['pipe', 'pipe', 'ignore'] });
  child.stdin.write(INITIALIZE);
  return new Promise((resolve, reject) => {
    child.stdout.once('data', () => {
      const ms = performance.now() - t0;
      child.once('exit', () => (rmSync(scratch, { recursive: true, force: true }), resolve(ms)));
      child.stdin.end(); // a stdio server ends when its client closes stdin
    });
    child.once('error', reject);
  });
}

function timeNodeFloor() {
  const t0 = performance.now();
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  return new Promise((resolve) => child.once('exit', () => resolve(performance.now() - t0)));
}

/** `rounds` of each, alternating; returns both sample lists (ms). */
export async function measureStartup(server, rounds) {
  const samples = { initialize: [], floor: [] };
  for (let i = 0; i < rounds; i++) {
    samples.initialize.push(await timeInitialize(server));
    samples.floor.push(await timeNodeFloor());
  }
  return samples;
}
