/**
 * A page shown from the top is painted into the rows of the page before it (textView.ts updateRows:
 * the slider's 4096-line pages are painted in a tenth of the time). What it shows must be exactly
 * what a page built afresh shows: the same elements, classes, text, marks and line numbers, with
 * search highlights, without wrapping and in raw mode, and the same heights off screen (a chunk
 * that was laid out and is off screen now must not keep the old lines' height).
 */
import assert from 'node:assert/strict';
import { PanelDouble, test, type TestContext } from './harness';
import { tempStore } from './fixtures';
import { assertNoErrors } from './helpers';
import { makeRng } from '../unit/helpers/prng';

/** ~200 KiB of lines of every kind the renderer treats apart, most of them short: ~400 a page. */
function mixedLines(): string {
  const { next } = makeRng(23);
  const rich = [
    (i: number) => `${i} ${'long wrapped words '.repeat(30)}`,
    (i: number) => `\x1b[3${i % 8}mcolour ${i}\x1b[0m plain`,
    (i: number) => `\x1b[1;4mbold ${i}\x1b[0m \x1b[38;2;10;200;30mrgb\x1b[0m`,
    () => '漢字テスト 😀 é',
    (i: number) => `NEEDLE-${i} and NEEDLE again`,
    () => 'tab\tbell\x07 <b>&amp;</b>',
  ];
  const lines: string[] = [];
  for (let i = 0, size = 0; size < 200_000; i++) {
    const line = next() < 0.9 ? (next() < 0.5 ? '' : String(i % 100)) : rich[Math.floor(next() * rich.length)](i);
    lines.push(line);
    size += line.length + 1;
  }
  return `${lines.join('\n')}\n`;
}

interface Painted {
  offset: number;
  html: string;
  /** Heights of the chunks past the first three: off screen, so their height is an estimate. */
  far: number[];
  /** The first row is the element that was there before the page changed. */
  sameRow: boolean;
}

/** Moves the slider to `value` (after scrolling the page to `scrollTop`) and reads the page painted. */
function slideTo(page: PanelDouble['page'], value: number, scrollTop: number): Promise<Painted> {
  return page.evaluate(
    async ([value, scrollTop]) => {
      const frames = async (n: number) => {
        for (let i = 0; i < n; i++) await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      };
      const view = document.querySelector('.page-text') as HTMLElement;
      const slider = document.querySelector('.slider') as HTMLInputElement;
      if (scrollTop === 0 && view.scrollTop !== 0) {
        // Scrolled down and back: the chunks shown on the way are off screen now (events settle
        // within a few frames).
        view.scrollTop = 0;
        await frames(8);
      }
      view.scrollTop = scrollTop;
      await frames(2);
      const row = view.querySelector('.line');
      const before = view.dataset.offset;
      const shown = new Promise<void>((resolve) => {
        const observer = new MutationObserver(() => {
          if (view.dataset.offset === before) return;
          observer.disconnect();
          resolve();
        });
        observer.observe(view, { attributes: true, attributeFilter: ['data-offset'] });
      });
      slider.value = String(value);
      slider.dispatchEvent(new Event('input', { bubbles: true }));
      await shown;
      // Read at once: the text before the page (read 150 ms later) may change what it shows.
      const html = view.innerHTML;
      const sameRow = view.querySelector('.line') === row;
      await frames(4);
      const far = [...view.children].slice(3).map((chunk) => chunk.getBoundingClientRect().height);
      return { offset: Number(view.dataset.offset), html, far, sameRow };
    },
    [value, scrollTop] as const,
  );
}

/** Scrolls the page to its end and waits: chunks down there are laid out, then go off screen. */
async function scrollThrough(page: PanelDouble['page']): Promise<void> {
  await page.evaluate(async () => {
    const view = document.querySelector('.page-text') as HTMLElement;
    view.scrollTop = view.scrollHeight / 2;
    for (let i = 0; i < 4; i++) await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    view.scrollTop = view.scrollHeight;
    for (let i = 0; i < 4; i++) await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  });
}

test('a page painted into the rows of the page before shows exactly what a fresh one does', async (ctx: TestContext) => {
  const store = await tempStore();
  const text = mixedLines();
  const { outputId } = await store.retain(text, { tool: 'run_command', title: 'mixed lines' });
  const panel = await PanelDouble.open(ctx, { store, outputId, viewport: { width: 1000, height: 800 } });
  const { page } = panel;
  const total = Buffer.byteLength(text);
  const targets = [0.13, 0.71, 0.42, 0.93].map((f) => Math.floor(total * f));
  const away = Math.floor(total * 0.55);

  const compare = async (mode: string): Promise<void> => {
    for (const target of targets) {
      // Fresh: the view is not at the top when the page comes, so renderText builds new rows.
      await slideTo(page, away, 3);
      const fresh = await slideTo(page, target, 3);
      assert.equal(fresh.sameRow, false, `${mode}: a page that comes while the view is scrolled is built afresh`);
      // Reused: from another page, scrolled through and back to the top.
      await slideTo(page, away, 0);
      await scrollThrough(page);
      const reused = await slideTo(page, target, 0);
      assert.equal(reused.offset, fresh.offset);
      assert.equal(reused.sameRow, true, `${mode}: a page shown from the top is painted into the rows there`);
      assert.equal(reused.html, fresh.html, `${mode}: the page at ${fresh.offset} is the same painted either way`);
      assert.ok(fresh.far.length > 0, `${mode}: the page at ${fresh.offset} has chunks off screen`);
      assert.deepEqual(reused.far, fresh.far, `${mode}: off-screen chunks of the page at ${fresh.offset} are as high either way`);
    }
  };

  await compare('plain');
  await page.fill('.search-input', 'NEEDLE');
  await page.press('.search-input', 'Enter');
  await page.waitForSelector('.search-result');
  assert.ok((await page.$$('.page-text mark.match')).length > 0, 'matches are highlighted on the page');
  await compare('highlighted');
  await page.click('button[aria-label="Wrap long lines"]');
  await compare('no wrap');
  await page.click('button[aria-label="Show control characters"]');
  await compare('raw');

  // A search jump marks its line; the next page painted into those rows does not keep the mark.
  await page.click('.search-result >> nth=3');
  await page.waitForSelector('.line.focus-line');
  // The jump's centring is done: it corrects the scroll on the frames after the jump until the scroll
  // stays put (webview/dom.ts scrollWithin, at most 10 frames). Wait for that, not a fixed 500 ms.
  await page.evaluate(async () => {
    const pane = document.querySelector('.page-text') as HTMLElement;
    for (let frames = 0, still = 0, last = -1; still < 3 && frames < 60; frames++) {
      await new Promise((r) => requestAnimationFrame(r));
      still = pane.scrollTop === last ? still + 1 : 0;
      last = pane.scrollTop;
    }
  });
  assert.equal((await slideTo(page, away, 0)).sameRow, true);
  assert.equal(await page.$$eval('.page-text .focus-line', (rows) => rows.length), 0);
  assertNoErrors(panel.errors);
  await panel.close();
});
