// MCP round trip: what an agent outside VS Code pays to read a retained page through the server.
//
// `node bench/mcp.mjs` after a build (`npm run bench` runs it last). Options: `--reps=N` (≥ 100,
// default 600), `--strict` (exit 1 when the goal is missed), `--verbose`.
//
// One 1 MiB log-like output is retained twice: by `dist/mcp.js` (a `run_command` of `cat` over
// stdio, through the SDK client) and, in this process, by `openWorkerStore` from dist/core.js (the
// store the server itself uses). Then, interleaved read by read at the same random line starts:
//   subject   read_tool_output {outputId, offset, maxBytes: 4096} over stdio: the client's JSON-RPC,
//             the pipe, the server's input check and text, its store worker, and back;
//   baseline  WorkerStore.read(outputId, offset, 4096) in this process: the engine's read alone.
// Goal (issue 11): subject p50 ≤ 2 ms. The same round trip over Streamable HTTP is reported too
// (info: a 2025-era client is served statelessly, one server instance per request).
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { lineStarts, makeLogText, prng } from './lib/logtext.mjs';
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

const loadBefore = loadavg()[0];
const scratch = mkdtempSync(path.join(tmpdir(), 'tor-bench-mcp-'));
const text = makeLogText(1024 * 1024, 11);
writeFileSync(path.join(scratch, 'big.log'), text);
const starts = lineStarts(Buffer.from(text)).filter((offset) => offset < text.length - 8192);
const rand = prng(7);
const offsets = Array.from({ length: WARMUP + REPS }, () => starts[Math.floor(rand() * starts.length)]);

const args = ['--workspace', scratch, '--store', path.join(scratch, 'store')];
const textOf = (result) => result.content.map((block) => block.text).join('');

async function retainThroughServer(client) {
  const ran = textOf(await client.callTool({ name: 'run_command', arguments: { command: 'cat big.log' } }));
  const outputId = /retained as outputId "(out_[0-9a-f]+)"/.exec(ran)?.[1];
  if (!outputId) throw new Error(`run_command retained nothing: ${ran.slice(0, 300)}`);
  return outputId;
}

const readOverMcp = async (client, outputId, offset) => {
  const result = await client.callTool({ name: 'read_tool_output', arguments: { outputId, offset, maxBytes: 4096 } });
  if (result.isError) throw new Error(textOf(result));
};

async function startHttpServer() {
  const child = spawn(process.execPath, [SERVER, '--http', '0', ...args.slice(0, 2), '--store', path.join(scratch, 'store-http')], {
    stdio: ['ignore', 'ignore', 'pipe'],
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

const stdio = new Client({ name: 'recall-bench', version: '1' });
await stdio.connect(new StdioClientTransport({ command: process.execPath, args: [SERVER, ...args], stderr: 'ignore' }));
const http = await startHttpServer();
const httpClient = new Client({ name: 'recall-bench', version: '1' });
await httpClient.connect(new StreamableHTTPClientTransport(new URL(http.url)));
const store = await core.openWorkerStore({ dir: path.join(scratch, 'in-process') });

const samples = { stdio: [], http: [], inProcess: [] };
try {
  const stdioId = await retainThroughServer(stdio);
  const httpId = await retainThroughServer(httpClient);
  const { outputId: localId } = await store.retain(text, { tool: 'bench' });
  for (const [index, offset] of offsets.entries()) {
    // Rotate the order so no side always runs first after a pause.
    const steps = [
      ['stdio', () => readOverMcp(stdio, stdioId, offset)],
      ['inProcess', () => store.read(localId, offset, 4096)],
      ['http', () => readOverMcp(httpClient, httpId, offset)],
    ];
    for (let k = 0; k < steps.length; k++) {
      const [name, run] = steps[(index + k) % steps.length];
      const t0 = performance.now();
      await run();
      if (index >= WARMUP) samples[name].push(performance.now() - t0);
    }
  }
} finally {
  await stdio.close();
  await httpClient.close();
  await http.stop();
  await store.close();
  rmSync(scratch, { recursive: true, force: true });
}

const base = median(samples.inProcess);
const rows = [
  [
    'read_tool_output 4 KiB over stdio',
    fmtMs(median(samples.stdio)),
    fmtMs(p95(samples.stdio)),
    fmtMs(base),
    fmtRatio(median(samples.stdio) / base),
    `p50 ≤ ${GOAL_MS} ms`,
    median(samples.stdio) <= GOAL_MS ? 'PASS' : 'FAIL',
  ],
  [
    '  the same over HTTP (info)',
    fmtMs(median(samples.http)),
    fmtMs(p95(samples.http)),
    fmtMs(base),
    fmtRatio(median(samples.http) / base),
    'info',
    '',
  ],
  ['  in-process WorkerStore.read 4 KiB', fmtMs(base), fmtMs(p95(samples.inProcess)), '-', '-', 'baseline', ''],
];
process.stdout.write(
  `\nMCP round trip — node ${process.version}, ${cpus().length} cores, load average ${loadBefore.toFixed(1)} → ${loadavg()[0].toFixed(1)}, ` +
    `${REPS} reads each after ${WARMUP} warm-up, interleaved\n\n`,
);
process.stdout.write(`${table(['benchmark', 'subject p50', 'p95', 'baseline p50', 'ratio', 'target', 'ok'], rows)}\n`);
process.stdout.write(
  '\n* subject: SDK client → `node dist/mcp.js` over stdio → read_tool_output (input check, page text, store worker) → back; ' +
    'baseline: WorkerStore.read in this process on a copy of the same 1 MiB output, at the same random line starts.\n',
);
if (verbose) process.stdout.write(`${JSON.stringify(samples)}\n`);
if (strict && median(samples.stdio) > GOAL_MS) process.exit(1);
