// MCP round trip: what an agent outside VS Code pays to read a retained page through the server.
//
// `node bench/mcp.mjs` after a build (`npm run bench` runs it last). Options: `--reps=N` (≥ 100,
// default 600), `--strict` (exit 1 when a goal is missed), `--verbose`.
//
// One 1 MiB log-like output is retained twice: by `dist/mcp.js` (a `run_command` of `cat` over
// stdio, through the SDK client) and, in this process, by `openWorkerStore` from dist/core.js (the
// store the server itself uses). Then, interleaved in blocks of 25 calls, at the same offsets:
//   subject   read_tool_output {outputId, offset, maxBytes: 4096} over stdio: the client's JSON-RPC,
//             the pipe, the server's input check and text, its store worker, and back;
//   baseline  WorkerStore.read(outputId, offset, 4096) in this process: the engine's read alone;
// for two access patterns: paging (each offset the previous page's nextOffset, as a model pages) and
// random line starts (a jump to a search hit; most miss the store's decoded-chunk cache). Also, for
// information: the same over Streamable HTTP (a 2025-era client is served statelessly, one server
// instance per request) and the SDK's ping over stdio, the protocol's floor.
// Goal (issue 11): the stdio round trip's p50 ≤ 2 ms. Start-up (issue 31, bench/lib/startup.mjs):
// spawn → initialize reply and → first tools/list reply ≤ 1.2× spawn → exit of `node -e 0` in the
// same run; SIGINT → exit of an idle server ≤ 100 ms.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { lineStarts, makeLogText, prng } from './lib/logtext.mjs';
import { measureStartup } from './lib/startup.mjs';
import { fmtMs, fmtRatio, median, p95, table } from './lib/stats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.dirname(here);
const require = createRequire(import.meta.url);
const core = require('../dist/core.js');
const SERVER = path.join(root, 'dist/mcp.js');

const argv = process.argv.slice(2);
const option = (name, fallback) => Number(argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback);
const REPS = Math.max(100, option('reps', 600));
const WARMUP = 50;
const strict = argv.includes('--strict');
const verbose = argv.includes('--verbose');
const GOAL_MS = 2;
const STARTUP_GOAL_RATIO = 1.2;
const SIGINT_GOAL_MS = 100;
const STARTUP_ROUNDS = 15;
const PAGE = 4096;

const loadBefore = loadavg()[0];
const scratch = mkdtempSync(path.join(tmpdir(), 'tor-bench-mcp-'));
const text = makeLogText(1024 * 1024, 11);
writeFileSync(path.join(scratch, 'big.log'), text);
const starts = lineStarts(Buffer.from(text)).filter((offset) => offset < text.length - 2 * PAGE);
const rand = prng(7);
const randomOffsets = Array.from({ length: WARMUP + REPS }, () => starts[Math.floor(rand() * starts.length)]);

const textOf = (result) => result.content.map((block) => block.text).join('');

async function retainThroughServer(client) {
  const ran = textOf(await client.callTool({ name: 'run_command', arguments: { command: 'cat big.log' } }));
  const outputId = /retained as outputId "(out_[0-9a-f]+)"/.exec(ran)?.[1];
  if (!outputId) throw new Error(`run_command retained nothing: ${ran.slice(0, 300)}`);
  return outputId;
}

async function readOverMcp(client, outputId, offset) {
  const result = await client.callTool({ name: 'read_tool_output', arguments: { outputId, offset, maxBytes: PAGE } });
  if (result.isError) throw new Error(textOf(result));
}

// The HTTP server always needs a bearer token; the client sends it, as agents do, from the environment's value.
const TOKEN = randomBytes(32).toString('base64url');

async function startHttpServer() {
  const child = spawn(process.execPath, [SERVER, '--http', '0', '--workspace', scratch, '--store', path.join(scratch, 'store-http')], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, TOOL_OUTPUT_RECALL_MCP_TOKEN: TOKEN },
  });
  let stderr = '';
  const url = await new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const match = /serving MCP at (\S+\/mcp)/.exec(stderr);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`the HTTP server exited with ${code}: ${stderr}`)));
  });
  return { url, stop: () => new Promise((resolve) => (child.once('exit', resolve), child.kill('SIGTERM'))) };
}

/**
 * Runs every step `rounds` times, interleaved in blocks of BLOCK calls (a block per step in turn, the
 * order rotated per block): each side runs warm, as an agent's consecutive calls do, and machine load
 * that drifts during the run falls on both sides alike. Keeps the samples after the warm-up.
 */
const BLOCK = 25;
async function interleaved(rounds, steps, samples) {
  for (let start = 0, block = 0; start < rounds; start += BLOCK, block++) {
    for (let k = 0; k < steps.length; k++) {
      const [name, run] = steps[(block + k) % steps.length];
      for (let index = start; index < Math.min(rounds, start + BLOCK); index++) {
        const t0 = performance.now();
        await run(index);
        if (index >= WARMUP) (samples[name] ??= []).push(performance.now() - t0);
      }
    }
  }
}

const startup = await measureStartup(SERVER, STARTUP_ROUNDS);
const stdio = new Client({ name: 'recall-bench', version: '1' });
await stdio.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: [SERVER, '--workspace', scratch, '--store', path.join(scratch, 'store')],
    stderr: 'ignore',
  }),
);
const http = await startHttpServer();
const httpClient = new Client({ name: 'recall-bench', version: '1' });
await httpClient.connect(
  new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }),
);
const store = await core.openWorkerStore({ dir: path.join(scratch, 'in-process') });

