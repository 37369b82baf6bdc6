/**
 * Slider input to painted page on a 4096-line page, measured in the browser (the page as a top-level
 * document, the host handler over the test double): the figure beside the real host's
 * (test/integration/inspectorWebview.test.ts), with the same probe and the same positions. Reported,
 * not asserted; bench/paint.mjs collects the PAINT lines of both.
 */
import assert from 'node:assert/strict';
import { PROBES, paintFigures } from '../../scripts/host/probes.mjs';
import { PanelDouble, test } from './harness';
import { tempStore } from './fixtures';
import { assertNoErrors, loadLine } from './helpers';
import { scaled } from '../unit/helpers/timeScale';

test('slider to painted page on a 4096-line page: measured (reported, not asserted)', async (ctx) => {
  const store = await tempStore();
  const content = '\n'.repeat(64 * 1024); // every page of it is 4096 lines
  const { outputId } = await store.retain(content, { tool: 'run_command', title: 'paint: 64 KiB of empty lines' });
  const panel = await PanelDouble.open(ctx, { store, outputId });
  const positions = Array.from({ length: 40 }, (_, i) => 1 + Math.floor((((i * 7919) % 40) / 40) * (content.length - 4097)));
  // A page or frame not shown within these limits counts as lost: generous (tens of ms is usual), ×TEST_TIME_SCALE.
  const limits = { pageLimitMs: scaled(10_000), frameLimitMs: scaled(2000) };
  const { times, parts, lines } = await panel.page.evaluate(PROBES.sliderToPaint, { positions, ...limits });
  const figures = paintFigures(times);
  const previewRows = await panel.page.evaluate(PROBES.count, '.preview-text .line');
  // Timing is reported, not asserted; a page that never arrives is a failure of the pager.
  assert.equal(figures.values.lost, 0, figures.summary);
  ctx.log(`slider→painted page (${lines} lines; ${previewRows} preview rows live): ${figures.summary}`);
  const part = (key: 'toDom' | 'frame') => paintFigures(parts.map((p) => p[key])).summary.replace(/ over .*/, '');
  ctx.log(`  input to the page in the DOM (request, host, reply, rendering): ${part('toDom')}; then to the next frame: ${part('frame')}`);
  ctx.log(
    `PAINT ${JSON.stringify({ where: 'browser', browser: 'headless', rendering: 'chunks of 64 lines (shipped)', lines, previewRows, ...figures.values })}`,
  );
  ctx.log(loadLine());
  assertNoErrors(panel.errors);
  await panel.close();
});
