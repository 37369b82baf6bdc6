// The HTTP front's request checks, sent as an attacker would, byte for byte over a socket: a request
// target or Host header that is not plain gets 400, a Host or Origin that is not this machine 403
// (DNS rebinding), a method but POST 405, a missing or wrong token 401, a body over 4 MiB 413; never
// a 500, and none of them runs the command it carries. Every request is a `tools/call` of run_command
// that would leave a marker file, so "refused" is proven by the marker's absence, not only by the
// status. Requests Node itself stops (CONNECT, a head over 16 KiB, one it cannot parse) get a plain
// status too, and a close the client can read it before, not a reset.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import * as path from 'node:path';
import { HTTP_TEST_TOKEN, ensureBuilt, startHttp } from '../unit/helpers/mcpServer';
import { useTempDirs } from '../unit/helpers/tempDirs';

interface RawAnswer {
  status: number;
  headers: string;
  contentType: string;
  body: string;
}

/**
 * Sends `head` (the request line and headers, without the blank line) and `body`, and reads the
 * answer to its end: the last chunk (the server's answers are chunked) or the server closing. The
 * socket is not half-closed first: a client that stops sending has gone, as far as the server
 * knows, and its running call is cancelled.
 */
function rawRequest(port: number, head: string[], body: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`${[...head, `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close'].join('\r\n')}\r\n\r\n${body}`);
    });
    let text = '';
    const done = () => {
      socket.destroy();
      const [headers, ...rest] = text.split('\r\n\r\n');
      const raw = rest.join('\r\n\r\n');
      resolve({
        status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(headers)?.[1] ?? 0),
        headers,
        contentType: /\r\ncontent-type: ([^\r]*)/i.exec(headers)?.[1] ?? '',
        body: /\r\ntransfer-encoding: chunked/i.test(headers) ? unchunk(raw) : raw,
      });
    };
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.endsWith('\r\n0\r\n\r\n')) done();
    });
    socket.on('error', reject);
    socket.on('close', done);
  });
}

/**
 * Sends `first`, then `more` as soon as a whole answer (as long as its Content-Length says) has come,
 * as a client still uploading its request would, and closes its side when the server has closed
 * its. Resolves when the connection is closed, with the answer and the socket's error if any: a
 * connection reset (ECONNRESET, EPIPE) is what a client sending on to a server that has gone sees.
 */
function sendOnAfterAnswer(port: number, first: string, more: string): Promise<RawAnswer & { error: string | undefined }> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () => socket.write(first));
    let text = '';
    let error: string | undefined;
    let sentMore = false;
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const [headers, ...rest] = text.split('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)/i.exec(headers)?.[1];
      if (!sentMore && length !== undefined && Buffer.byteLength(rest.join('\r\n\r\n')) >= Number(length)) {
        sentMore = true;
        socket.write(more);
      }
    });
    socket.on('end', () => socket.end());
    socket.on('error', (err: NodeJS.ErrnoException) => (error ??= err.code ?? err.message));
    socket.on('close', () => {
      const [headers, ...rest] = text.split('\r\n\r\n');
      resolve({
        status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(headers)?.[1] ?? 0),
        headers,
        contentType: /\r\ncontent-type: ([^\r]*)/i.exec(headers)?.[1] ?? '',
        body: rest.join('\r\n\r\n'),
        error,
      });
    });
  });
}

/** A chunked body's content: `<hex size>\r\n<data>\r\n`, up to the chunk of size 0. */
function unchunk(raw: string): string {
  let out = '';
  for (let at = 0; ;) {
    const eol = raw.indexOf('\r\n', at);
    const size = parseInt(raw.slice(at, eol), 16);
    if (!(size > 0)) return out;
    // Sizes count bytes; the bodies here are ASCII, so characters are bytes.
    out += raw.slice(eol + 2, eol + 2 + size);
    at = eol + 2 + size + 2;
  }
}