const paging = {};
const random = {};
try {
  const stdioId = await retainThroughServer(stdio);
  const httpId = await retainThroughServer(httpClient);
  const { outputId: localId } = await store.retain(text, { tool: 'bench' });
  // Let the three stores' background checkpoints of the fresh copy finish: reads are timed, not saves.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  // The paging offsets: the chain of nextOffsets from 0, wrapping at the end.
  const pageOffsets = [];
  for (let offset = 0; pageOffsets.length < WARMUP + REPS;) {
    pageOffsets.push(offset);
    const page = await store.read(localId, offset, PAGE);
    offset = page.hasMore ? page.nextOffset : 0;
  }
  await interleaved(
    WARMUP + REPS,
    [
      ['stdio', (i) => readOverMcp(stdio, stdioId, pageOffsets[i])],
      ['inProcess', (i) => store.read(localId, pageOffsets[i], PAGE)],
      ['http', (i) => readOverMcp(httpClient, httpId, pageOffsets[i])],
      ['ping', () => stdio.ping()],
    ],
    paging,
  );
  await interleaved(
    WARMUP + REPS,
    [
      ['stdio', (i) => readOverMcp(stdio, stdioId, randomOffsets[i])],
      ['inProcess', (i) => store.read(localId, randomOffsets[i], PAGE)],
      ['http', (i) => readOverMcp(httpClient, httpId, randomOffsets[i])],
    ],
    random,
  );
} finally {
  await stdio.close();
  await httpClient.close();
  await http.stop();
  await store.close();
  rmSync(scratch, { recursive: true, force: true });
}

const rows = [];
const missed = [];
for (const [pattern, samples] of [
  ['paging', paging],
  ['random line starts', random],
]) {
  const base = median(samples.inProcess);
  const subject = median(samples.stdio);
  const pass = subject <= GOAL_MS;
  if (!pass) missed.push(pattern);
  rows.push(
    [
      `read_tool_output 4 KiB over stdio, ${pattern}`,
      fmtMs(subject),
      fmtMs(p95(samples.stdio)),
      fmtMs(base),
      fmtRatio(subject / base),
      `p50 ≤ ${GOAL_MS} ms`,
      pass ? 'PASS' : 'FAIL',
    ],
    [
      '  over HTTP (info)',
      fmtMs(median(samples.http)),
      fmtMs(p95(samples.http)),
      fmtMs(base),
      fmtRatio(median(samples.http) / base),
      'info',
      '',
    ],
    ['  in-process WorkerStore.read (baseline)', fmtMs(base), fmtMs(p95(samples.inProcess)), '-', '-', 'baseline', ''],
  );
}
{
  // Issue 31: the handshake answers within 1.2× Node's own start; an idle server exits within 100 ms of SIGINT.
  const floor = median(startup.floor);
  for (const [label, samples] of [
    ['spawn → initialize reply', startup.initialize],
    ['spawn → first tools/list reply', startup.toolsList],
  ]) {
    const subject = median(samples);
    const pass = subject <= STARTUP_GOAL_RATIO * floor;
    if (!pass) missed.push(label);
    rows.push([
      `${label} (${STARTUP_ROUNDS} starts)`,
      fmtMs(subject),
      fmtMs(p95(samples)),
      fmtMs(floor),
      fmtRatio(subject / floor),
      `≤ ${STARTUP_GOAL_RATIO}× baseline`,
      pass ? 'PASS' : 'MISS',
    ]);
  }
  rows.push(['  spawn → exit of node -e 0 (baseline)', fmtMs(floor), fmtMs(p95(startup.floor)), '-', '-', 'baseline', '']);
  const sigint = median(startup.sigint);
  if (sigint > SIGINT_GOAL_MS) missed.push('SIGINT exit');
  rows.push([
    'SIGINT → exit, idle server with its session open',
    fmtMs(sigint),
    fmtMs(p95(startup.sigint)),
    '-',
    '-',
    `≤ ${SIGINT_GOAL_MS} ms`,
    sigint <= SIGINT_GOAL_MS ? 'PASS' : 'MISS',
  ]);
}
rows.push(['ping over stdio (info: the protocol floor)', fmtMs(median(paging.ping)), fmtMs(p95(paging.ping)), '-', '-', 'info', '']);

process.stdout.write(
  `\nMCP round trip — node ${process.version}, ${cpus().length} cores, load average ${loadBefore.toFixed(1)} → ${loadavg()[0].toFixed(1)}, ` +
    `${REPS} reads per pattern and side after ${WARMUP} warm-up, interleaved in blocks of ${BLOCK}\n\n`,
);
process.stdout.write(`${table(['benchmark', 'subject p50', 'p95', 'baseline p50', 'ratio', 'target', 'ok'], rows)}\n`);
process.stdout.write(
  '\n* subject: SDK client → `node dist/mcp.js` over stdio → read_tool_output (input check, page text, store worker) → back; ' +
    'baseline: WorkerStore.read in this process on a copy of the same 1 MiB output at the same offsets. ' +
    'Paging follows nextOffset from 0 (wrapping); random line starts mostly miss the 8-chunk decoded cache, on both sides.\n',
);
if (verbose) process.stdout.write(`${JSON.stringify({ paging, random })}\n`);
if (strict && missed.length > 0) process.exit(1);
