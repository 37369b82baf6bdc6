// Issue 40 §3: the window `npm start` opens is VS Code as a user gets it. scripts/start.mjs's own
// scratch folder, server options and URL start code-server (no smoke-test driver), and Debian's
// Chromium opens the window: the extension is active from its extensions folder (our view in the
// activity bar), and after Connect Other Agents… → Show Changes the Write/Cancel question shows as a
// notification a newcomer sees (under the tests' driver option VS Code shows none: they all go to
// the bell). A screenshot of it goes to test/artifacts/system/. Needs the real-host setup
// (scripts/host/setup.mjs) and a build; skipped without the setup.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { skipBecause } from '../unit/helpers/mochaRun';

const ROOT = path.resolve(__dirname, '../..');
const ARTIFACTS = path.join(ROOT, 'test', 'artifacts', 'system');

interface Host {
  node: string;
  codeServerEntry: string;
  chromium: string;
}
interface Scratch {
  scratch: string;
  workspace: string;
}
interface Server {
  server: ChildProcess;
  ready: Promise<number>;
  exited: Promise<unknown>;
}
interface Start {
  makeScratch(): Scratch;
  startServerOptions(d: Scratch): { env: NodeJS.ProcessEnv } & Record<string, unknown>;
  startUrl(port: number, folder: string): string;
}
interface Common {
  startCodeServer(host: Host, options: Record<string, unknown>): Server;
  stopCodeServer(s: Server): Promise<boolean>;
  processesOf(scratch: string): number[];
  killAll(pids: number[], signal: string): void;
  checkExtensionBuilt(): void;
  scaled(ms: number): number;
  CHROMIUM_ARGS: string[];
}

describe('npm start: the window shows VS Code as a user gets it', function () {
  this.timeout(300_000);
  let common: Common;
  let d: Scratch | undefined;
  let s: Server | undefined;
  let browser: { close(): Promise<void> } | undefined;

  before(async function () {
    const setup = (await import(path.join(ROOT, 'scripts/host/setup.mjs'))) as { hostPaths(): Host & { cache: string } };
    if (!existsSync(path.join(setup.hostPaths().cache, 'stamp.json'))) {
      return skipBecause(this, 'code-server is not installed yet (node scripts/host/setup.mjs; npm test installs it for the host suite)');
    }
    common = (await import(path.join(ROOT, 'scripts/host/common.mjs'))) as Common;
    common.checkExtensionBuilt();
  });

  after(async () => {
    await browser?.close().catch(() => undefined);
    if (s) await common.stopCodeServer(s);
    if (d) {
      common.killAll(common.processesOf(d.scratch), 'SIGKILL');
      rmSync(d.scratch, { recursive: true, force: true, maxRetries: 3 });
    }
  });

  it('loads the extension without the driver, and the question after Show Changes shows as a notification', async () => {
    const setup = (await import(path.join(ROOT, 'scripts/host/setup.mjs'))) as { hostPaths(): Host };
    const start = (await import(path.join(ROOT, 'scripts/start.mjs'))) as Start;
    const host = setup.hostPaths();
    d = start.makeScratch();
    // A home folder where Claude Code is found (its folder), so Connect checks it: the rest as start.mjs has it.
    const home = path.join(d.scratch, 'home');
    mkdirSync(path.join(home, '.claude'), { recursive: true });
    const options = start.startServerOptions(d);
    s = common.startCodeServer(host, { ...options, env: { ...options.env, HOME: home, TMPDIR: d.scratch } });
    const port = await s.ready;

    const { chromium } = await import('playwright-core');
    const launched = await chromium.launch({
      executablePath: host.chromium,
      headless: true,
      args: common.CHROMIUM_ARGS,
      env: { ...options.env, HOME: home, TMPDIR: d.scratch },
      timeout: common.scaled(60_000),
    });
    browser = launched;
    const page = await launched.newPage({ viewport: { width: 1400, height: 900 } });
    const wait = common.scaled(90_000);
    await page.goto(start.startUrl(port, d.workspace), { waitUntil: 'domcontentloaded', timeout: wait });

    // The extension is active: its view container in the activity bar (installed, not under development).
    await page.locator('.activitybar .action-item a[aria-label^="Tool Output Recall"]').first().waitFor({ timeout: wait });
    assert.equal(await page.locator('.monaco-workbench .window-title:has-text("Extension Development Host")').count(), 0);

    // The demo extension shows the workspace's README once the window is up: then the window is settled.
    await page.locator('.tabs-container .tab:has-text("README.md")').first().waitFor({ timeout: wait });

    // Connect Other Agents… from the Command Palette, as a person runs it.
    // (Focus first in the Explorer: the README's preview, a webview, keeps the keys it gets.)
    await page.locator('.part.sidebar .monaco-list').first().click();
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ timeout: wait });
    await input.fill('>Connect Other Agents');
    await page.locator('.quick-input-widget .monaco-list-row:has-text("Connect Other Agents")').first().waitFor({ timeout: wait });
    await page.keyboard.press('Enter');
    // The picker, Claude Code checked (found): accept it.
    await page.locator('.quick-input-widget .monaco-list-row:has-text("Claude Code")').first().waitFor({ timeout: wait });
    await page.keyboard.press('Enter');
    // The modal: Show Changes.
    await page.locator('.monaco-dialog-box .monaco-button:has-text("Show Changes")').click({ timeout: wait });
    // The question shows as a notification (a toast), not only in the bell.
    const toast = page.locator('.notifications-toasts .notification-toast:has-text("Write the changes shown to")');
    await toast.waitFor({ timeout: wait });
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'start-window-show-changes.png') });
    console.log(`    screenshot: ${path.join(ARTIFACTS, 'start-window-show-changes.png')}`);
    await toast.locator('.monaco-button:has-text("Cancel")').click({ timeout: wait });
    await toast.waitFor({ state: 'detached', timeout: wait });
    assert.ok(!existsSync(path.join(d.workspace, '.mcp.json')), 'Cancel wrote nothing');
  });
});
