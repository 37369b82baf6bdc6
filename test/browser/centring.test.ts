/**
 * Scrolling to something in a wrapped pane lands it in the middle. Chunks of lines that were never
 * shown are one line high per line until the browser lays them out, and wrapped lines are taller,
 * so a single scroll computed from those heights lands off-centre; the inspector re-centres once
 * the layout around the target has settled.
 */
import assert from 'node:assert/strict';
import { PanelDouble, test } from './harness';
import { commandOutput, tempStore } from './fixtures';
import { assertNoErrors } from './helpers';

/** How far (px) the element's centre is from its scrolling container's centre, once nothing moves. */
async function offCentre(page: PanelDouble['page'], container: string, target: string): Promise<{ delta: number; lineHeight: number }> {
  return page.evaluate(
    async ([containerSelector, targetSelector]) => {
      const box = document.querySelector(containerSelector) as HTMLElement;
      const element = box.querySelector(targetSelector) as HTMLElement;
      // Wait until the scroll position has stayed the same for five frames.
      let last = -1;
      for (let still = 0; still < 5;) {
        await new Promise((r) => requestAnimationFrame(r));
        still = box.scrollTop === last ? still + 1 : 0;
        last = box.scrollTop;
      }
      const outer = box.getBoundingClientRect();
      const inner = element.getBoundingClientRect();
      const lineHeight = parseFloat(getComputedStyle(box).lineHeight);
      return { delta: inner.top + inner.height / 2 - (outer.top + box.clientTop + box.clientHeight / 2), lineHeight };
    },
    [container, target] as const,
  );
}

// 1,600 lines of 300 characters: every line wraps to several rows in a 1000 px wide pane.
const LONG_LINES = `for i in $(seq 1 1600); do printf 'line %05d %s\\n' $i "$(printf 'wrapped-text-%.0s' $(seq 1 21))"; done`;

test('the preview opens with its omission marker centred, also when the lines above it wrap', async (ctx) => {
  const store = await tempStore();
  const result = await commandOutput(store, LONG_LINES);
  const panel = await PanelDouble.open(ctx, { store, outputId: result.outputId, viewport: { width: 1000, height: 900 } });
  const { delta, lineHeight } = await offCentre(panel.page, '.preview-text', 'mark.omission');
  assert.ok(Math.abs(delta) <= lineHeight, `the marker is ${delta.toFixed(1)} px from the centre (one line is ${lineHeight} px)`);
  assertNoErrors(panel.errors);
  await panel.close();
});
