/**
 * Browser test harness: real headless Chromium (Debian's, through playwright-core) loads the BUILT
 * inspector bundle in the exact HTML shell the extension uses (same CSP and nonce rule), from a
 * local HTTP server. A panel double stands in for VS Code: `acquireVsCodeApi()` with a
 * getState/setState persisted in this process across reloads (as VS Code persists it), and the
 * REAL host handler (`InspectorSession`) answering over postMessage against the REAL engine.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { promises as fs } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { inspectorHtml } from '../../src/extension/inspector/html';
import { InspectorSession, type InspectorActions, type InspectorHost } from '../../src/extension/inspector/requestHandler';
import type { RecallStore } from '../../src/core/types';
import type { L10nBundle } from '../../webview/protocol';
import { BODY_CLASS, themeCss, type ThemeName } from './themes';
import { scaled, TIME_SCALE } from '../unit/helpers/timeScale';

export const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export interface HarnessOptions {
  bundleDir: string;
  artifactsDir: string;
  grep?: string;
}

export interface TestContext {
  browser: Browser;
  server: TestServer;
  artifactsDir: string;
  log(message: string): void;
}

type TestFn = (ctx: TestContext) => Promise<void>;
const cases: { file: string; name: string; fn: TestFn }[] = [];
const afters: (() => Promise<void>)[] = [];
let currentFile = '';

export function test(name: string, fn: TestFn): void {
  cases.push({ file: currentFile, name, fn });
}

/** Runs after every test of the run (closing stores, removing temp folders). */
export function after(fn: () => Promise<void>): void {
  afters.push(fn);
}

// ---------------------------------------------------------------------------------------------
// The HTTP server: the inspector shell per panel, the bundle, theme stylesheets; anything else is a
// 404 and is recorded, so a test can prove the page asked for nothing it should not have.

export class TestServer {
  private readonly server: Server;
  private readonly panels = new Map<string, PanelDouble>();
  readonly unexpected: string[] = [];
  origin = '';

  constructor(private readonly bundleDir: string) {
    this.server = createServer((req, res) => void this.serve(req, res));
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  register(id: string, panel: PanelDouble): void {
    this.panels.set(id, panel);
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.origin);
    const send = (status: number, type: string, body: string | Buffer): void => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    const panel = url.pathname.startsWith('/panel/') ? this.panels.get(url.pathname.slice(7)) : undefined;
    if (panel) return send(200, 'text/html; charset=utf-8', panel.html(this.origin));
    const theme = /^\/theme\/(dark|light|high-contrast)\.css$/.exec(url.pathname);
    if (theme) return send(200, 'text/css', themeCss(theme[1] as ThemeName));
    const asset = /^\/dist\/(inspector\.(js|css))$/.exec(url.pathname);
    if (asset) return send(200, asset[2] === 'js' ? 'text/javascript' : 'text/css', await fs.readFile(path.join(this.bundleDir, asset[1])));
    if (url.pathname !== '/favicon.ico') this.unexpected.push(url.href);
    send(404, 'text/plain', 'not found');
  }
}

// ---------------------------------------------------------------------------------------------
// The panel double.

export interface OpenOptions {
  store: RecallStore;
  outputId: string;
  offset?: number;
  theme?: ThemeName;
  viewport?: { width: number; height: number };
  /** The display language and its bundle, handed over in the page as the extension does (html.ts). */
  language?: string;
  bundle?: L10nBundle;
  /** The output's session as the extension names it, and its switch (an earlier session's banner). */
  sessionHost?: Pick<InspectorHost, 'sessionId' | 'origin' | 'switchSession'>;
}

let panelCount = 0;

export class PanelDouble {
  readonly id = `p${++panelCount}`;
  readonly requests: string[] = [];
  readonly errors: string[] = [];
  readonly actions: { action: string; args: unknown[] }[] = [];
  /** What the webview last passed to setState (VS Code keeps it across reloads). */
  state: unknown = undefined;
  session!: InspectorSession;
  page!: Page;
  private nonce = '';

  private constructor(
    private readonly ctx: TestContext,
    private readonly options: OpenOptions,
  ) {}

