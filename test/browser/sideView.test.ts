/**
 * The inspector in the side bar's default size (issue 29 item 6): about 300 px wide and as high as
 * the side bar leaves it. One scroll container, the document: the text areas grow with their lines
 * (no scroller inside the scrolling page); the page of the copy comes first, and the pager's head
 * (navigation, slider, position) stays at the top while the page is read, the page filling the rest
 * of the view; the search box's placeholder is whole; no control is clipped or runs past the edge.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { PanelDouble, test } from './harness';
import { commandOutput, tempStore } from './fixtures';
import { assertNoErrors, navigate } from './helpers';

interface Layout {
  docOverflow: number;
  scrollers: string[];
  nested: string[];
  /** With the document scrolled to the page of the copy: the pager's head's top, and the text below it to the view's bottom. */
  headTop: number;
  pageVisible: number;
  placeholder: { text: string; width: number; room: number };
  clipped: string[];
}

function measure(page: PanelDouble['page']): Promise<Layout> {
  return page.evaluate(() => {
    const doc = document.scrollingElement!;
    const name = (e: Element): string => `${e.tagName.toLowerCase()}.${[...e.classList].join('.')}`;
    const scrolls = (e: Element): boolean => {
      const style = getComputedStyle(e);
      return (
        (/(auto|scroll)/.test(style.overflowY) && e.scrollHeight > e.clientHeight + 1) ||
        (/(auto|scroll)/.test(style.overflowX) && e.scrollWidth > e.clientWidth + 1)
      );
    };
    const all = [...document.querySelectorAll('#app *')].filter((e) => (e as HTMLElement).offsetParent !== null || e === document.body);
    const scrollers = all.filter(scrolls);
    const nested = scrollers.filter((e) => scrollers.some((other) => other !== e && other.contains(e))).map(name);
    // The placeholder as the box draws it: typed in as its value, does the text overflow the box?
    // (A canvas measure of the font missed a cut of a few pixels that the real host showed.)
    const input = document.querySelector<HTMLInputElement>('.search-input')!;
    const typed = input.value;
    input.value = input.placeholder;
    const placeholderWidth = input.scrollWidth;
    const room = input.clientWidth;
    input.value = typed;
    const width = document.documentElement.clientWidth;
    const clipped = [
      ...document.querySelectorAll<HTMLElement>('#app button:not([hidden]), #app input, #app .flag, #app .field, #app label'),
    ]
      .filter((e) => e.offsetParent !== null)
      .filter((e) => {
        const box = e.getBoundingClientRect();
        return box.right > width + 0.5 || box.left < -0.5 || (e.tagName === 'BUTTON' && e.scrollWidth > e.clientWidth + 1);
      })
      .map((e) => `${name(e)} "${e.textContent?.trim() ?? ''}"`);
    const text = document.querySelector<HTMLElement>('.page-text')!;
    doc.scrollTop = text.getBoundingClientRect().top + doc.scrollTop + 200;
    const head = document.querySelector('.pager-head')!.getBoundingClientRect();
    const box = text.getBoundingClientRect();
    const pageVisible = Math.min(box.bottom, window.innerHeight) - Math.max(box.top, head.bottom);
    const headTop = head.top;
    doc.scrollTop = 0;
    return {
      docOverflow: doc.scrollHeight - doc.clientHeight,
      scrollers: scrollers.map(name),
      nested,
      headTop,
      pageVisible,
      placeholder: { text: input.placeholder, width: placeholderWidth, room },
      clipped,
    };
  });
}

test('item 6: at the side bar’s default size one thing scrolls, the page fills the view under the pager’s head, nothing clipped', async (ctx) => {
  const store = await tempStore();
  const { outputId } = await commandOutput(store, 'seq 1 200000; echo "something failed" >&2; exit 3', 64 * 1024);
  for (const viewport of [
    { width: 300, height: 700 },
    { width: 300, height: 900 },
    { width: 420, height: 800 },
  ]) {
    const panel = await PanelDouble.open(ctx, { store, outputId, viewport });
    const { page } = panel;
    await page.waitForSelector('.preview-text mark.omission');
    await navigate(page, () => page.click('button:has-text("Next")'));
    const layout = await measure(page);
    const where = `${viewport.width}×${viewport.height}: ${JSON.stringify(layout)}`;
    await page.screenshot({ path: path.join(ctx.artifactsDir, `inspector-side-view-${viewport.width}x${viewport.height}.png`) });
    assert.deepEqual(layout.scrollers, [], `nothing in the page scrolls but the document (${where})`);
    assert.deepEqual(layout.nested, [], `no scroller inside another (${where})`);
    assert.ok(Math.abs(layout.headTop) <= 1, `the pager's head stays at the top while the page is read (${where})`);
    assert.ok(layout.pageVisible >= 0.5 * viewport.height, `the page of the copy fills the rest of the view (${where})`);
    assert.ok(layout.placeholder.width <= layout.placeholder.room, `the search placeholder is whole (${where})`);
    assert.deepEqual(layout.clipped, [], `no control is clipped (${where})`);
    assertNoErrors(panel.errors);
    await panel.close();
  }
});
