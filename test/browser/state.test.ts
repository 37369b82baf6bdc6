/**
 * The panel comes back after a window reload: VS Code rebuilds it through the serializer from the
 * state the webview saved with setState, and the webview restores its offset, page size, wrap and
 * search from getState. The double persists that state in the test process across a real reload.
 */
import assert from 'node:assert/strict';
import { PanelDouble, test, type TestContext } from './harness';
import { MiB, mixedCopy, tempStore } from './fixtures';
import { assertNoErrors, navigate, shownPage } from './helpers';
import { waitUntil } from '../unit/helpers/timeScale';

test('output, offset, page size, wrap and search survive a reload', async (ctx: TestContext) => {
  const store = await tempStore();
  const copy = mixedCopy(1 * MiB, 11);
  const { outputId } = await store.retain(copy.bytes, { tool: 'run_command', title: 'cat mixed.log' });
  const panel = await PanelDouble.open(ctx, { store, outputId });
  const { page } = panel;

  await page.fill('.input.size', '2048');
  await page.press('.input.size', 'Tab');
  await page.waitForFunction(() => {
    const v = document.querySelector('.page-text') as HTMLElement;
    return Number(v.dataset.nextOffset) - Number(v.dataset.offset) <= 2048;
  });
  await page.click('button[aria-label="Wrap long lines"]');
  await page.fill('.search-input', 'NEEDLE');
  await page.press('.search-input', 'Enter');
  await page.waitForSelector('.search-result');
  const moved = await navigate(page, () =>
    page.evaluate((v) => {
      const slider = document.querySelector('.slider') as HTMLInputElement;
      slider.value = String(v);
      slider.dispatchEvent(new Event('input', { bubbles: true }));
    }, 612_345),
  );
  assert.ok(moved.offset > 600_000);
  await page.waitForFunction(() => true);
  // setState reaches the "VS Code" side asynchronously. (Was: at most 50 × 50 ms; the assertion below says what arrived.)
  await waitUntil('setState with the new offset', () => (panel.state as { offset?: number })?.offset === moved.offset).catch(
    () => undefined,
  );
  assert.deepEqual(panel.state, {
    outputId,
    offset: moved.offset,
    pageBytes: 2048,
    wrap: false,
    search: { pattern: 'NEEDLE', regex: false, caseSensitive: false },
  });

  await panel.reload();
  const restored = await shownPage(page);
  assert.equal(restored.offset, moved.offset, 'offset restored');
  assert.equal(restored.text, moved.text, 'same page');
  assert.equal(await page.inputValue('.input.size'), '2048');
  assert.equal(await page.inputValue('.search-input'), 'NEEDLE');
  await page.waitForSelector('.search-result');
  assert.equal(await page.getAttribute('button[aria-label="Wrap long lines"]', 'aria-pressed'), 'false');
  assert.equal(await page.evaluate(() => document.querySelector('.page-text')!.classList.contains('nowrap')), true);

  // openOutput on an open panel with an offset moves it there.
  const target = copy.needles[0];
  panel.session.reveal(target);
  const revealed = await navigate(page, async () => undefined, target);
  assert.equal(revealed.offset, target);
  assertNoErrors(panel.errors);
  await panel.close();
});
