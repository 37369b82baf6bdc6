// The webview driver: lets the integration tests, which run inside the extension host, read and click
// what the workbench page shows. No VS Code API reaches into a webview, but the runner holds the
// workbench page in playwright, so it serves a small HTTP endpoint on 127.0.0.1 and the tests call it
// (test/integration/helpers/webview.ts). Its address, with a random token as the path, reaches the
// extension host as TOR_TEST_DRIVER; anything without the token gets a 404.
//
// One request: POST <TOR_TEST_DRIVER> with JSON {op, frame?, selector?, …}; the reply is JSON
// {ok: true, value} or {ok: false, error}. A webview is found by `frame`: {selector?, outputId?}, the
// frames of the page whose document has an element matching `selector` (default `#app`, the
// inspector's root) and, with outputId, shows that output (its `.output-id`). Ops are listed in OPS.
/* global document -- the functions given to frame.evaluate run in the page */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { scaled } from './common.mjs';
import { inkOf } from './png.mjs';
import { PROBES } from './probes.mjs';

// How long an op waits for its frame and element unless the test says (the tests pass deadlines
// already scaled): a webview shows in well under a second on an idle machine; scaled like every
// deadline of the harness (TEST_TIME_SCALE, common.mjs).
const DEFAULT_TIMEOUT_MS = scaled(10_000);

// Runs in each frame: whether it is the webview asked for. Strings only in, JSON out.
function frameMatches([selector, outputId]) {
  if (!document.querySelector(selector)) return false;
  if (!outputId) return true;
  return [...document.querySelectorAll('.output-id')].some((e) => e.textContent === outputId);
}

// A frame that never gets a JavaScript context (a webview still loading, a hidden one) would make
// evaluate() wait forever: each frame gets this long to answer, then counts as not matching (and is
// asked again on the next round, until the op's deadline).
const FRAME_ANSWER_MS = scaled(1000);

function evaluateWithin(frame, fn, arg) {
  let timer;
  return Promise.race([
    frame.evaluate(fn, arg).catch(() => false),
    new Promise((resolve) => {
      timer = setTimeout(() => resolve(false), FRAME_ANSWER_MS);
    }),
  ]).finally(() => clearTimeout(timer));
}

