/**
 * A page's facts with the pager, honest about an incomplete copy (issue 29 item 7): hasMore is the
 * page's, not among the output's flags, so the flags are the same on every page and in the editor
 * and the side view; a search says what was dropped; Capture gap shows the gap's marker; a slider
 * jump starts a page at a line start; past the gap, the line numbers say they are the copy's.
 */
import assert from 'node:assert/strict';
import { PanelDouble, test } from './harness';
import { commandOutput, tempStore } from './fixtures';
import { assertNoErrors, flags, navigate, pageFlag, shownPage } from './helpers';
import { scaled } from '../unit/helpers/timeScale';

const INCOMPLETE = 'seq 1 200000; echo "something failed" >&2; exit 3';
const SIDE_VIEW = { width: 300, height: 700 };

test('item 7a: the flags are the output’s, the same on every page and in the editor and side view; hasMore and the bytes are with the pager', async (ctx) => {
  const store = await tempStore();
  const { outputId } = await commandOutput(store, INCOMPLETE, 64 * 1024);
  const info = await store.info(outputId);
  const seen: string[] = [];
  for (const viewport of [undefined, SIDE_VIEW]) {
    const panel = await PanelDouble.open(ctx, { store, outputId, viewport });
    const { page } = panel;
    const first = await flags(page);
    assert.equal(first.hasMore, undefined, 'hasMore is not among the output’s flags');
    assert.deepEqual(await pageFlag(page), { value: 'true', tip: (await pageFlag(page)).tip });
    assert.match((await pageFlag(page)).tip, /next page starts at byte 4,096/);
    assert.match(
      await page.locator('.pager .page-status').innerText(),
      new RegExp(`Bytes 0 to 4,096 of ${info.totalBytes.toLocaleString('en-US')}`),
    );
    await navigate(page, () => page.click('button:has-text("End")'));
    assert.deepEqual(await flags(page), first, 'the flags do not change with the page');
    assert.equal((await pageFlag(page)).value, 'false', 'the last page says hasMore=false with the pager');
    seen.push(JSON.stringify(Object.fromEntries(Object.entries(first).map(([k, v]) => [k, v.value]))));
    assertNoErrors(panel.errors);
    await panel.close();
  }
  assert.equal(seen[0], seen[1], 'the editor and the side view show the same flags');
});

test('item 7b: a search in an incomplete copy says what was dropped, and where', async (ctx) => {
  const store = await tempStore();
  const { outputId } = await commandOutput(store, INCOMPLETE, 64 * 1024);
  const info = await store.info(outputId);
  assert.equal((await store.search(outputId, '^150000$', { regex: true })).matches.length, 0, 'the line is in the dropped part');
  const panel = await PanelDouble.open(ctx, { store, outputId });
  const { page } = panel;
  await page.fill('.search-input', '150000');
  await page.press('.search-input', 'Enter');
  await page.waitForFunction(() => document.querySelector('.search-summary')?.textContent?.startsWith('No matches'));
  const summary = (await page.textContent('.search-summary')) ?? '';
  assert.ok(
    summary.includes(
      `${info.droppedBytes.toLocaleString('en-US')} bytes of the output were dropped at byte ${info.gapOffset!.toLocaleString('en-US')}`,
    ),
    summary,
  );
  assert.match(summary, /a match there cannot be found/);
  // A complete copy says nothing of the kind.
  const whole = await commandOutput(store, 'seq 1 30000');
  const other = await PanelDouble.open(ctx, { store, outputId: whole.outputId });
  await other.page.fill('.search-input', 'nothing-like-this');
  await other.page.press('.search-input', 'Enter');
  await other.page.waitForFunction(() => document.querySelector('.search-summary')?.textContent?.startsWith('No matches'));
  assert.equal(await other.page.textContent('.search-summary'), 'No matches in the copy.');
  assertNoErrors(panel.errors);
  assertNoErrors(other.errors);
  await panel.close();
  await other.close();
});

