// Spawn → initialize reply and spawn → first tools/list reply of the MCP server, beside spawn → exit
// of `node -e 0` (the floor any Node server pays on this machine), interleaved so that load drifting
// during the run falls on all of them; and SIGINT → exit of an idle server with its session open.
// Codex drops a server that has not answered within its start-up grace (1,000 ms by default), and
// Claude Code starts its first turn without waiting: the answers must not wait for the server to load.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const line = (message) => `${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`;
const HANDSHAKE =
  line({
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'recall-bench', version: '1' } },
  }) +
  line({ method: 'notifications/initialized' }) +
  line({ id: 2, method: 'tools/list' });

function start(server) {
  const scratch = mkdtempSync(path.join(tmpdir(), 'tor-bench-start-'));
  const t0 = performance.now();
  // TMPDIR: the server announces itself to hooks there (its last start-up step), apart from any other server.
  const child = spawn(process.execPath, [server, '--workspace', scratch, '--store', scratch], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, TMPDIR: scratch },
  });
  const done = () => rmSync(scratch, { recursive: true, force: true });
  return { child, t0, done, scratch };
}

/** Resolves with the time each answer (by id) arrived after spawn. */
function answers(child, t0, ids) {
  const at = {};
  let buffered = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
        const id = JSON.parse(buffered.slice(0, end)).id;
        buffered = buffered.slice(end + 1);
        at[id] ??= performance.now() - t0;
      }
      if (ids.every((id) => at[id] !== undefined)) resolve(at);
    });
    child.once('error', reject);
  });
}

async function timeHandshake(server) {
  const { child, t0, done } = start(server);
  child.stdin.write(HANDSHAKE);
  const at = await answers(child, t0, [1, 2]);
  await new Promise((resolve) => {
    child.once('exit', resolve);
    child.stdin.end(); // a stdio server ends when its client closes stdin
  });
  done();
  return { initialize: at[1], toolsList: at[2] };
}

/** SIGINT → exit of a server whose session is open, that has finished starting (it has announced itself to hooks) and runs nothing. */
async function timeSigint(server) {
  const { child, done, scratch } = start(server);
  const runDir = path.join(scratch, `tool-output-recall-${process.getuid?.() ?? 0}`);
  const announced = () => existsSync(runDir) && readdirSync(runDir).some((name) => name.endsWith('.json'));
  while (!announced()) await new Promise((resolve) => setTimeout(resolve, 20));
  const t0 = performance.now();
  child.kill('SIGINT');
  await new Promise((resolve) => child.once('exit', resolve));
  const ms = performance.now() - t0;
  done();
  return ms;
}

function timeNodeFloor() {
  const t0 = performance.now();
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  return new Promise((resolve) => child.once('exit', () => resolve(performance.now() - t0)));
}

/** `rounds` of each, alternating; returns the sample lists (ms). */
export async function measureStartup(server, rounds) {
  const samples = { initialize: [], toolsList: [], floor: [], sigint: [] };
  for (let i = 0; i < rounds; i++) {
    const { initialize, toolsList } = await timeHandshake(server);
    samples.initialize.push(initialize);
    samples.toolsList.push(toolsList);
    samples.floor.push(await timeNodeFloor());
    samples.sigint.push(await timeSigint(server));
  }
  return samples;
}