describe('mcp: HTTP request checks (Host, target, Origin, method, token, body size)', function () {
  this.timeout(120_000);
  const dirs = useTempDirs('mcp-http-checks');
  let server: Awaited<ReturnType<typeof startHttp>>;
  let port: number;
  let markers: string;
  before(async () => {
    await ensureBuilt();
    markers = dirs.make();
    server = await startHttp(['--workspace', dirs.make(), '--store', dirs.make()]);
    port = Number(new URL(server.url).port);
  });
  after(() => server.stop());

  let count = 0;
  /**
   * A tools/call of run_command (with the right token unless `headers` says otherwise) whose command
   * creates a marker; resolves with the answer and whether the command ran.
   */
  async function call(target: string, headers: string[], token: string | null = HTTP_TEST_TOKEN, method = 'POST') {
    const marker = path.join(markers, `ran-${++count}`);
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'run_command', arguments: { command: `echo ran > ${marker}` } },
    });
    const answer = await rawRequest(
      port,
      [
        `${method} ${target} HTTP/1.1`,
        ...headers,
        'Content-Type: application/json',
        'Accept: application/json, text/event-stream',
        ...(token === null ? [] : [`Authorization: Bearer ${token}`]),
      ],
      body,
    );
    return { ...answer, ran: existsSync(marker) };
  }

  it('accepts the plain forms of this machine, with and without a port, and a local Origin', async () => {
    for (const headers of [
      [`Host: localhost:${port}`],
      [`Host: 127.0.0.1:${port}`],
      [`Host: [::1]:${port}`],
      [`Host: LocalHost:${port}`],
      ['Host: localhost'],
      [`Host: localhost:${port}`, `Origin: http://localhost:${port}`],
      [`Host: 127.0.0.1:${port}`, `Origin: http://127.0.0.1:${port}`],
      [`Host: localhost:${port}`, `Origin: http://[::1]:${port}`],
    ]) {
      const answer = await call('/mcp', headers);
      assert.equal(answer.status, 200, `${headers.join(' | ')}: ${answer.body}`);
      assert.ok(answer.ran, headers.join(' | '));
    }
    assert.equal((await call('/mcp?x=1', [`Host: localhost:${port}`])).status, 200);
  });

  it('answers 400 with a plain message, never 500, to a target or Host that is not plain, and runs nothing', async () => {
    const host = `Host: localhost:${port}`;
    const cases: [string, string[], RegExp][] = [
      // Absolute-form and other non-path targets: a server, not a proxy.
      ['http://evil.com/mcp', [host], /the target must be a path on this server \(\/mcp\), not "http:\/\/evil\.com\/mcp"/],
      [`http://127.0.0.1:${port}/mcp`, [host], /the target must be a path/],
      ['//evil.com/mcp', [host], /the target must be a path/],
      ['*', [host], /the target must be a path/],
      // Userinfo, paths and other parts a Host never has; the URL parser would read some as another host.
      ['/mcp', ['Host: localhost@evil.com'], /the Host header must be a host name with an optional port; got "localhost@evil\.com"/],
      ['/mcp', [`Host: user:pass@localhost:${port}`], /the Host header must be/],
      ['/mcp', ['Host: localhost:80/x'], /got "localhost:80\/x"/],
      ['/mcp', ['Host: localhost/x'], /the Host header must be/],
      ['/mcp', ['Host: localhost?x'], /the Host header must be/],
      ['/mcp', ['Host: localhost#x'], /the Host header must be/],
      ['/mcp', ['Host: localhost\\x'], /the Host header must be/],
      ['/mcp', ['Host: local%68ost'], /the Host header must be/],
      ['/mcp', ['Host: local host'], /the Host header must be/],
      // Empty parts and bad ports.
      ['/mcp', ['Host: '], /the Host header must be a host name with an optional port; got ""/],
      ['/mcp', [`Host: :${port}`], /the Host header must be/],
      ['/mcp', ['Host: localhost:'], /the Host header must be/],
      ['/mcp', ['Host: localhost:99999'], /the Host header must be/],
      ['/mcp', ['Host: localhost:8o'], /the Host header must be/],
      ['/mcp', ['Host: localhost:-1'], /the Host header must be/],
      ['/mcp', [`Host: localhost:${port}:${port}`], /the Host header must be/],
      ['/mcp', [`Host: [::1`], /the Host header must be/],
      // Two of a header the checks read: Node would keep the first, a proxy in front perhaps the last.
      ['/mcp', [host, 'Host: evil.com'], /the Host header is sent more than once/],
      ['/mcp', [host, 'Origin: http://localhost', 'Origin: http://evil.com'], /the Origin header is sent more than once/],
      ['/mcp', [host, `Authorization: Bearer ${HTTP_TEST_TOKEN}`], /the Authorization header is sent more than once/],
    ];
    for (const [target, headers, message] of cases) {
      const answer = await call(target, headers);
      const what = `${target} ${headers.join(' | ')}`;
      assert.equal(answer.status, 400, `${what}: ${answer.body}`);
      assert.match(answer.contentType, /^text\/plain/, what);
      assert.match(answer.body, message, what);
      assert.equal(answer.ran, false, what);
    }
    // HTTP/1.0 may leave Host out (HTTP/1.1 without one is Node's own 400).
    const noHost = await rawRequest(port, ['POST /mcp HTTP/1.0', `Authorization: Bearer ${HTTP_TEST_TOKEN}`], '{}');
    assert.equal(noHost.status, 400);
    assert.match(noHost.body, /the Host header must be a host name with an optional port; got none/);
    assert.doesNotMatch(server.stderr(), /error: http/, 'no request ended in an internal error');
  });

  it('answers 403 to a Host or Origin that is not this machine (DNS rebinding), before the token is looked at', async () => {
    const cases: string[][] = [
      ['Host: evil.example'],
      [`Host: evil.example:${port}`],
      [`Host: localhost.evil.example:${port}`],
      [`Host: 127.0.0.1.nip.io:${port}`],
      [`Host: LOCALHOST.evil:${port}`],
      [`Host: 127.0.0.2:${port}`],
      [`Host: 0.0.0.0:${port}`],
      [`Host: 2130706433:${port}`],
      [`Host: [::ffff:127.0.0.1]:${port}`],
      [`Host: localhost:${port}`, 'Origin: http://evil.example'],
      [`Host: localhost:${port}`, `Origin: http://localhost.evil.example:${port}`],
      [`Host: localhost:${port}`, `Origin: http://127.0.0.1.nip.io:${port}`],
      [`Host: localhost:${port}`, 'Origin: https://localhost@evil.example'],
      [`Host: localhost:${port}`, 'Origin: null'],
      [`Host: localhost:${port}`, 'Origin: file://'],
    ];
    for (const headers of cases) {
      for (const token of [HTTP_TEST_TOKEN, null]) {
        const answer = await call('/mcp', headers, token);
        assert.equal(answer.status, 403, `${headers.join(' | ')} token ${token !== null}: ${answer.body}`);
        assert.equal(answer.ran, false, headers.join(' | '));
      }
    }
    assert.match(server.stderr(), /refused POST with Host "evil\.example:\d+" Origin none target "\/mcp" \(403\)/);
  });

  it('answers 401 with WWW-Authenticate and where the token is, without the token or with a wrong one', async () => {
    const host = `Host: localhost:${port}`;
    for (const headers of [
      [],
      ['Authorization: Bearer wrong-token-0123456789'],
      [`Authorization: ${HTTP_TEST_TOKEN}`],
      ['Authorization: Basic dXNlcjpwYXNz'],
    ]) {
      const answer = await call('/mcp', [host, ...headers], null);
      assert.equal(answer.status, 401, headers.join(' | '));
      assert.match(answer.headers, /\r\nWWW-Authenticate: Bearer\r\n/i);
      assert.match(
        answer.body,
        /^Unauthorized: send "Authorization: Bearer <token>"; the token is the server's TOOL_OUTPUT_RECALL_MCP_TOKEN\.\n$/,
      );
      assert.equal(answer.ran, false, headers.join(' | '));
    }
    const wrongCase = await call('/mcp', [host], HTTP_TEST_TOKEN.toUpperCase());
    assert.equal(wrongCase.status, 401);
  });

  it('answers 413 to a body over 4 MiB, declared or streamed', async () => {
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'run_command', arguments: { command: 'true', pad: 'x'.repeat(4 * 1024 * 1024) } },
    });
    const post = (body: RequestInit['body'], more: object = {}) =>
      fetch(server.url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          Authorization: `Bearer ${HTTP_TEST_TOKEN}`,
        },
        body,
        ...more,
      });
    const declared = await post(big);
    assert.equal(declared.status, 413);
    assert.match(await declared.text(), /Payload Too Large: Request body must not exceed 4194304 bytes/);
    // Without Content-Length (chunked): refused once 4 MiB have arrived.
    const streamed = await post(new Blob([big]).stream(), { duplex: 'half' });
    assert.equal(streamed.status, 413);
  });

  it('answers 405 with Allow: POST and a plain message to every method but POST (TRACE was a 500), with or without the token', async () => {
    const host = `Host: localhost:${port}`;
    for (const method of ['TRACE', 'GET', 'DELETE', 'PUT', 'PATCH', 'OPTIONS', 'HEAD']) {
      for (const token of [HTTP_TEST_TOKEN, null]) {
        const answer = await call('/mcp', [host], token, method);
        const what = `${method} token ${token !== null}`;
        assert.equal(answer.status, 405, `${what}: ${answer.body}`);
        assert.match(answer.headers, /\r\nAllow: POST\r\n/i, what);
        assert.match(answer.contentType, /^text\/plain/, what);
        // A HEAD answer has no body.
        assert.equal(answer.body, method === 'HEAD' ? '' : `Method not allowed: /mcp takes POST only, not "${method}".\n`, what);
        assert.equal(answer.ran, false, what);
      }
    }
    // The checks before the method's still come first, TRACE or not.
    assert.equal((await call('/mcp', ['Host: evil.example'], HTTP_TEST_TOKEN, 'TRACE')).status, 403);
    assert.equal((await call('/mcp', [host, 'Origin: http://evil.example'], HTTP_TEST_TOKEN, 'TRACE')).status, 403);
    assert.equal((await call('/other', [host], HTTP_TEST_TOKEN, 'TRACE')).status, 404);
    assert.doesNotMatch(server.stderr(), /error: http/, 'no request ended in an internal error');
  });

  it('answers CONNECT with 405 and a plain message before closing, instead of dropping the connection', async () => {
    for (const target of [`localhost:${port}`, 'evil.example:443', '/mcp']) {
      const answer = await rawRequest(port, [`CONNECT ${target} HTTP/1.1`, `Host: localhost:${port}`], '');
      assert.equal(answer.status, 405, `${target}: ${answer.headers}`);
      assert.match(answer.headers, /\r\nAllow: POST\r\n/i, target);
      assert.match(answer.contentType, /^text\/plain/, target);
      assert.equal(answer.body, 'Method not allowed: this server is not a proxy; it serves POST /mcp.\n', target);
    }
    assert.equal((await call('/mcp', [`Host: localhost:${port}`])).status, 200, 'still serving');
  });

  it('answers a 100 KB target or header with 431, and a request it cannot parse with 400, in plain text, without a reset while the client sends on', async () => {
    const host = `Host: localhost:${port}`;
    const rest = (line: string) => `${line}\r\n${host}\r\nContent-Length: 2\r\n\r\n{}`;
    const cases: [string, string, number, RegExp][] = [
      // The target alone is over Node's 16 KiB limit for the request line and headers; the rest of the request follows.
      [
        `POST /mcp?${'x'.repeat(100_000)}`,
        rest(' HTTP/1.1'),
        431,
        /^Request header fields too large: the request line and headers must fit in 16384 bytes; the MCP endpoint is POST \/mcp\.\n$/,
      ],
      [
        `POST /mcp HTTP/1.1\r\n${host}\r\nX-Pad: ${'x'.repeat(100_000)}`,
        '\r\nContent-Length: 2\r\n\r\n{}',
        431,
        /^Request header fields too large/,
      ],
      [
        'FOO /mcp HTTP/1.1\r\n',
        `${host}\r\n\r\n`,
        400,
        /^Bad request: not HTTP\/1\.1 this server can read \(HPE_INVALID_METHOD: Invalid method encountered\)\.\n$/,
      ],
      [`POST /mcp HTTP/1.1\r\n${host}\r\nContent-Length: x`, '\r\n\r\n{}', 400, /^Bad request: not HTTP\/1\.1 this server can read \(HPE_/],
    ];
    for (const [first, more, status, message] of cases) {
      const what = first.slice(0, 40);
      const answer = await sendOnAfterAnswer(port, first, more);
      assert.equal(answer.status, status, `${what}: ${answer.headers}`);
      assert.match(answer.contentType, /^text\/plain/, what);
      assert.match(answer.body, message, what);
      assert.match(answer.headers, /\r\nConnection: close(\r\n|$)/i, what);
      assert.equal(answer.error, undefined, `${what}: the connection was reset`);
    }
    assert.equal((await call('/mcp', [host])).status, 200, 'still serving');
    assert.doesNotMatch(server.stderr(), /error: http/, 'no request ended in an internal error');
  });

  it('closes a refused connection whose client never stops sending, once it has had its answer', async () => {
    const started = Date.now();
    const answer = await new Promise<{ text: string; closed: boolean }>((resolve) => {
      const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () => socket.write(`POST /mcp?${'x'.repeat(100_000)}`));
      // Sends on at a steady pace, never closing its side: only the server can end this.
      const pace = setInterval(() => socket.write('x'.repeat(16_384), () => undefined), 20);
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearInterval(pace);
        resolve({ text, closed: true });
      });
    });
    assert.ok(answer.closed);
    assert.match(answer.text, /^HTTP\/1\.1 431 [^]*\r\n\r\nRequest header fields too large/);
    assert.ok(Date.now() - started < 30_000, `closed after ${Date.now() - started} ms`);
  });

  it('closes without a status when an unparseable request follows, on one connection, a request not answered yet (a status would pass for its answer)', async () => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'run_command', arguments: { command: 'true' } },
    });
    const post = [
      'POST /mcp HTTP/1.1',
      `Host: localhost:${port}`,
      'Content-Type: application/json',
      'Accept: application/json, text/event-stream',
      `Authorization: Bearer ${HTTP_TEST_TOKEN}`,
      `Content-Length: ${Buffer.byteLength(body)}`,
    ].join('\r\n');
    // Both in one write: Node parses the second while the first's answer is still being made.
    const answer = await sendOnAfterAnswer(port, `${post}\r\n\r\n${body}FOO /mcp HTTP/1.1\r\n\r\n`, '');
    assert.equal(answer.headers, '', 'nothing written');
    assert.equal((await call('/mcp', [`Host: localhost:${port}`])).status, 200, 'still serving');
  });
});
