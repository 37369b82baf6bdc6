/**
 * The JavaScript that runs in run_code's sandbox process, kept as source text so the sandbox needs
 * no extra file next to the bundle (`node -e`). Two pieces:
 *
 * - BOOTSTRAP_SOURCE runs INSIDE the program's vm context before the program. It builds `tools`,
 *   `console` and the request/response plumbing out of the context's own intrinsics, so no object or
 *   function of the outer realm is ever reachable from the program (an outer function's
 *   `.constructor.constructor('return process')()` would escape). It returns a handle that only the
 *   outer code holds; every handle function takes and returns primitives only.
 * - CHILD_SOURCE is the outer (host) side in the child's main realm: it creates the context, proves
 *   that `import()` fails with a context-realm error, compiles the program, forwards tool requests to
 *   the parent over IPC, and reports the outcome. It is strict mode on purpose: strict frames are
 *   hidden from V8's structured stack traces (`getFunction()`/`getThis()` give undefined).
 *
 * Plain JS in strings (not `fn.toString()` of TypeScript) because bundlers and tsx rewrite functions
 * (helpers such as `__name`) that would not exist in the child. The only substitutions are tool
 * names (plain identifiers, so they need no escaping in the strings and the regex they land in).
 */
import { RUN_CODE_TOOL, RUN_COMMAND_TOOL } from '../toolNames';

