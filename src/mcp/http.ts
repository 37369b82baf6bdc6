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
 *   4. the bearer token, always (401 with `WWW-Authenticate: Bearer`), compared in constant time:
 *      every local user can connect to 127.0.0.1, and the tools run commands as the server's user.
 * Then the SDK's handler answers (both protocol eras; 2025-era requests statelessly, so every agent
 * connected shares the server's one session; bodies over 4 MiB get 413).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
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
  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      log.error(`http ${req.method} ${clip(req.url)}: ${describeError(error)}`);
      if (!res.headersSent) plain(res, 500, 'Internal error.');
      else res.destroy();
    });
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
    const aborted = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) aborted.abort();
    });
    const request = toWebRequest(req, host.header, aborted.signal);
    // The SDK's own checks as well (the Origin's is the only one here), in case its rules grow.
    const rejected =
      hostHeaderValidationResponse(request, localhostAllowedHostnames()) ?? originValidationResponse(request, localhostAllowedOrigins());
    if (rejected) {
      noteRefusal(rejected.status);
      return send(res, rejected);
    }
    if (target !== MCP_PATH) return plain(res, 404, `Not found: the MCP endpoint is ${MCP_PATH}.`);
    if (!bearerMatches(req.headers.authorization, options.bearer.token)) {
      res.setHeader('WWW-Authenticate', 'Bearer');
      return refusal(401, `Unauthorized: send "Authorization: Bearer <token>"; the token is ${options.bearer.where}.`);
    }
    return send(res, await handler.fetch(request));
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

function toWebRequest(req: IncomingMessage, host: string, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  return new Request(`http://${host}${req.url}`, {
    method: req.method,
    headers,
    signal,
    ...(hasBody ? { body: Readable.toWeb(req), duplex: 'half' } : {}),
  });
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