test('item 7c: Capture gap lands with the gap’s marker on screen', async (ctx) => {
  const store = await tempStore();
  const { outputId } = await commandOutput(store, INCOMPLETE, 64 * 1024);
  for (const viewport of [undefined, SIDE_VIEW]) {
    const panel = await PanelDouble.open(ctx, { store, outputId, viewport });
    const { page } = panel;
    await navigate(page, () => page.click('button:has-text("Capture gap")'));
    await page.waitForSelector('.page-text .gap-inline');
    await page.waitForFunction(
      () => {
        // On screen: inside the page's box and the window, below the pager's head where it sticks (narrow).
        const pane = document.querySelector('.page-text')!.getBoundingClientRect();
        const head = document.querySelector<HTMLElement>('.pager-head')!;
        const under = getComputedStyle(head).position === 'sticky' ? head.getBoundingClientRect().bottom : 0;
        const mark = document.querySelector('.page-text .gap-inline')!.getBoundingClientRect();
        return mark.height > 0 && mark.top >= Math.max(pane.top, under, 0) && mark.bottom <= Math.min(pane.bottom, window.innerHeight);
      },
      undefined,
      { timeout: scaled(5000) },
    );
    assertNoErrors(panel.errors);
    await panel.close();
  }
});

test('item 7d: a slider jump starts the page at the start of a line', async (ctx) => {
  const store = await tempStore();
  const line = (n: number): string => `${String(n).padStart(6, '0')} ${'lorem ipsum dolor sit amet '.repeat(3)}漢字\n`;
  const content = Array.from({ length: 5000 }, (_, i) => line(i + 1)).join('');
  const bytes = Buffer.from(content);
  const { outputId } = await store.retain(content, { tool: 'run_command', title: 'lines' });
  const panel = await PanelDouble.open(ctx, { store, outputId });
  const { page } = panel;
  for (const target of [123_457, 200_003, 311_111]) {
    assert.notEqual(bytes[target - 1], 0x0a, 'the target is inside a line');
    const shown = await navigate(page, () =>
      page.evaluate((value) => {
        const slider = document.querySelector<HTMLInputElement>('.slider')!;
        slider.value = String(value);
        slider.dispatchEvent(new Event('input', { bubbles: true }));
      }, target),
    );
    assert.equal(bytes[shown.offset - 1], 0x0a, `the page starts at a line start (${shown.offset}, slid to ${target})`);
    assert.ok(shown.offset > target && shown.offset - target < 200, `the next line start after ${target}: ${shown.offset}`);
    const number = Number(shown.text.slice(0, 6));
    assert.equal(shown.firstLine, number, 'its first line number is the line it shows');
    assert.ok(shown.text.startsWith(line(number).slice(0, -1)), 'the first line is whole');
  }
  assertNoErrors(panel.errors);
  await panel.close();
});

test('item 7e: past the capture gap the page says its line numbers are the copy’s', async (ctx) => {
  const store = await tempStore();
  const { outputId } = await commandOutput(store, INCOMPLETE, 64 * 1024);
  const info = await store.info(outputId);
  const panel = await PanelDouble.open(ctx, { store, outputId });
  const { page } = panel;
  assert.equal(await page.isHidden('.lines-note'), true, 'before the gap the numbers are the output’s too');
  assert.equal(await page.getAttribute('.page-text', 'data-lines'), 'output');
  await navigate(page, () => page.click('button:has-text("End")'));
  assert.equal(await page.isVisible('.lines-note'), true);
  assert.equal(await page.getAttribute('.page-text', 'data-lines'), 'copy');
  assert.match(
    (await page.textContent('.lines-note')) ?? '',
    new RegExp(`Line numbers after byte ${info.gapOffset!.toLocaleString('en-US')} count the copy's lines, not the output's`),
  );
  // Really so: the copy's last line is numbered far below the output's line 200,000.
  assert.ok((await shownPage(page)).lastLine < 200_000);
  assertNoErrors(panel.errors);
  await panel.close();
});