  static async open(ctx: TestContext, options: OpenOptions): Promise<PanelDouble> {
    const panel = new PanelDouble(ctx, options);
    ctx.server.register(panel.id, panel);
    panel.page = await ctx.browser.newPage({ viewport: options.viewport ?? { width: 1400, height: 900 } });
    const page = panel.page;
    // playwright's waits (30 s unless a test says) are deadlines for things that take milliseconds
    // here: generous on an idle machine, ×TEST_TIME_SCALE on a slow or busy one.
    page.setDefaultTimeout(scaled(30_000));
    page.on('request', (request) => panel.requests.push(request.url()));
    page.on('pageerror', (error) => panel.errors.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') panel.errors.push(`console: ${message.text()}`);
    });
    // tsx compiles these tests with esbuild's keepNames, which wraps functions passed to
    // page.evaluate in a `__name` helper that only exists in Node; give the page a no-op one.
    await page.addInitScript('window.__name = (fn) => fn;');
    // Registered before the bundle's own listener, so tests can time a reply's arrival.
    await page.addInitScript("window.addEventListener('message', () => { window.__lastMessageAt = performance.now(); });");
    await page.exposeFunction('__torPost', (message: unknown) => panel.session.handle(message));
    await page.exposeFunction('__torSetState', (state: unknown) => {
      panel.state = state;
    });
    panel.session = panel.newSession(options.outputId, options.offset);
    await page.goto(`${ctx.server.origin}/panel/${panel.id}`);
    await panel.ready();
    return panel;
  }

  private newSession(outputId: string, offset?: number): InspectorSession {
    const record = (action: string, ...args: unknown[]): void => {
      this.actions.push({ action, args });
    };
    const actions: InspectorActions = {
      copyText: async (text, what) => record('copyText', text, what),
      openInEditor: async (outputId, line) => record('openInEditor', outputId, line),
      saveAs: async (outputId) => {
        record('saveAs', outputId);
        return true;
      },
    };
    return new InspectorSession(
      {
        store: async () => this.options.store,
        post: (message) => {
          void this.page.evaluate((m) => window.postMessage(m, '*'), message).catch(() => undefined);
        },
        previewBytes: () => 24576,
        actions,
        log: (level, message) => {
          if (level === 'error') this.errors.push(`host: ${message}`);
        },
        ...this.options.sessionHost,
      },
      outputId,
      offset,
    );
  }

  /** Like a window reload: the panel is rebuilt by the serializer from the state the webview saved. */
  async reload(): Promise<void> {
    const outputId = (this.state as { outputId?: string } | undefined)?.outputId;
    if (!outputId) throw new Error('the webview saved no state to restore from');
    this.session = this.newSession(outputId);
    await this.page.reload();
    await this.ready();
  }

  /** Waits until the first page (or an error state) is on screen. */
  async ready(): Promise<void> {
    await this.page.waitForFunction(() => document.getElementById('app')?.getAttribute('aria-busy') === 'false', undefined, {
      timeout: scaled(30_000),
    });
    await this.page.waitForFunction(
      () => {
        const text = document.querySelector<HTMLElement>('.page-text');
        return !!text && (text.dataset.offset !== undefined || text.querySelector('.unreadable') !== null);
      },
      undefined,
      { timeout: scaled(30_000) },
    );
  }

  html(origin: string): string {
    this.nonce = Buffer.from(`${this.id}-${Date.now()}-${Math.random()}`).toString('base64');
    const shell = inspectorHtml({
      cspSource: origin,
      scriptUri: `${origin}/dist/inspector.js`,
      styleUri: `${origin}/dist/inspector.css`,
      nonce: this.nonce,
      language: this.options.language,
      bundle: this.options.bundle,
    });
    const theme = this.options.theme ?? 'dark';
    const state = JSON.stringify(this.state ?? null).replace(/</g, '\\u003c');
    // Before the bundle: what VS Code's webview host provides (API, theme class, theme variables).
    const double = `<link rel="stylesheet" href="${origin}/theme/${theme}.css">
<script nonce="${this.nonce}">
(() => {
  let state = ${state};
  let acquired = false;
  window.__cspViolations = [];
  document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));
  document.body.classList.add('${BODY_CLASS[theme]}');
  document.body.dataset.vscodeThemeKind = '${BODY_CLASS[theme]}';
  window.acquireVsCodeApi = () => {
    if (acquired) throw new Error('An instance of the VS Code API has already been acquired');
    acquired = true;
    return Object.freeze({
      postMessage: (message) => window.__torPost(JSON.parse(JSON.stringify(message))),
      getState: () => (state === null ? undefined : JSON.parse(JSON.stringify(state))),
      setState: (next) => { state = JSON.parse(JSON.stringify(next)); window.__torSetState(state); return next; },
    });
  };
})();
</script>
`;
    return shell.replace(`<script nonce="${this.nonce}" src=`, `${double}<script nonce="${this.nonce}" src=`);
  }

  async close(): Promise<void> {
    await this.page.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Runner.

export async function runAll(files: string[], options: HarnessOptions): Promise<{ passed: number; failed: number; failures: string[] }> {
  for (const file of files) {
    currentFile = path.basename(file);
    require(file);
  }
  const selected = cases.filter((c) => !options.grep || `${c.file} ${c.name}`.includes(options.grep));
  if (TIME_SCALE > 1)
    process.stdout.write(`  (deadlines ×${TIME_SCALE}: TEST_TIME_SCALE, the machine as scripts/test-all.mjs measured it)\n`);
  const server = new TestServer(options.bundleDir);
  await server.start();
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  let passed = 0;
  let failed = 0;
  const failures: string[] = [];
  try {
    for (const c of selected) {
      const started = Date.now();
      const ctx: TestContext = { browser, server, artifactsDir: options.artifactsDir, log: (m) => process.stdout.write(`      ${m}\n`) };
      process.stdout.write(`  ${c.file} › ${c.name}\n`);
      try {
        await c.fn(ctx);
        passed++;
        process.stdout.write(`    ✓ passed (${Date.now() - started} ms)\n`);
      } catch (error) {
        failed++;
        failures.push(`${c.file} › ${c.name}: ${String((error as Error)?.message ?? error).split('\n')[0]}`);
        process.stdout.write(`    ✗ FAILED: ${(error as Error)?.stack ?? String(error)}\n`);
      }
    }
  } finally {
    for (const fn of afters) await fn().catch(() => undefined);
    await browser.close().catch(() => undefined);
    await server.stop();
  }
  return { passed, failed, failures };
}
