// A preload (`node --import <this file>?out=<file> dist/mcp.js …`) that records what our MCP server
// receives and sends, byte for byte with times, without changing either: stdin chunks as they are
// emitted, stdout and stderr writes, over HTTP each request's body chunks and each response's writes,
// and each stop cue (a signal, stdin's end) with the process's end. The suite reads the record
// (measure.mjs) to compare what the server sent with what the model received, and how it was stopped.
// The clients' configuration files stay as docs/agents.md writes them: a `node` on PATH (see clients.mjs)
// adds this preload when it starts the server. It writes synchronously so nothing is lost at a kill.
import { appendFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';

const out = new URL(import.meta.url).searchParams.get('out');
if (out) {
  const record = (entry) => appendFileSync(out, `${JSON.stringify({ t: performance.timeOrigin + performance.now(), ...entry })}\n`);
  const text = (chunk, encoding) =>
    typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString(typeof encoding === 'string' ? encoding : 'utf8');
  writeFileSync(out, '');
  record({ kind: 'start', spawnedAt: performance.timeOrigin, pid: process.pid, argv: process.argv.slice(1) });

  const write = process.stdout.write;
  process.stdout.write = function (chunk, ...rest) {
    record({ kind: 'stdout', data: text(chunk, rest[0]) });
    return write.call(this, chunk, ...rest);
  };
  // Its log lines (e.g. "hook: retained … as out_…"), which the clients keep in places of their own or nowhere.
  const writeErr = process.stderr.write;
  process.stderr.write = function (chunk, ...rest) {
    record({ kind: 'stderr', data: text(chunk, rest[0]) });
    return writeErr.call(this, chunk, ...rest);
  };
  const emit = process.stdin.emit;
  process.stdin.emit = function (event, ...args) {
    if (event === 'data') record({ kind: 'stdin', data: text(args[0]) });
    else if (event === 'end') record({ kind: 'stop-cue', cue: 'stdin end' });
    return emit.call(this, event, ...args);
  };

  // How the client stopped this process and when it ended (measure.mjs: stopOf), recorded without a
  // signal listener of our own, which would change what a signal does. Node binds process.emit when the
  // server adds its listener, after this preload: the signals it handles pass through here.
  const processEmit = process.emit;
  process.emit = function (event, ...args) {
    if (event === 'SIGINT' || event === 'SIGTERM') record({ kind: 'stop-cue', cue: event });
    return processEmit.call(this, event, ...args);
  };
  // The front ends itself by its signal's default action (no 'exit' event then): the last thing it does.
  const kill = process.kill;
  process.kill = function (pid, signal, ...rest) {
    if (pid === process.pid) record({ kind: 'exit', by: signal ?? 'SIGTERM' });
    return kill.call(this, pid, signal, ...rest);
  };
  process.on('exit', (code) => record({ kind: 'exit', by: `exit ${code}` }));

  const ids = new WeakMap();
  let next = 0;
  const idOf = (message) => {
    if (!ids.has(message)) ids.set(message, ++next);
    return ids.get(message);
  };
  const requestEmit = http.IncomingMessage.prototype.emit;
  http.IncomingMessage.prototype.emit = function (event, ...args) {
    if (event === 'data') record({ kind: 'http-in', req: idOf(this), data: text(args[0]) });
    return requestEmit.call(this, event, ...args);
  };
  const serverEmit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (event, ...args) {
    if (event === 'request') {
      const [req, res] = args;
      const id = idOf(req);
      ids.set(res, id);
      record({ kind: 'http-request', req: id, method: req.method, url: req.url, auth: req.headers.authorization ? 'bearer' : 'none' });
    }
    return serverEmit.call(this, event, ...args);
  };
  const resWrite = http.ServerResponse.prototype.write;
  http.ServerResponse.prototype.write = function (chunk, ...rest) {
    if (chunk != null) record({ kind: 'http-out', req: idOf(this), data: text(chunk, rest[0]) });
    return resWrite.call(this, chunk, ...rest);
  };
  const resEnd = http.ServerResponse.prototype.end;
  http.ServerResponse.prototype.end = function (chunk, ...rest) {
    if (chunk != null && typeof chunk !== 'function') record({ kind: 'http-out', req: idOf(this), data: text(chunk, rest[0]) });
    record({ kind: 'http-end', req: idOf(this), status: this.statusCode });
    return resEnd.call(this, chunk, ...rest);
  };
}
