/**
 * Issue 40 §6 in the browser: the keyboard. The output's flags are one Tab stop (arrow keys, Home and
 * End move inside the group), so the search box is a few presses away, not 15; a button is named by
 * its label alone (a glyph beside it is decoration: "Next", never "›\nNext"); at the side bar's width
 * the navigation buttons (by their glyphs) and the slider are one row. Screenshot in the suite's artifacts.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { PanelDouble, test, type TestContext } from './harness';
import { commandOutput, tempStore } from './fixtures';
import { assertNoErrors } from './helpers';

test('the flags are one Tab stop with arrow keys inside; buttons are named without their glyphs; the navigation is one row', async (ctx: TestContext) => {
  const store = await tempStore();
  const { outputId } = await commandOutput(store, 'seq 1 200000; echo "something failed" >&2; exit 3', 64 * 1024);
  const panel = await PanelDouble.open(ctx, { store, outputId, viewport: { width: 300, height: 800 } });
  const { page } = panel;
  await page.waitForSelector('[data-flag]');
  const flagCount = await page.locator('[data-flag]').count();
  assert.ok(flagCount >= 8, `the flags of a command's copy (${flagCount})`);
  const active = (): Promise<string | undefined> =>
    page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.flag ?? document.activeElement?.className);

  // Tab reaches the group once; the arrows walk it; Tab leaves it in one press.
  assert.equal(await page.locator('[data-flag][tabindex="0"]').count(), 1, 'one flag in the Tab order');
  await page.focus('[data-flag][tabindex="0"]');
  const first = await active();
  await page.keyboard.press('ArrowRight');
  const second = await active();
  assert.notEqual(second, first, 'ArrowRight moves to the next flag');
  await page.keyboard.press('End');
  const last = await page.evaluate(() => [...document.querySelectorAll<HTMLElement>('[data-flag]')].pop()?.dataset.flag);
  assert.equal(await active(), last, 'End goes to the last flag');
  await page.keyboard.press('Home');
  assert.equal(await active(), first, 'Home goes to the first flag');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.closest('[data-flag]')), null, 'Tab leaves the flags in one press');
  await page.keyboard.press('Shift+Tab');
  assert.equal(await active(), second, 'Shift+Tab comes back to the flag last focused');

  // From the top of the page, the search box is reached in a few presses.
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  let presses = 0;
  while (presses < 40 && !(await page.evaluate(() => document.activeElement?.classList.contains('search-input')))) {
    await page.keyboard.press('Tab');
    presses++;
  }
  ctx.log(`Tab presses from the top to the search box: ${presses}`);
  assert.ok(presses <= 14, `the search box took ${presses} Tab presses`);

  // Buttons: the name is the label, without the glyph.
  const names = await page.evaluate(() =>
    [...document.querySelectorAll<HTMLButtonElement>('button.with-icon')].map((b) => ({
      name: b.getAttribute('aria-label') ?? b.innerText,
      label: b.querySelector('.label')?.textContent ?? '',
    })),
  );
  assert.ok(names.length >= 4, 'the pager has icon buttons');
  for (const { name, label } of names) assert.equal(name, label, `a button named "${name}"`);
  const next = page.getByRole('button', { name: 'Next', exact: true });
  assert.equal(await next.count(), 1);

  // At the side bar's width the navigation is one row: its buttons and the slider side by side.
  const row = await page.evaluate(() => {
    const boxes = [...document.querySelectorAll('.pager-head > .toolbar > button:not([hidden]), .pager-head > .slider')].map((e) =>
      e.getBoundingClientRect(),
    );
    const head = document.querySelector('.pager-head')!.getBoundingClientRect();
    return { tops: boxes.map((b) => Math.round(b.top + b.height / 2)), right: Math.max(...boxes.map((b) => b.right)), head };
  });
  ctx.log(`navigation row: centres ${JSON.stringify(row.tops)}, pager head ${Math.round(row.head.height)} px high`);
  assert.ok(Math.max(...row.tops) - Math.min(...row.tops) <= 4, `one row: ${JSON.stringify(row.tops)}`);
  assert.ok(row.right <= 300, 'inside the view');

  await page.focus('[data-flag][tabindex="0"]');
  await page.waitForSelector('.tooltip:not([hidden])');
  const file = path.join(ctx.artifactsDir, 'inspector-keyboard-flags.png');
  await page.screenshot({ path: file });
  ctx.log(`screenshot: ${file}`);
  assertNoErrors(panel.errors);
  await panel.close();
});
