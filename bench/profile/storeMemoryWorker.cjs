// The store worker (dist/storeWorker.js, or TOR_BENCH_CORE's) with memory probes, for storeMemory.mjs.
// It logs, on stderr as JSON lines, this thread's process.memoryUsage() and the size of sql.js's
// WebAssembly memory whenever a reply leaves for a request of interest, plus the process's peak RSS
// since the previous probe (VmHWM, reset after each probe through /proc/self/clear_refs).
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync, writeFileSync } = require('node:fs');
const path = require('node:path');

/** sql.js's WebAssembly memories (exported by the module or handed to it), caught at instantiation. */
const memories = [];
const catchMemory = (result, imports) => {
  const instance = result.instance ?? result;
  for (const value of [...Object.values(instance.exports ?? {}), ...Object.values(imports?.env ?? {})])
    if (value instanceof WebAssembly.Memory && !memories.includes(value)) memories.push(value);
  return result;
};
const instantiate = WebAssembly.instantiate;
WebAssembly.instantiate = (source, imports) => instantiate(source, imports).then((result) => catchMemory(result, imports));

const statusKiB = (field) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync('/proc/self/status', 'utf8'))?.[1]);
const MiB = (bytes) => +(bytes / 1048576).toFixed(1);
const ops = new Map();

function probe(label) {
  const usage = process.memoryUsage();
  const line = {
    thread: workerData?.role === 'search' ? 'search' : 'store',
    probe: label,
    rssNow: MiB(usage.rss),
    rssPeakSinceLast: MiB(statusKiB('VmHWM') * 1024),
    heapUsed: MiB(usage.heapUsed),
    heapTotal: MiB(usage.heapTotal),
    external: MiB(usage.external),
    arrayBuffers: MiB(usage.arrayBuffers),
    wasm: memories.map((memory) => MiB(memory.buffer.byteLength)),
  };
  process.stderr.write(`${JSON.stringify(line)}\n`);
  try {
    writeFileSync('/proc/self/clear_refs', '5'); // resets VmHWM to the current RSS
  } catch {
    // not Linux, or not allowed: VmHWM stays the process's peak
  }
}

const post = parentPort.postMessage.bind(parentPort);
parentPort.postMessage = (message, transfer) => {
  const op = ops.get(message?.id);
  ops.delete(message?.id);
  if (op) probe(`${op} reply`);
  return post(message, transfer);
};
parentPort.on('message', (request) => {
  if (typeof request?.id === 'number' && typeof request.op === 'string') ops.set(request.id, request.op);
});
const role = workerData?.role === 'search' ? 'search' : 'store';
probe(`${role} worker start`);
require(
  path.join(process.env.TOR_BENCH_CORE ? path.dirname(process.env.TOR_BENCH_CORE) : path.join(__dirname, '../../dist'), 'storeWorker.js'),
);
