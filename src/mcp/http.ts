/**
 * `--http PORT`: MCP Streamable HTTP at http://127.0.0.1:PORT/mcp, for clients that connect to a
 * URL. Bound to 127.0.0.1 only. Every request first passes, in order:
 *   1. the request's form (400 otherwise, never a 500): an origin-form target (`/mcp?…`, not
 *      `http://host/mcp`, `*` or `//host/…`), exactly one Host, Origin and Authorization header, and a
 *      Host that is a host name with an optional port (no userinfo, path or empty parts);
 *   2. DNS rebinding protection: the Host header must name localhost, 127.0.0.1 or [::1], and an
 *      Origin header, when present, too (403) — a web page the user visits cannot reach the server
 *      through a DNS name that resolves to 127.0.0.1;
 *   3. the path: only /mcp (404 otherwise);
 *   4. the method: only POST (405 with `Allow: POST` otherwise). Served statelessly, the endpoint has
 *      no GET stream and no session to DELETE (the SDK answered those 405 too), and TRACE and TRACK are
 *      methods a fetch Request cannot carry, which made them a 500;
 *   5. the bearer token, always (401 with `WWW-Authenticate: Bearer`), compared in constant time:
 *      every local user can connect to 127.0.0.1, and the tools run commands as the server's user.
 * Then the SDK's handler answers (both protocol eras; 2025-era requests statelessly, so every agent
 * connected shares the server's one session; bodies over 4 MiB get 413).
 *
 * Two kinds of request never reach those checks, and get a plain answer before the connection closes:
 * CONNECT, which Node hands to the 'connect' event as a tunnel (405: no proxy here), and what Node's
 * parser refuses ('clientError'): 431 when the request line and headers pass Node's header limit
 * (16 KiB; a long target is the usual way), otherwise 400 (408 for a request too slow to arrive).
 * Node's own answers there are none (CONNECT) or a bare status line and a reset, which can lose even that.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, maxHeaderSize, STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable, type Duplex } from 'node:stream';
import {
  createMcpHandler,
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
  type McpServerFactory,
} from '@modelcontextprotocol/server';
import { describeError } from '../core/errors';
import type { Log } from './log';
import type { BearerToken } from './token';

export const MCP_PATH = '/mcp';

export interface HttpServer {
  readonly url: string;
  close(): Promise<void>;
}

export async function serveHttp(factory: McpServerFactory, options: { port: number; bearer: BearerToken }, log: Log): Promise<HttpServer> {
  const handler = createMcpHandler(factory, { onerror: (error) => log.warn(`http: ${describeError(error)}`) });
  /** Responses not finished yet, per connection: a parse error in a pipelined request must not be answered in their place. */
  const unfinished = new WeakMap<Duplex, number>();
  const server = createServer((req, res) => {
    const socket = req.socket;
    unfinished.set(socket, (unfinished.get(socket) ?? 0) + 1);
    res.once('close', () => unfinished.set(socket, (unfinished.get(socket) ?? 1) - 1));
    handle(req, res).catch((error) => {
      log.error(`http ${req.method} ${clip(req.url)}: ${describeError(error)}`);
      if (!res.headersSent) plain(res, 500, 'Internal error.');
      else res.destroy();
    });
  });
  // Without a 'connect' listener Node drops a CONNECT's connection without a word; a client deserves a status.
  server.on('connect', (_req: IncomingMessage, socket: Duplex) =>
    answerAndClose(socket, 405, `Method not allowed: this server is not a proxy; it serves POST ${MCP_PATH}.`, { Allow: 'POST' }),
  );
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // Node reports every further chunk of a refused connection again; it has its answer already.
    if (answered.has(socket)) return;
    // A client gone, or a response still owed on this connection, which a status written now would pass for: nothing to say.
    if (error.code === 'ECONNRESET' || !socket.writable || (unfinished.get(socket) ?? 0) > 0) {
      socket.destroy();
      return;
    }
    const [status, text] = clientErrorAnswer(error);
    answerAndClose(socket, status, text);
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const noteRefusal = (status: number) =>
      log.warn(
        `http: refused ${req.method} with Host ${clip(req.headers.host)} Origin ${clip(req.headers.origin)} target ${clip(req.url)} (${status})`,
      );
    const refusal = (status: number, text: string) => {
      noteRefusal(status);
      plain(res, status, text);
    };
    const target = originFormPath(req.url ?? '');
    if (target === undefined) {
      return refusal(400, `Bad request: the target must be a path on this server (${MCP_PATH}), not ${clip(req.url)}.`);
    }
    const repeated = repeatedHeader(req.rawHeaders);
    if (repeated) return refusal(400, `Bad request: the ${repeated} header is sent more than once.`);
    const host = parseHost(req.headers.host);
    if (host === undefined) {
      return refusal(400, `Bad request: the Host header must be a host name with an optional port; got ${clip(req.headers.host)}.`);
    }
    if (!LOCAL_HOSTS.has(host.name))
      return refusal(403, `Forbidden: the Host ${clip(host.name)} is not this machine (localhost, 127.0.0.1 or [::1]).`);
    const url = `http://${host.header}${req.url}`;
    const headers = webHeaders(req);
    // The SDK's own checks as well (the Origin's is the only one here), in case its rules grow. They
    // read only the headers, so they get them on a plain GET: `new Request` throws on TRACE, which
    // must reach the method check below with its Host and Origin checked like any other.
    const headersOnly = new Request(url, { headers });
    const rejected =
      hostHeaderValidationResponse(headersOnly, localhostAllowedHostnames()) ??
      originValidationResponse(headersOnly, localhostAllowedOrigins());
    if (rejected) {
      noteRefusal(rejected.status);
      return send(res, rejected);
    }
    if (target !== MCP_PATH) return plain(res, 404, `Not found: the MCP endpoint is ${MCP_PATH}.`);
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      return plain(res, 405, `Method not allowed: ${MCP_PATH} takes POST only, not ${clip(req.method)}.`);
    }
    if (!bearerMatches(req.headers.authorization, options.bearer.token)) {
      res.setHeader('WWW-Authenticate', 'Bearer');
      return refusal(401, `Unauthorized: send "Authorization: Bearer <token>"; the token is ${options.bearer.where}.`);
    }
    const aborted = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) aborted.abort();
    });
    return send(res, await handler.fetch(toWebRequest(req, url, headers, aborted.signal)));
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${MCP_PATH}`,
    async close() {
      await handler.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** The hosts that are this machine; a Host naming anything else is a page reaching us by DNS rebinding. */
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
/** Headers that must come once: Node keeps the first of repeated ones, which must not differ from what a proxy or the SDK would see. */
const SINGLE_HEADERS = new Map([
  ['host', 'Host'],
  ['origin', 'Origin'],
  ['authorization', 'Authorization'],
]);

/** The path of an origin-form target (`/mcp?x`), or undefined for absolute-form, authority-form, `*` and `//host/…`. */
function originFormPath(target: string): string | undefined {
  if (!target.startsWith('/') || target.startsWith('//')) return undefined;
  return target.split('?', 1)[0];
}