export const BOOTSTRAP_SOURCE = String.raw`'use strict';
(function (maxLogChars) {
  const g = globalThis;
  const P = Promise, Err = Error, TypeErr = TypeError, Str = String;
  const stringify = JSON.stringify, apply = Reflect.apply, then = Promise.prototype.then;
  const freeze = Object.freeze, define = Object.defineProperty, create = Object.create;
  // Binary buffers live outside the JS heap, so the heap limit would not bound them.
  const offHeap = ['ArrayBuffer', 'SharedArrayBuffer', 'DataView', 'Atomics', 'WebAssembly', 'Int8Array', 'Uint8Array',
    'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array',
    'BigInt64Array', 'BigUint64Array', 'Float16Array'];
  for (let i = 0; i < offHeap.length; i++) delete g[offHeap[i]];

  // Queues are null-prototype objects with own keys only: no inherited setter or getter can run.
  const requests = create(null), waiting = create(null);
  let head = 0, tail = 0, nextId = 1, logText = '', droppedLines = 0, probeState = 'pending', userFn;

  // The outcome as three strings (only primitives cross the realm): '' until the program settles.
  let side = '', kind = '', body = '';
  const settle = function (s, k, b) { side = s; kind = k; body = b; };

  const describe = function (e) {
    try {
      if (e instanceof Err) {
        const at = /${RUN_CODE_TOOL}\.js:(\d+)/.exec(Str(e.stack));
        return Str(e.name) + ': ' + Str(e.message) + (at ? ' (line ' + at[1] + ')' : '');
      }
      return 'a non-Error value: ' + (typeof e === 'string' ? stringify(e) : Str(e));
    } catch (_) { return 'a value that cannot be described'; }
  };
  const show = function (v) {
    if (typeof v === 'string') return v;
    if (v instanceof Err) return Str(v.stack || v);
    if (typeof v === 'function') return '[function]';
    if (typeof v === 'bigint') return Str(v) + 'n';
    try { const s = stringify(v); if (typeof s === 'string') return s; } catch (_) {}
    try { return Str(v); } catch (_) { return '[unprintable]'; }
  };
  const writer = function (prefix) {
    return function () {
      if (logText.length >= maxLogChars) { droppedLines++; return; }
      let line = prefix;
      for (let i = 0; i < arguments.length; i++) line += (i ? ' ' : '') + show(arguments[i]);
      line += '\n';
      const room = maxLogChars - logText.length;
      if (line.length > room) { line = line.slice(0, room) + '…\n'; }
      logText += line;
    };
  };

  const call = async function call(name, input) {
    if (typeof name !== 'string' || name === '') throw new TypeErr('tools.call(name, input): name must be a tool name such as "${RUN_COMMAND_TOOL}".');
    let json;
    try { json = input === undefined ? '{}' : stringify(input); } catch (e) { throw new TypeErr('tools.call(' + stringify(name) + ', input): input must be JSON-serialisable (' + describe(e) + ').'); }
    if (typeof json !== 'string') throw new TypeErr('tools.call(' + stringify(name) + ', input): input must be an object such as {"command": "ls"}.');
    const id = nextId++;
    const request = stringify([id, name, json]);
    const reply = await new P(function (resolve) { waiting[id] = resolve; requests[tail++] = request; });
    if (reply[0] === 'o') return reply.slice(1);
    throw new Err(reply.slice(1));
  };
  define(g, 'tools', { value: freeze({ call: call }), enumerable: true });
  define(g, 'console', { value: freeze({ log: writer(''), info: writer(''), debug: writer(''), warn: writer('[warn] '), error: writer('[error] ') }), enumerable: false });

  const onValue = function (v) {
    if (typeof v === 'string') { settle('done', 'string', v); return; }
    if (v === undefined) { settle('done', 'undefined', ''); return; }
    let s;
    try { s = stringify(v); } catch (e) {
      settle('error', 'return', 'The program returned a value that cannot be turned into JSON (' + describe(e) + '). Return a string, or plain data without cycles, BigInt or functions.');
      return;
    }
    if (typeof s !== 'string') { settle('error', 'return', 'The program returned a ' + typeof v + ', which has no text form. Return a string or plain data (objects, arrays, numbers).'); return; }
    settle('done', 'json', s);
  };
  const onError = function (e) { settle('error', 'thrown', describe(e)); };
  // The program starts from a microtask (no outer frame on its stack); the chain is built now, while
  // the intrinsics are still the originals.
  let kick;
  apply(then, apply(then, new P(function (resolve) { kick = resolve; }), [function () { return userFn(); }]), [onValue, onError]);

  return freeze({
    start: function (fn) {
      if (typeof fn !== 'function') { settle('error', 'syntax', 'The program did not compile to a function body.'); return; }
      userFn = fn; kick();
    },
    probe: function (p) {
      apply(then, p, [function () { probeState = 'resolved'; }, function (e) { probeState = e instanceof Err ? 'context' : 'foreign'; }]);
    },
    probeState: function () { return probeState; },
    importError: function () { return new Err('import() is not available in ${RUN_CODE_TOOL}: the program cannot load modules. Use tools.call(name, input) for anything outside the program.'); },
    nextRequest: function () {
      if (head === tail) return '';
      const r = requests[head]; delete requests[head]; head++;
      return r;
    },
    settle: function (id, ok, text) {
      const resolve = waiting[id];
      if (resolve === undefined) return;
      delete waiting[id];
      resolve((ok ? 'o' : 'e') + text);
    },
    takeLogs: function () { const t = logText; logText = ''; return t; },
    droppedLines: function () { return droppedLines; },
    outcomeSide: function () { return side; },
    outcomeKind: function () { return kind; },
    outcomeBody: function () { return body; },
  });
})`;

