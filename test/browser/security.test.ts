/**
 * Output is text, never markup: `<script>`, `<img onerror>`, `javascript:` links, stylesheets,
 * OSC 8 hyperlinks and friends in a command's output render as inert text — no request leaves the
 * page, no script runs, no element is created from them — in the preview, the pages, search
 * results, and in raw mode.
 */
import assert from 'node:assert/strict';
import { PanelDouble, test, type TestContext } from './harness';
import { tempStore } from './fixtures';
import { assertNoErrors, navigate, shownPage } from './helpers';
import { scaled } from '../unit/helpers/timeScale';

function hostileOutput(origin: string): string {
  const lines = [
    '<script>window.__pwned = "script"</script>',
    '<img src="x" onerror="window.__pwned=\'img\'">',
    `<img src="${origin}/leak/img.png">`,
    '<a href="javascript:window.__pwned=\'link\'">click me</a>',
    `<link rel="stylesheet" href="${origin}/leak/style.css">`,
    `<style>@import url(${origin}/leak/import.css); body { display: none }</style>`,
    `<iframe src="${origin}/leak/frame"></iframe>`,
    '<svg onload="window.__pwned=\'svg\'"><use href="#x"/></svg>',
    `\x1b]8;;${origin}/leak/osc8\x1b\\an OSC 8 hyperlink\x1b]8;;\x1b\\`,
    '\x1b[31mred text\x1b[0m \x1b]0;window title\x07after-title \x1b[2Jcleared?',
    'bidi: \u202Ereversed\u202C end',
    '</div></span><div id="injected">x</div>',
    '{{constructor.constructor("window.__pwned=\'template\'")()}}',
  ];
  const block = `${lines.join('\n')}\n`;
  // Big enough to be cut by the preview, so both its head and tail hold the hostile lines.
  return block.repeat(Math.ceil(80_000 / block.length));
}

async function assertInert(panel: PanelDouble, origin: string): Promise<void> {
  const page = panel.page;
  assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned), undefined, 'no script ran');
  const created = await page.evaluate(() =>
    [
      ...document.querySelectorAll(
        '#app script, #app img, #app a, #app link, #app style, #app iframe, #app svg, #app object, #app embed, #injected',
      ),
    ].map((e) => e.tagName),
  );
  assert.deepEqual(created, [], 'no element was created from the output');
  const allowed = [/\/panel\/p\d+$/, /\/dist\/inspector\.(js|css)$/, /\/theme\/[\w-]+\.css$/, /\/favicon\.ico$/];
  const stray = panel.requests.filter((url) => !allowed.some((re) => re.test(url)));
  assert.deepEqual(stray, [], 'no request besides the inspector itself');
  assert.ok(!panel.requests.some((url) => url.startsWith(`${origin}/leak`)));
  assert.deepEqual(
    await page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations),
    [],
    'nothing was even attempted (no CSP violation)',
  );
}

test('hostile output renders as inert text (preview, pages, search, raw mode)', async (ctx: TestContext) => {
  const store = await tempStore();
  const origin = ctx.server.origin;
  const text = hostileOutput(origin);
  const { outputId } = await store.retain(text, {
    tool: 'run_command',
    title: '<b onmouseover="window.__pwned=1">cat evil.html</b>',
    extra: { exitCode: 0 },
  });
  const panel = await PanelDouble.open(ctx, { store, outputId });
  const page = panel.page;

  // The text is there, literally.
  const shown = await shownPage(page);
  assert.ok(shown.text.includes('<script>window.__pwned = "script"</script>'));
  assert.ok(shown.text.includes('<a href="javascript:window.__pwned=\'link\'">click me</a>'));
  assert.equal(await page.textContent('.title'), '<b onmouseover="window.__pwned=1">cat evil.html</b>');
  const preview = await page.textContent('.preview-text');
  assert.ok(preview?.includes('<img src="x" onerror="window.__pwned=\'img\'">'));

  // ANSI: colour kept as a class, every other sequence dropped, the OSC 8 link is plain text.
  assert.equal(await page.textContent('.page-text .fg1'), 'red text');
  assert.ok(shown.text.includes('an OSC 8 hyperlink'));
  assert.ok(!shown.text.includes('\x1b'), 'no escape character reaches the DOM');
  assert.ok(shown.text.includes('after-title cleared?'), 'title and clear-screen sequences are dropped');
  assert.ok(shown.text.includes('bidi: <U+202E>reversed<U+202C> end'), 'bidi overrides are made visible');

  // Interact: click the would-be link, hover the title, search for markup, open a result.
  await page.click('.page-text >> text=click me');
  await page.hover('.title');
  await page.fill('.search-input', '<img src=');
  await page.click('button:has-text("Search")');
  await page.waitForSelector('.search-result');
  assert.ok(((await page.textContent('.search-result .excerpt')) ?? '').includes('<img src='));
  await navigate(page, () => page.click('.search-result >> nth=3'));
  // Raw mode: escapes as symbols, still text.
  await page.click('button[aria-label="Show control characters"]');
  await page.waitForFunction(() => document.querySelector('.page-text')?.textContent?.includes('\u241b'));
  assert.equal(page.url().includes('/panel/'), true, 'no navigation happened');
  // Give any load a chance to be attempted. A wait on purpose: proving that nothing happens has no
  // condition to wait for. 300 ms on an idle machine, ×TEST_TIME_SCALE.
  await page.waitForTimeout(scaled(300));
  await assertInert(panel, origin);
  assertNoErrors(panel.errors);
  await panel.close();
});

test('a recorded hostile preview is inert too', async (ctx) => {
  const store = await tempStore();
  const origin = ctx.server.origin;
  const text = hostileOutput(origin);
  const preview = `${text.slice(0, 2000)}\n[... 1 bytes omitted: bytes [0, 1) of 1, lines 1-1 of 1 (1 lines).]\n<script>window.__pwned="preview"</script>`;
  const { outputId } = await store.retain(text, { tool: 'run_command', title: 'cat evil.html', extra: { preview } });
  const panel = await PanelDouble.open(ctx, { store, outputId });
  assert.ok((await panel.page.textContent('.preview-text'))?.includes('<script>window.__pwned="preview"</script>'));
  await assertInert(panel, origin);
  assertNoErrors(panel.errors);
  await panel.close();
});
