/**
 * `--http PORT`: MCP Streamable HTTP at http://127.0.0.1:PORT/mcp, for clients that connect to a
 * URL. Bound to 127.0.0.1 only. Every request first passes, in order:
 *   1. the path: only /mcp (404 otherwise);
 *   2. DNS rebinding protection: the Host header must name localhost, 127.0.0.1 or [::1], and an
 *      Origin header, when present, too (403) — a web page the user visits cannot reach the server
 *      through a DNS name that resolves to 127.0.0.1;
 *   3. the bearer token, when one is set (401 with `WWW-Authenticate: Bearer`), compared in constant time.
 * Then the SDK's handler answers (both protocol eras; 2025-era requests statelessly, so every agent
 * connected shares the server's one session).
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

export const MCP_PATH = '/mcp';

export interface HttpServer {
  readonly url: string;
  close(): Promise<void>;
}

export async function serveHttp(factory: McpServerFactory, options: { port: number; token?: string }, log: Log): Promise<HttpServer> {
  const handler = createMcpHandler(factory, { onerror: (error) => log.warn(`http: ${describeError(error)}`) });
  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      log.error(`http ${req.method} ${req.url}: ${describeError(error)}`);
      if (!res.headersSent) plain(res, 500, 'Internal error.');
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (new URL(req.url ?? '/', 'http://127.0.0.1').pathname !== MCP_PATH)
      return plain(res, 404, `Not found: the MCP endpoint is ${MCP_PATH}.`);
    const aborted = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) aborted.abort();
    });
    const request = toWebRequest(req, aborted.signal);
    const rejected =
      hostHeaderValidationResponse(request, localhostAllowedHostnames()) ?? originValidationResponse(request, localhostAllowedOrigins());
    if (rejected) {
      log.warn(`http: refused ${req.method} with Host ${JSON.stringify(req.headers.host)} Origin ${JSON.stringify(req.headers.origin)}`);
      return send(res, rejected);
    }
    if (options.token !== undefined && !bearerMatches(req.headers.authorization, options.token)) {
      res.setHeader('WWW-Authenticate', 'Bearer');
      return plain(res, 401, 'Unauthorized: send "Authorization: Bearer <token>" with the token the server was started with.');
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

function toWebRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  return new Request(`http://${req.headers.host ?? '127.0.0.1'}${req.url ?? '/'}`, {
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