export const CHILD_SOURCE = String.raw`'use strict';
const vm = require('node:vm');
const send = (message) => { if (process.connected) process.send(message); };
// Never inspect what the program throws or rejects with: inspecting could run its code with outer
// objects as arguments. Unhandled rejections in the program are its own business.
process.on('unhandledRejection', () => {});
process.on('uncaughtException', () => { send({ t: 'error', kind: 'crashed', message: 'The sandbox failed unexpectedly.' }); process.exit(70); });
process.on('disconnect', () => process.exit(0));

const str = (v) => (typeof v === 'string' ? v : '');
let handle, running = false;

function compileError(error, fallback) {
  // A SyntaxError from compiling is an outer-realm error made by our own call: safe to read.
  const stack = String(error && error.stack);
  const at = /${RUN_CODE_TOOL}\.js:(\d+)/.exec(stack);
  const name = error && error.name ? String(error.name) : 'Error';
  const message = error && error.message ? String(error.message) : fallback;
  return name + ': ' + message + (at ? ' (line ' + at[1] + ')' : '');
}

function pump() {
  if (!running) return;
  for (let raw = str(handle.nextRequest()); raw !== ''; raw = str(handle.nextRequest())) {
    let request;
    try { request = JSON.parse(raw); } catch (_) { continue; }
    if (Array.isArray(request) && typeof request[0] === 'number' && typeof request[1] === 'string' && typeof request[2] === 'string') {
      send({ t: 'call', id: request[0], name: request[1], input: request[2] });
    }
  }
  const logs = str(handle.takeLogs());
  const dropped = handle.droppedLines();
  if (logs !== '') send({ t: 'log', text: logs });
  const side = str(handle.outcomeSide());
  if (side === '') return;
  running = false;
  const kind = str(handle.outcomeKind()), body = str(handle.outcomeBody());
  send({ t: 'droppedLogs', count: typeof dropped === 'number' ? dropped : 0 });
  send(side === 'done' ? { t: 'done', kind, value: body } : { t: 'error', kind, message: body });
}

function run(code, maxLogChars) {
  const context = vm.createContext(Object.create(null), { name: '${RUN_CODE_TOOL}', codeGeneration: { strings: false, wasm: false } });
  handle = vm.runInContext(${JSON.stringify(BOOTSTRAP_SOURCE)}, context)(maxLogChars);
  // Without a callback, import() rejects with an error of THIS realm (its constructor chain leads
  // to our Function); with one, the rejection is the context-realm error we throw.
  const importModuleDynamically = () => { throw handle.importError(); };
  const probe = new vm.Script('import("node:fs")', { filename: 'probe.js', importModuleDynamically }).runInContext(context);
  handle.probe(probe);
  let waits = 0;
  const afterProbe = () => {
    if (handle.probeState() === 'pending' && ++waits < 50) { setImmediate(afterProbe); return; }
    if (handle.probeState() !== 'context') {
      send({ t: 'error', kind: 'isolation', message: '${RUN_CODE_TOOL} is unavailable here: this runtime cannot keep import() inside the sandbox.' });
      return;
    }
    let script, fn;
    try {
      script = new vm.Script('(async function () {\n' + code + '\n})', { filename: '${RUN_CODE_TOOL}.js', lineOffset: -1, importModuleDynamically });
    } catch (error) {
      send({ t: 'error', kind: 'syntax', message: compileError(error, 'the program does not compile') });
      return;
    }
    try {
      // Only code that closes the wrapper early runs here; what it throws is the program's value,
      // so it is not inspected.
      fn = script.runInContext(context);
    } catch (_) {
      send({ t: 'error', kind: 'thrown', message: 'an error from code outside the function body (the program closes the wrapping function early)' });
      return;
    }
    running = true;
    handle.start(fn);
    // The program only advances in microtasks after start or a settled call, so a pump after each
    // is enough; the interval is a safety net for anything else that resumes it.
    setImmediate(pump);
    setInterval(pump, 25);
  };
  setImmediate(afterProbe);
}

// The parent kills us at the time limit, but an endless loop would outlive a parent that crashed
// (our own event loop, and so 'disconnect', never runs again). A watchdog thread kills this process
// when the parent is gone or long after the deadline.
const WATCHDOG = ${JSON.stringify(`'use strict';
const { workerData } = require('node:worker_threads');
const deadline = Date.now() + workerData.limitMs;
setInterval(() => {
  let parentAlive = true;
  try { process.kill(workerData.ppid, 0); } catch (error) { parentAlive = error.code === 'EPERM'; }
  if (!parentAlive || Date.now() > deadline) process.kill(process.pid, 'SIGKILL');
}, 500);`)};
function startWatchdog(limitMs) {
  const { Worker } = require('node:worker_threads');
  const watchdog = new Worker(WATCHDOG, { eval: true, workerData: { limitMs, ppid: process.ppid }, resourceLimits: { maxOldGenerationSizeMb: 8 } });
  watchdog.unref();
}

process.on('message', (message) => {
  if (!message || typeof message !== 'object') return;
  if (message.t === 'run' && !handle) {
    startWatchdog(Number(message.watchdogMs) || 60000);
    run(String(message.code), Number(message.maxLogChars) || 16384);
  }
  else if (message.t === 'result' && handle && running) {
    handle.settle(Number(message.id), message.ok === true, String(message.text));
    setImmediate(pump);
  }
});
`;
