/**
 * Keyboard and accessibility: every control has an accessible name, the pager works from the
 * keyboard, and the page actions reach the host with the right arguments.
 */
import assert from 'node:assert/strict';
import { decodeUtf8 } from '../../src/core/utf8';
import { PanelDouble, test, type TestContext } from './harness';
import { MiB, mixedCopy, tempStore } from './fixtures';
import { assertNoErrors, navigate, shownPage } from './helpers';
import { waitUntil } from '../unit/helpers/timeScale';

test('controls have accessible names; the pager is keyboard-driven; actions reach the host', async (ctx: TestContext) => {
  const store = await tempStore();
  const copy = mixedCopy(MiB / 2, 3);
  const { outputId } = await store.retain(copy.bytes, { tool: 'run_command', title: 'cat half.log', extra: { exitCode: 0 } });
  const panel = await PanelDouble.open(ctx, { store, outputId });
  const { page } = panel;

  // Accessible names (aria-label, label[for], or text) for everything focusable.
  const unnamed = await page.evaluate(() => {
    const named = (e: Element): boolean => {
      if (e.getAttribute('aria-label')?.trim()) return true;
      const id = e.getAttribute('id');
      if (id && document.querySelector(`label[for="${id}"]`)?.textContent?.trim()) return true;
      const clone = e.cloneNode(true) as HTMLElement;
      clone.querySelectorAll('[hidden], [aria-hidden="true"]').forEach((n) => n.remove());
      return !!clone.textContent?.trim();
    };
    return [...document.querySelectorAll('button, input, [role="listbox"], [tabindex="0"]')]
      .filter((e) => !(e as HTMLElement).hidden && !named(e))
      .map((e) => e.outerHTML.slice(0, 120));
  });
  assert.deepEqual(unnamed, []);

  // Slider keys: arrows move a page, Home/End go to the ends.
  await page.focus('.slider');
  const second = await navigate(page, () => page.keyboard.press('ArrowRight'));
  assert.equal(second.offset, (await store.read(outputId, 0, 4096)).nextOffset);
  assert.equal((await navigate(page, () => page.keyboard.press('ArrowLeft'), 0)).offset, 0);
  const end = await navigate(page, () => page.keyboard.press('End'));
  assert.equal(end.nextOffset, copy.bytes.length);
  assert.equal((await navigate(page, () => page.keyboard.press('Home'), 0)).offset, 0);

  // Panel-wide shortcuts from the page text.
  await page.focus('.page-text');
  const next = await navigate(page, () => page.keyboard.press('Alt+PageDown'));
  assert.equal(next.offset, second.offset);
  await page.keyboard.press('Control+f');
  assert.equal(await page.evaluate(() => document.activeElement?.classList.contains('search-input')), true);

  // Page actions: the host gets what it needs, and copies the copy's own bytes.
  const shown = await shownPage(page);
  await page.click('button:has-text("Copy page")');
  await page.waitForFunction(() => document.querySelector('.notice')?.textContent?.startsWith('Copied'));
  const copied = panel.actions.find((a) => a.action === 'copyText');
  assert.deepEqual(copied?.args, [decodeUtf8(copy.bytes.subarray(shown.offset, shown.nextOffset)), 'Page']);
  await page.click('button:has-text("Open in editor")');
  await page.click('button:has-text("Save as")');
  await page.click('button:has-text("Copy ID")');
  // Each click reaches the host by a message. (Was: at most 50 × 20 ms; the assertion below says what arrived.)
  await waitUntil('the four actions at the host', () => panel.actions.length >= 4).catch(() => undefined);
  assert.deepEqual(
    panel.actions.slice(1).map((a) => [a.action, ...a.args]),
    [
      ['openInEditor', outputId, shown.firstLine],
      ['saveAs', outputId],
      ['copyText', outputId, 'Output ID'],
    ],
  );
  assertNoErrors(panel.errors);
  await panel.close();
});
