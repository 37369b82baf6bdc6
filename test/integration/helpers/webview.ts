// What a webview shows, read from inside the extension host. No VS Code API reaches into a webview, so
// the runner (scripts/host/run.mjs) serves its playwright handle on the workbench page as a small HTTP
// endpoint (scripts/host/driver.mjs) and passes its address in TOR_TEST_DRIVER. Everything here is
// one POST to it. The frame is found by its document: the inspector's #app, showing `outputId`.
import * as assert from 'node:assert/strict';
import { scaled } from '../../unit/helpers/timeScale';

export interface FrameQuery {
  /** The output the inspector shows (its `.output-id`). */
  outputId?: string;
  /** An element the frame's document must have (default `#app`). */
  selector?: string;
}

/** What an element looks like as painted: pixels that differ from its background (png.mjs inkOf). */
export interface Ink {
  width: number;
  height: number;
  inkPixels: number;
  inkShare: number;
  background: string;
  colours: number;
}

export interface BrowserInfo {
  mode: 'xvfb' | 'headless';
  display?: string;
  version: string;
  viewport: { width: number; height: number } | null;
}

/** Whether this run has a driver (scripts/host/run.mjs provides one; other runners may not). */
export const hasDriver = (): boolean => !!process.env.TOR_TEST_DRIVER;

async function call<T>(op: string, request: Record<string, unknown> = {}): Promise<T> {
  const url = process.env.TOR_TEST_DRIVER;
  assert.ok(url, 'TOR_TEST_DRIVER is not set: the webview tests need the driver of scripts/host/run.mjs');
  const response = await fetch(url, { method: 'POST', body: JSON.stringify({ op, ...request }) });
  const reply = (await response.json()) as { ok: boolean; value?: T; error?: string };
  if (!reply.ok) throw new Error(`webview driver ${op}: ${reply.error}`);
  return reply.value as T;
}

export const browserInfo = (): Promise<BrowserInfo> => call('browser');

/** A whole-workbench screenshot into test/artifacts/host/<name>; returns its path. */
export const workbenchScreenshot = (name: string): Promise<string> => call('screenshot', { name });

/** One inspector webview, as the workbench shows it. */
export class Webview {
  /** How long each op waits for the frame and the element: `timeoutMs` (idle machine) × TEST_TIME_SCALE. */
  private readonly timeoutMs: number;

  constructor(
    readonly frame: FrameQuery,
    timeoutMs = 10_000,
  ) {
    this.timeoutMs = scaled(timeoutMs);
  }

  /** The rendered text (innerText) of the first element matching `selector`. */
  text(selector: string): Promise<string> {
    return call('text', { frame: this.frame, selector, timeoutMs: this.timeoutMs });
  }

  /** A real mouse click on the element's centre, or at `position` in it (CSS pixels from its top left; scrolled into view first). */
  async click(selector: string, position?: { x: number; y: number }): Promise<void> {
    await call('click', { frame: this.frame, selector, position, timeoutMs: this.timeoutMs });
  }

  async fill(selector: string, value: string): Promise<void> {
    await call('fill', { frame: this.frame, selector, value, timeoutMs: this.timeoutMs });
  }

  /** Focuses the element and presses `key` (playwright key names: Enter, Alt+PageDown…). */
  async press(selector: string, key: string): Promise<void> {
    await call('press', { frame: this.frame, selector, key, timeoutMs: this.timeoutMs });
  }

  async waitFor(selector: string, state: 'attached' | 'detached' | 'visible' | 'hidden' = 'visible'): Promise<void> {
    await call('waitFor', { frame: this.frame, selector, state, timeoutMs: this.timeoutMs });
  }

  /** Runs a function of scripts/host/probes.mjs, by name, in the webview's document. */
  probe<R>(name: string, arg?: unknown): Promise<R> {
    return call('probe', { frame: this.frame, name, arg, timeoutMs: this.timeoutMs });
  }

  /** The element's pixels as painted. */
  ink(selector: string): Promise<Ink> {
    return call('ink', { frame: this.frame, selector, timeoutMs: this.timeoutMs });
  }

  /** A screenshot of the element into test/artifacts/host/<name>; returns its path. */
  screenshot(name: string, selector: string): Promise<string> {
    return call('screenshot', { frame: this.frame, selector, name, timeoutMs: this.timeoutMs });
  }
}
