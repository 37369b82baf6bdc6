/**
 * The pager's requests to the host while the reader moves fast: the slider keeps at most one page
 * request in flight and sends only the latest position when it returns, and a page that arrives
 * after a newer navigation's is not shown (webview/pager.ts, `slide` and `fetch`).
 */
import assert from 'node:assert/strict';
import { PanelDouble, test, type TestContext } from './harness';
import { tempStore } from './fixtures';
import { assertNoErrors, navigate, shownPage, typeOffset } from './helpers';

/** ~190 KB of short ASCII lines: a few dozen pages, every offset a character boundary. */
const content = Array.from({ length: 20_000 }, (_, i) => `line ${i + 1}`).join('\n');

async function openCopy(ctx: TestContext): Promise<PanelDouble> {
  const store = await tempStore();
  const { outputId } = await store.retain(content, { tool: 'run_command', title: 'many lines' });
  return PanelDouble.open(ctx, { store, outputId });
}

test('a burst of slider moves sends two page requests, the first and the latest, and shows the latest', async (ctx) => {
  const panel = await openCopy(ctx);
  const { page } = panel;
  // The host handler of this panel, counted: the webview's messages reach it through this method.
  const methods: string[] = [];
  const handle = panel.session.handle.bind(panel.session);
  panel.session.handle = (message: unknown) => {
    methods.push(String((message as { method?: unknown }).method));
    return handle(message);
  };
  const positions = Array.from({ length: 30 }, (_, i) => 1000 + i * 5000);
  // A slider jump starts its page at the next line start (issue 29 item 7d): where the latest lands.
  const last = content.indexOf('\n', positions.at(-1)) + 1;
  // All in one task: no reply can come in between, whatever the machine's speed.
  const shown = await navigate(
    page,
    () =>
      page.evaluate((positions) => {
        const slider = document.querySelector('.slider') as HTMLInputElement;
        for (const position of positions) {
          slider.value = String(position);
          slider.dispatchEvent(new Event('input', { bubbles: true }));
        }
      }, positions),
    last,
  );
  assert.equal(shown.offset, last);
  assert.equal(methods.filter((m) => m === 'page').length, 2, `page requests: ${methods.join(', ')}`);
  assertNoErrors(panel.errors);
  await panel.close();
});

test('a page that arrives after a newer navigation has shown its page is dropped', async (ctx) => {
  const panel = await openCopy(ctx);
  const { page } = panel;
  // The host answers the next page request only when told to, the others at once.
  let release: (() => Promise<void>) | undefined;
  const held = new Promise<void>((heldNow) => {
    const handle = panel.session.handle.bind(panel.session);
    let holding = true;
    panel.session.handle = (message: unknown) => {
      if (!holding || (message as { method?: unknown }).method !== 'page') return handle(message);
      holding = false;
      heldNow();
      return new Promise<void>((answered) => {
        release = () => handle(message).then(answered);
      });
    };
  });
  await typeOffset(page, 50_000);
  await held;
  const newer = await navigate(page, () => typeOffset(page, 120_000), 120_000);
  assert.equal(newer.offset, 120_000);
  // The older page comes now, after the newer one: the webview must not go back to it.
  const before = await page.evaluate(() => (window as unknown as { __lastMessageAt: number }).__lastMessageAt);
  await release!();
  await page.waitForFunction((before) => (window as unknown as { __lastMessageAt: number }).__lastMessageAt > before, before);
  await page.evaluate(async () => {
    for (let i = 0; i < 5; i++) await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  });
  const after = await shownPage(page);
  assert.equal(after.offset, 120_000, 'the page of the newer navigation stays');
  assert.equal(after.text, newer.text);
  assert.equal(await page.inputValue('.input.offset'), '120000');
  assertNoErrors(panel.errors);
  await panel.close();
});