/**
 * A Host header that is `name[:port]`: a DNS name or IPv4 address (letters, digits, `.`, `-`, `_`)
 * or a bracketed IPv6 address, and a port of 1-5 digits up to 65535. Anything else (userinfo
 * `a@b`, a path `a/x`, an empty name or port, spaces) is undefined, so it never reaches the URL
 * parser, which would read `localhost@evil.com` as the host evil.com, and `new Request`, which throws on it.
 */
export function parseHost(header: string | undefined): { name: string; header: string } | undefined {
  if (header === undefined) return undefined;
  const match = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::(\d{1,5}))?$/.exec(header);
  if (!match || (match[2] !== undefined && Number(match[2]) > 65535)) return undefined;
  return { name: match[1].toLowerCase(), header };
}

function repeatedHeader(raw: readonly string[]): string | undefined {
  const seen = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    if (!SINGLE_HEADERS.has(name)) continue;
    if (seen.has(name)) return SINGLE_HEADERS.get(name);
    seen.add(name);
  }
  return undefined;
}

/** A header or target as a log line or answer may repeat it: quoted, and clipped when long. */
function clip(text: string | undefined): string {
  if (text === undefined) return 'none';
  return JSON.stringify(text.length > 100 ? `${text.slice(0, 100)}…` : text);
}

function webHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return headers;
}

/** The POST the method check let through, its body streamed to the SDK. */
function toWebRequest(req: IncomingMessage, url: string, headers: Headers, signal: AbortSignal): Request {
  return new Request(url, { method: 'POST', headers, signal, body: Readable.toWeb(req), duplex: 'half' });
}

/** Writes a fetch Response to the Node response, streaming its body (SSE streams stay open until done). */
async function send(res: ServerResponse, response: Response): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body) {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve));
    }
  }
  res.end();
}

/**
 * How long a connection answered by answerAndClose may go on sending: long enough for a client to
 * read the answer and close, not so long that one that never stops holds the connection.
 */
const LINGER_MS = 5_000;
/** Connections answered by answerAndClose. */
const answered = new WeakSet<Duplex>();

/**
 * Answers on a bare socket (a CONNECT's, or one whose request Node's parser refused), as plain() would,
 * and closes it. Closing a socket with bytes unread resets the connection, and a reset can reach the
 * client before it has read the answer, which is then lost (curl: "Connection reset by peer"); so
 * what the client still sends is read and dropped until it closes too, or LINGER_MS pass.
 */
function answerAndClose(socket: Duplex, status: number, text: string, headers: Record<string, string> = {}): void {
  answered.add(socket);
  const body = `${text}\n`;
  const fields = {
    ...headers,
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
  };
  const head = [`HTTP/1.1 ${status} ${STATUS_CODES[status]}`, ...Object.entries(fields).map(([name, value]) => `${name}: ${value}`)];
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
  socket.resume();
  const linger = setTimeout(() => socket.destroy(), LINGER_MS);
  socket.once('close', () => clearTimeout(linger));
}

/** The status and message for a request Node's parser refused (its error codes are llhttp's, `HPE_…`, or Node's own). */
function clientErrorAnswer(error: NodeJS.ErrnoException & { reason?: string }): [number, string] {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return [
        431,
        `Request header fields too large: the request line and headers must fit in ${maxHeaderSize} bytes; the MCP endpoint is POST ${MCP_PATH}.`,
      ];
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return [413, 'Content too large: the chunk extensions are too long.'];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'Request timeout: the request did not arrive whole in time.'];
    default:
      return [
        400,
        `Bad request: not HTTP/1.1 this server can read (${error.code ?? 'unknown'}${error.reason ? `: ${error.reason}` : ''}).`,
      ];
  }
}

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(`${text}\n`);
}

function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(.+)$/i.exec(header ?? '');
  if (!match) return false;
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(match[1].trim()), digest(token));
}
