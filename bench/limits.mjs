// Concurrent work against the MCP server (issue 21, item 6): how many children it runs at once and
// how much memory it holds when a client sends many run_command calls at the same time.
//
// `node bench/limits.mjs` after a build. Options: `--server=PATH` (another dist/mcp.js, e.g. a build
// of an older commit), `--only=children,memory`, `--children=N` (default 200), `--outputs=N`
// (default 60), `--output-mb=N` (default 40).
//
//   children  N concurrent `run_command {command: "sleep 2"}` over stdio through the SDK client; the
//             server's live child processes (its own, found by parent pid in /proc) sampled every
//             20 ms: the peak.
//   memory    N concurrent run_command calls each printing M MB; the server's peak RSS (VmHWM, the
//             kernel's high-water mark of the whole process, store worker included) and its RSS
//             two seconds after the last call answered.
// Linux only (it reads /proc). Not part of `npm test`: it measures, it does not pass or fail.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const argv = process.argv.slice(2);
const arg = (name, fallback) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const SERVER = path.resolve(arg('server', path.join(root, 'dist/mcp.js')));
const only = arg('only', 'children,memory').split(',');
const CHILDREN = Number(arg('children', 200));
const OUTPUTS = Number(arg('outputs', 60));
const OUTPUT_MB = Number(arg('output-mb', 40));

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const textOf = (result) => result.content.map((block) => block.text).join('');

/** Pids whose parent is `pid` (read from /proc/N/stat; processes that vanish mid-scan are skipped). */
function childrenOf(pid) {
  const found = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) found.push(Number(name));
    } catch {
      /* gone */
    }
  }
  return found;
}

/** VmRSS and VmHWM of a process, in MiB. */
function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)[1]) / 1024;
  return { rss: field('VmRSS'), hwm: field('VmHWM') };
}

async function startServer() {
  const workspace = mkdtempSync(path.join(tmpdir(), 'tor-bench-limits-'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER, '--workspace', workspace, '--store', path.join(workspace, '.store')],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => (stderr += chunk.toString()));
  const client = new Client({ name: 'bench-limits', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    pid: transport.pid,
    stderr: () => stderr,
    async close() {
      await client.close();
      rmSync(workspace, { recursive: true, force: true });
    },
  };
}

/** Calls run_command `count` times at once (no client-side timeout) and samples `sample()` until all answered. */
async function concurrently(client, count, command, sample) {
  let done = false;
  const sampler = (async () => {
    while (!done) {
      sample();
      await sleep(20);
    }
  })();
  const started = Date.now();
  const results = await Promise.all(
    Array.from({ length: count }, () =>
      client.callTool({ name: 'run_command', arguments: { command } }, { timeout: 3_600_000 }).then(
        (result) => ({ ok: !result.isError, text: textOf(result) }),
        (error) => ({ ok: false, text: String(error) }),
      ),
    ),
  );
  done = true;
  await sampler;
  return { results, seconds: (Date.now() - started) / 1000 };
}

function summarise(results) {
  const failed = results.filter((r) => !r.ok);
  const queued = results.filter((r) => /^queued /m.test(r.text)).length;
  return `${results.length - failed.length} answered ok, ${failed.length} failed${failed.length ? ` (first: ${failed[0].text.slice(0, 200)})` : ''}, ${queued} said they were queued`;
}

console.log(`server ${path.relative(process.cwd(), SERVER) || SERVER}; load average ${loadavg()[0].toFixed(2)}`);

if (only.includes('children')) {
  const server = await startServer();
  let peak = 0;
  const run = await concurrently(server.client, CHILDREN, 'sleep 2', () => {
    peak = Math.max(peak, childrenOf(server.pid).length);
  });
  console.log(
    `children: ${CHILDREN} concurrent run_command "sleep 2": peak ${peak} live children of the server; ${run.seconds.toFixed(1)} s; ${summarise(run.results)}`,
  );
  await server.close();
}

if (only.includes('memory')) {
  const server = await startServer();
  const before = memoryOf(server.pid);
  let peakRss = 0;
  const bytes = OUTPUT_MB * 1_000_000;
  const run = await concurrently(server.client, OUTPUTS, `yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c ${bytes}`, () => {
    peakRss = Math.max(peakRss, memoryOf(server.pid).rss);
  });
  await sleep(2000);
  const after = memoryOf(server.pid);
  console.log(
    `memory: ${OUTPUTS} concurrent run_command of ${OUTPUT_MB} MB each: RSS before ${before.rss.toFixed(0)} MiB, ` +
      `peak ${after.hwm.toFixed(0)} MiB (VmHWM; sampled ${peakRss.toFixed(0)}), after ${after.rss.toFixed(0)} MiB; ${run.seconds.toFixed(1)} s; ${summarise(run.results)}`,
  );
  await server.close();
}
