// The HTTP front's request checks, sent as an attacker would, byte for byte over a socket: a request
// target or Host header that is not plain gets 400, a Host or Origin that is not this machine 403
// (DNS rebinding), a missing or wrong token 401, a body over 4 MiB 413; never a 500, and none of them
// runs the command it carries. Every request is a `tools/call` of run_command that would leave a
// marker file, so "refused" is proven by the marker's absence, not only by the status.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import * as path from 'node:path';
import { HTTP_TEST_TOKEN, ensureBuilt, startHttp } from './helpers/mcpServer';
import { useTempDirs } from './helpers/tempDirs';

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

describe('mcp: HTTP request checks (Host, target, Origin, token, body size)', function () {
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
  async function call(target: string, headers: string[], token: string | null = HTTP_TEST_TOKEN) {
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
        `POST ${target} HTTP/1.1`,
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
});
