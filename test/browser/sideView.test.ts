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
import { PROBES, type SideViewLayout } from '../../scripts/host/probes.mjs';

/** The real host's probe, run in this page: both suites measure the same way. */
const measure = (page: PanelDouble['page']): Promise<SideViewLayout> => page.evaluate(PROBES.sideViewLayout);

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
