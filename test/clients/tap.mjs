// A preload (`node --import <this file>?out=<file> dist/mcp.js …`) that records what our MCP server
// receives and sends, byte for byte with times, without changing either: stdin chunks as they are
// emitted, stdout and stderr writes, and over HTTP each request's body chunks and each response's writes. The
// suite reads the record (measure.mjs) to compare what the server sent with what the model received.
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
    return emit.call(this, event, ...args);
  };

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