export async function findFrame(page, query = {}, timeoutMs = DEFAULT_TIMEOUT_MS) {
  const selector = query.selector ?? '#app';
  const end = Date.now() + timeoutMs;
  for (;;) {
    const frames = page.frames().filter((f) => !f.isDetached());
    const answers = await Promise.all(frames.map((f) => evaluateWithin(f, frameMatches, [selector, query.outputId ?? ''])));
    const found = frames.filter((_, i) => answers[i] === true);
    if (found.length === 1) return found[0];
    if (found.length > 1) throw new Error(`${found.length} webview frames match ${JSON.stringify(query)}; make the query narrower`);
    if (Date.now() > end) throw new Error(`no webview frame matching ${JSON.stringify(query)} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Keeps screenshot names to plain file names inside the artifacts folder. */
function artifactPath(dir, name) {
  if (typeof name !== 'string' || !/^[\w.-]+\.png$/.test(name))
    throw new Error(`screenshot name must be a plain *.png file name, got ${JSON.stringify(name)}`);
  mkdirSync(dir, { recursive: true });
  return path.join(dir, name);
}

/** The part of a page-coordinates box inside the window, whole pixels; undefined when none is. */
function visibleClip(box, viewport) {
  if (!box || !viewport) return undefined;
  const x = Math.max(0, Math.ceil(box.x));
  const y = Math.max(0, Math.ceil(box.y));
  const right = Math.min(viewport.width, Math.floor(box.x + box.width));
  const bottom = Math.min(viewport.height, Math.floor(box.y + box.height));
  return right > x && bottom > y ? { x, y, width: right - x, height: bottom - y } : undefined;
}

// Each op gets (page, request, context) and returns a JSON-able value.
const OPS = {
  /** innerText of the first element matching `selector` (what is rendered, not textContent). */
  async text(page, r) {
    const frame = await findFrame(page, r.frame, r.timeoutMs);
    return (await frame.waitForSelector(r.selector, { timeout: r.timeoutMs ?? DEFAULT_TIMEOUT_MS })).innerText();
  },
  /** A real mouse click (playwright scrolls the element into view and clicks its centre, or `position` in it). */
  async click(page, r) {
    const frame = await findFrame(page, r.frame, r.timeoutMs);
    await frame.click(r.selector, { timeout: r.timeoutMs ?? DEFAULT_TIMEOUT_MS, ...(r.position ? { position: r.position } : {}) });
    return true;
  },
  async fill(page, r) {
    const frame = await findFrame(page, r.frame, r.timeoutMs);
    await frame.fill(r.selector, String(r.value), { timeout: r.timeoutMs ?? DEFAULT_TIMEOUT_MS });
    return true;
  },
  async press(page, r) {
    const frame = await findFrame(page, r.frame, r.timeoutMs);
    await frame.press(r.selector, String(r.key), { timeout: r.timeoutMs ?? DEFAULT_TIMEOUT_MS });
    return true;
  },
  /** Waits for `selector` to reach `state` (attached, detached, visible, hidden; default visible). */
  async waitFor(page, r) {
    const frame = await findFrame(page, r.frame, r.timeoutMs);
    await frame.waitForSelector(r.selector, { state: r.state ?? 'visible', timeout: r.timeoutMs ?? DEFAULT_TIMEOUT_MS });
    return true;
  },
  /** Runs a function of probes.mjs, by name, in the frame with one JSON argument; returns its JSON result. */
  async probe(page, r) {
    const probe = Object.hasOwn(PROBES, r.name) ? PROBES[r.name] : undefined;
    if (!probe) throw new Error(`unknown probe ${JSON.stringify(r.name)}; known: ${Object.keys(PROBES).join(', ')}`);
    const frame = await findFrame(page, r.frame, r.timeoutMs);
    return frame.evaluate(probe, r.arg ?? null);
  },
  /**
   * Pixels of the element as painted (see inkOf in png.mjs): tells a painted pane from an empty one.
   * Only the part inside the window counts (a document that scrolls as a whole can make an element
   * far taller than what is on screen); the element is not scrolled.
   */
  async ink(page, r) {
    const frame = await findFrame(page, r.frame, r.timeoutMs);
    const element = await frame.waitForSelector(r.selector, { state: 'attached', timeout: r.timeoutMs ?? DEFAULT_TIMEOUT_MS });
    const clip = visibleClip(await element.boundingBox(), page.viewportSize());
    if (!clip) throw new Error(`${r.selector} is not inside the window`);
    return inkOf(await page.screenshot({ clip, animations: 'disabled' }));
  },
  /** A PNG of the whole workbench (or of the visible part of `selector` in `frame`) under the artifacts folder. */
  async screenshot(page, r, context) {
    const file = artifactPath(context.artifactsDir, r.name);
    let clip;
    if (r.selector) {
      const frame = await findFrame(page, r.frame, r.timeoutMs);
      const element = await frame.waitForSelector(r.selector, { timeout: r.timeoutMs ?? DEFAULT_TIMEOUT_MS });
      clip = visibleClip(await element.boundingBox(), page.viewportSize());
      if (!clip) throw new Error(`${r.selector} is not inside the window`);
    }
    await page.screenshot({ path: file, clip, animations: 'disabled' });
    return file;
  },
  /** The frames that hold an inspector document, with the output each shows (for diagnostics). */
  async frames(page) {
    const out = [];
    for (const frame of page.frames()) {
      const shown = await frame
        .evaluate(() =>
          document.querySelector('#app') ? { title: document.title, outputId: document.querySelector('.output-id')?.textContent } : null,
        )
        .catch(() => null);
      if (shown) out.push({ ...shown, url: frame.url().slice(0, 200) });
    }
    return out;
  },
  /** How the browser runs: headless or headed (on which display), its version. */
  async browser(page, r, context) {
    return { ...context.browserInfo, viewport: page.viewportSize() };
  },
};

/**
 * Starts the endpoint. `page()` gives the workbench page once it exists (null before); ops wait
 * until it does. Returns { url, close() }.
 */
export async function startDriver({ page, artifactsDir, browserInfo, log = () => {} }) {
  const token = randomBytes(16).toString('hex');
  const context = { artifactsDir, browserInfo };
  const server = createServer((req, res) => {
    const reply = (status, body) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'POST' || req.url !== `/${token}`) return reply(404, { ok: false, error: 'not found' });
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (body += chunk));
    req.on('end', async () => {
      let request;
      try {
        request = JSON.parse(body);
      } catch {
        return reply(400, { ok: false, error: 'the request is not JSON' });
      }
      const op = Object.hasOwn(OPS, request?.op) ? OPS[request.op] : undefined;
      if (!op) return reply(400, { ok: false, error: `unknown op ${JSON.stringify(request?.op)}; known: ${Object.keys(OPS).join(', ')}` });
      const current = page();
      if (!current) return reply(503, { ok: false, error: 'the workbench page is not open yet' });
      const started = Date.now();
      try {
        reply(200, { ok: true, value: (await op(current, request, context)) ?? null });
        log(`driver ${request.op} ${request.selector ?? ''} ${Date.now() - started} ms`);
      } catch (error) {
        log(`driver ${request.op}: ${error.message.split('\n')[0]}`);
        reply(200, { ok: false, error: error.message });
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}/${token}`;
  return {
    url,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
