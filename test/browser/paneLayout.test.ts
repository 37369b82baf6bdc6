/**
 * The text panes are relayout boundaries in the wide layout (inspector.css `contain: strict`: a
 * change beside them, such as the slider's thumb, does not lay out their lines again), and that
 * changes nothing a person sees: each pane has the same box with and without the containment, in
 * the wide layout and in the narrow one, where the panes keep sizing by their lines.
 */
import assert from 'node:assert/strict';
import { PanelDouble, test } from './harness';
import { tempStore } from './fixtures';
import { assertNoErrors } from './helpers';

/** Enough lines for a long preview and full pages. */
const content = Array.from({ length: 20_000 }, (_, i) => `build step ${i + 1}: compiled module_${i + 1}.ts`).join('\n');

interface Boxes {
  contain: string[];
  boxes: { top: number; left: number; width: number; height: number }[];
}

test('the panes are relayout boundaries when wide, sized by their lines when narrow, and their boxes stay the same', async (ctx) => {
  const store = await tempStore();
  const { outputId } = await store.retain(content, { tool: 'run_command', title: 'a long build log' });
  for (const [layout, viewport] of [
    ['wide', { width: 1400, height: 900 }],
    ['narrow', { width: 700, height: 900 }],
  ] as const) {
    const panel = await PanelDouble.open(ctx, { store, outputId, viewport });
    const { page } = panel;
    await page.waitForSelector('.preview-text mark.omission');
    const measure = (css: string): Promise<Boxes> =>
      page.evaluate(async (css) => {
        const sheet = new CSSStyleSheet();
        sheet.replaceSync(css);
        document.adoptedStyleSheets = [sheet];
        for (let i = 0; i < 3; i++) await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
        const panes = [...document.querySelectorAll<HTMLElement>('.preview-text, .page-text')];
        const result = {
          contain: panes.map((pane) => getComputedStyle(pane).contain),
          boxes: panes.map((pane) => {
            const { top, left, width, height } = pane.getBoundingClientRect();
            return { top: Math.round(top), left: Math.round(left), width: Math.round(width), height: Math.round(height) };
          }),
        };
        document.adoptedStyleSheets = [];
        return result;
      }, css);
    const shipped = await measure('');
    const uncontained = await measure('.preview-text, .page-text { contain: none !important; }');
    assert.deepEqual(shipped.contain, layout === 'wide' ? ['strict', 'strict'] : ['none', 'none'], layout);
    assert.deepEqual(shipped.boxes, uncontained.boxes, `${layout}: the panes' boxes do not depend on the containment`);
    if (layout === 'narrow') {
      // Sized by its lines up to 40vh (a size-contained pane would be its 120px minimum).
      const preview = shipped.boxes[0];
      assert.ok(preview.height > 300, `narrow: the long preview is ${preview.height}px high`);
    }
    assertNoErrors(panel.errors);
    await panel.close();
  }
});
