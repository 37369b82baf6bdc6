/**
 * Issue 40 part 1: the overview of the whole copy along the slider (what the model saw, what its
 * preview left out, the capture gap, the notable lines, the search's hits), each mark going to its
 * place; its legend and its list in words; the list of notable lines with its filter; the preview's
 * marker in view on opening at any width; and the overview's paint on a 64 MiB copy with 100,000
 * notable lines (reported, with the marks per pixel column bounded and asserted).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { PanelDouble, test } from './harness';
import { commandOutput, MiB, tempStore } from './fixtures';
import { assertNoErrors, loadLine, navigate } from './helpers';
import { LANES } from '../../webview/overview';
import type { ThemeName } from './themes';

/** ~12,000 lines (~170 KB): an error every 500 lines, a warning every 700, a summary at the end; 64 KiB kept of it. */
const COMMAND =
  `for i in $(seq 1 12000); do echo "step $i of the build went fine"; ` +
  `if [ $((i % 500)) = 0 ]; then echo "error: step $i failed to link"; fi; ` +
  `if [ $((i % 700)) = 0 ]; then echo "warning: step $i is slow"; fi; done; ` +
  `echo "test result: FAILED. 10 passed; 2 failed"`;

interface StripMark {
  lane: string;
  col: number;
  offset: number;
}

/** The overview's marks as drawn: lane, pixel column and the offset each goes to. */
function stripMarks(page: Page): Promise<StripMark[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('.overview-strip .ov-mark')].map((e) => ({
      lane: [...e.classList].find((c) => c.startsWith('ov-') && c !== 'ov-mark')!.slice(3),
      col: Number(e.dataset.col),
      offset: Number(e.dataset.offset),
    })),
  );
}

function maxPerColumn(marks: StripMark[]): number {
  const perColumn = new Map<number, number>();
  for (const mark of marks) perColumn.set(mark.col, (perColumn.get(mark.col) ?? 0) + 1);
  return Math.max(0, ...perColumn.values());
}

/** Waits for the focused line of the page on screen and returns its text. */
async function focusedLine(page: Page): Promise<string> {
  await page.waitForSelector('.page-text .line.focus-line');
  return page.evaluate(() => document.querySelector('.page-text .line.focus-line .text')?.textContent ?? '');
}

test('overview: marks for the head, the omitted part, the gap, notable lines and search hits; each goes to its place', async (ctx) => {
  const store = await tempStore();
  const result = await commandOutput(store, COMMAND, 64 * 1024);
  const info = await store.info(result.outputId);
  assert.ok(info.gapOffset !== undefined && info.notable && info.notable.counts.error > 0, 'the capture dropped errors');
  const panel = await PanelDouble.open(ctx, { store, outputId: result.outputId, viewport: { width: 1400, height: 900 } });
  const { page } = panel;
  await page.waitForSelector('.overview-strip .ov-mark.ov-error');
  for (const range of ['.ov-seen', '.ov-omitted', '.ov-gap', '.ov-page'])
    assert.ok(await page.$(`.overview-strip ${range}`), `the overview draws ${range}`);
  const legend = await page.textContent('.overview-legend');
  for (const word of ['Seen by the model', 'Not in the preview', 'Capture gap', 'Errors:', 'Warnings:', 'Summaries:', 'This page'])
    assert.ok(legend?.includes(word), `the legend names "${word}": ${legend}`);
  const gapTitle = await page.getAttribute('.overview-strip .ov-gap', 'title');
  assert.match(gapTitle ?? '', new RegExp(`${info.notable.counts.error} errors`), `the gap says what the dropped bytes held: ${gapTitle}`);

  // Bounded: at most one mark per lane in a pixel column.
  let marks = await stripMarks(page);
  assert.ok(maxPerColumn(marks) <= LANES.length, `at most ${LANES.length} marks in a pixel column`);

  // Click-to-go: the last error mark shows the page holding that error, its line focused.
  const errors = marks.filter((m) => m.lane === 'error');
  const last = errors[errors.length - 1];
  let shown = await navigate(page, () => page.click(`.overview-strip .ov-mark.ov-error >> nth=${errors.length - 1}`));
  assert.ok(shown.offset <= last.offset && last.offset < shown.nextOffset, `the page holds byte ${last.offset}: ${JSON.stringify(shown)}`);
  assert.match(await focusedLine(page), /^error: step \d+ failed to link/);

  // The search's hits are marked too.
  await page.fill('.search-input', 'is slow');
  await page.press('.search-input', 'Enter');
  await page.waitForSelector('.overview-strip .ov-mark.ov-search');
  assert.ok((await page.textContent('.overview-legend'))?.includes('Search hits:'), 'the legend names the search hits');
  marks = await stripMarks(page);
  assert.ok(maxPerColumn(marks) <= LANES.length, 'still bounded with the search lane');
  const screenshot = path.join(ctx.artifactsDir, 'inspector-overview.png');

  // The overview in words: every range and mark with its offset, each a button that goes there.
  await page.click('.overview-list summary');
  const items = await page.$$eval('.overview-marks button', (buttons) => buttons.map((b) => b.textContent ?? ''));
  assert.ok(
    items.some((t) => /^Not in the preview: bytes [\d,]+ to [\d,]+$/.test(t)),
    `the omitted range is listed: ${items.slice(0, 4).join(' | ')}`,
  );
  assert.ok(
    items.some((t) => t.startsWith('Capture gap at byte')),
    'the capture gap is listed',
  );
  assert.equal(items.filter((t) => /^(Error|Warning|Summary|Search hit) at line [\d,]+, byte [\d,]+/.test(t)).length, marks.length);
  const warning = items.findIndex((t) => t.startsWith('Warning at line'));
  await navigate(page, () => page.click(`.overview-marks button >> nth=${warning}`));
  assert.match(await focusedLine(page), /^warning: step \d+ is slow/);
  await page.click('.overview-list summary');

  // The notable lines, filtered to errors, page to each one.
  await page.click('.notables summary');
  assert.match((await page.textContent('.notables summary')) ?? '', /Notable lines: \d+ errors, \d+ warnings, 1 summary/);
  await page.click('.notable-filter[data-filter="error"]');
  const classes = await page.$$eval('.notable-line', (lines) => lines.map((l) => (l as HTMLElement).dataset.class));
  assert.ok(classes.length > 1 && classes.every((c) => c === 'error'), `errors only: ${classes.join(',')}`);
  const second = await page.$eval('.notable-line >> nth=1', (l) => ({ ...(l as HTMLElement).dataset }));
  shown = await navigate(page, () => page.click('.notable-line >> nth=1'));
  assert.ok(shown.firstLine <= Number(second.line) && Number(second.line) <= shown.lastLine, `the page holds line ${second.line}`);
  assert.match(await focusedLine(page), /^error: step \d+ failed to link/);
  assert.match((await page.textContent('.notable-dropped')) ?? '', /dropped at capture \(not in the copy\): \d+ errors/);
  await page.click('.notable-filter[data-filter="summary"]');
  assert.deepEqual(await page.$$eval('.notable-line', (lines) => lines.map((l) => (l as HTMLElement).dataset.class)), ['summary']);
  await page.screenshot({ path: screenshot });
  ctx.log(`screenshot: ${screenshot}`);
  assertNoErrors(panel.errors);
  await panel.close();
});

test("overview: on opening, the preview's omission marker is in view at 550 and at 1600 px wide", async (ctx) => {
  const store = await tempStore();
  const result = await commandOutput(store, COMMAND, 64 * 1024);
  for (const viewport of [
    { width: 550, height: 800 },
    { width: 1600, height: 800 },
  ]) {
    const panel = await PanelDouble.open(ctx, { store, outputId: result.outputId, viewport });
    const { page } = panel;
    await page.waitForSelector('.page-text .line');
    // In view: inside the window and inside the preview's own box (a scroller in the wide layout).
    const inView = (): boolean => {
      const marker = document.querySelector('.preview-text mark.omission');
      const pane = document.querySelector('.preview-text');
      if (!marker || !pane) return false;
      const m = marker.getBoundingClientRect();
      const p = pane.getBoundingClientRect();
      const head = document.querySelector('.pager-head');
      const sticky = head && getComputedStyle(head).position === 'sticky' ? head.getBoundingClientRect().bottom : 0;
      return m.height > 0 && m.top >= Math.max(0, p.top, sticky) && m.bottom <= Math.min(window.innerHeight, p.bottom);
    };
    await page.waitForFunction(inView, undefined, { timeout: 5000 }).catch(() => undefined);
    const where = await page.evaluate(() => {
      const m = document.querySelector('.preview-text mark.omission')?.getBoundingClientRect();
      return { top: m?.top, bottom: m?.bottom, window: window.innerHeight, scrollY: window.scrollY };
    });
    await page.screenshot({ path: path.join(ctx.artifactsDir, `inspector-marker-${viewport.width}x${viewport.height}.png`) });
    assert.ok(await page.evaluate(inView), `the marker is in view at ${viewport.width}×${viewport.height}: ${JSON.stringify(where)}`);
    assertNoErrors(panel.errors);
    await panel.close();
  }
});

for (const theme of ['dark', 'light', 'high-contrast'] as ThemeName[]) {
  test(`overview: its marks take the theme's overview-ruler colours (${theme})`, async (ctx) => {
    const store = await tempStore();
    const result = await commandOutput(store, COMMAND, 64 * 1024);
    const panel = await PanelDouble.open(ctx, { store, outputId: result.outputId, theme, viewport: { width: 1400, height: 900 } });
    const { page } = panel;
    await page.fill('.search-input', 'is slow');
    await page.press('.search-input', 'Enter');
    await page.waitForSelector('.overview-strip .ov-mark.ov-search');
    await page.waitForSelector('.overview-strip .ov-mark.ov-summary');
    const colours = await page.evaluate(() => {
      const colour = (selector: string): string => getComputedStyle(document.querySelector(selector)!).backgroundColor;
      // The theme's own value of a variable, resolved the same way (on a probe element).
      const resolved = (variable: string): string => {
        const probe = document.body.appendChild(document.createElement('div'));
        probe.style.backgroundColor = `var(${variable})`;
        const value = getComputedStyle(probe).backgroundColor;
        probe.remove();
        return value;
      };
      return {
        error: [colour('.ov-mark.ov-error'), resolved('--vscode-editorOverviewRuler-errorForeground')],
        warning: [colour('.ov-mark.ov-warning'), resolved('--vscode-editorOverviewRuler-warningForeground')],
        summary: [colour('.ov-mark.ov-summary'), resolved('--vscode-editorOverviewRuler-infoForeground')],
        search: [colour('.ov-mark.ov-search'), resolved('--vscode-editorOverviewRuler-findMatchForeground')],
        legend: [colour('.swatch.ov-error'), resolved('--vscode-editorOverviewRuler-errorForeground')],
      };
    });
    for (const [lane, [shown, theirs]] of Object.entries(colours)) assert.equal(shown, theirs, `${lane} in ${theme}`);
    const file = path.join(ctx.artifactsDir, `inspector-overview-${theme}.png`);
    await (await page.$('.overview'))!.screenshot({ path: file });
    ctx.log(`screenshot: ${file}`);
    assertNoErrors(panel.errors);
    await panel.close();
  });
}

test('overview paint on a 64 MiB copy with 100,000 notable lines: measured (reported), marks per pixel column bounded', async (ctx) => {
  const store = await tempStore({ copyBytes: 80 * MiB, quotaBytes: 200 * MiB });
  const filler = `${'build step went fine, nothing to report here at all.'.padEnd(64, '.')}\n`;
  const block = (n: number): string => `error: unit ${n} failed with code 2\n${filler.repeat(10)}`;
  const blocks: string[] = [];
  for (let n = 0; n < 100_000; n++) blocks.push(block(n));
  const content = blocks.join('');
  const { outputId, totalBytes } = await store.retain(content, { tool: 'run_command', title: 'overview: 64 MiB, 100,000 errors' });
  assert.ok(totalBytes >= 64 * MiB, `a 64 MiB copy (${totalBytes})`);
  const started = Date.now();
  const panel = await PanelDouble.open(ctx, { store, outputId, viewport: { width: 1400, height: 900 } });
  const { page } = panel;
  await page.waitForFunction(() => document.querySelector('.overview-legend')?.textContent?.includes('Errors: 100,000'), undefined, {
    timeout: 120_000,
  });
  ctx.log(`open to the notable lines shown (a scan of the whole copy on the store's thread): ${Date.now() - started} ms`);
  const width = await page.evaluate(() => document.querySelector('.overview-strip')!.clientWidth);
  const marks = await stripMarks(page);
  assert.ok(marks.length <= width * LANES.length, `${marks.length} marks for ${width} px`);
  assert.ok(maxPerColumn(marks) <= LANES.length, `at most ${LANES.length} marks in a pixel column`);
  assert.ok(marks.length >= width * 0.9, `nearly every column has its error mark (${marks.length} for ${width} px)`);
  // Each run: the strip made narrower or wider. `work`: from the change to the new marks laid out,
  // taken by an observer of the strip's size that runs after the overview's own (the repaint, then
  // the layout its marks need, forced there); `frame`: to the next frame after that.
  const times: { paint: number; work: number; frame: number }[] = [];
  for (let run = 0; run < 10; run++) {
    times.push(
      await page.evaluate(
        (narrow) =>
          new Promise<{ paint: number; work: number; frame: number }>((resolve, reject) => {
            setTimeout(() => reject(new Error('the strip was not resized within 10 s')), 10_000);
            const overview = document.querySelector<HTMLElement>('.overview')!;
            const strip = overview.querySelector<HTMLElement>('.overview-strip')!;
            const before = strip.clientWidth;
            let t0 = 0;
            const observer = new ResizeObserver(() => {
              if (strip.clientWidth === before) return; // its first call reports the size it had
              void strip.lastElementChild?.getBoundingClientRect();
              const work = performance.now() - t0;
              observer.disconnect();
              requestAnimationFrame(() => resolve({ paint: Number(overview.dataset.paintMs), work, frame: performance.now() - t0 }));
            });
            observer.observe(strip);
            requestAnimationFrame(() => {
              t0 = performance.now();
              strip.style.marginRight = narrow ? '40px' : '6px';
            });
          }),
        run % 2 === 0,
      ),
    );
  }
  const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const max = (values: number[]): number => Math.max(...values);
  const paint = times.map((t) => t.paint);
  const work = times.map((t) => t.work);
  const frame = times.map((t) => t.frame);
  ctx.log(
    `overview repaint over ${marks.length} marks (${width} px): marks built in median ${median(paint).toFixed(1)} / max ${max(paint).toFixed(1)} ms; ` +
      `the repaint's work, from the resize to the marks laid out, median ${median(work).toFixed(1)} / max ${max(work).toFixed(1)} ms (target ≤ 50 ms); ` +
      `to the next frame median ${median(frame).toFixed(1)} / max ${max(frame).toFixed(1)} ms`,
  );
  ctx.log(
    `OVERVIEW_PAINT ${JSON.stringify({ marks: marks.length, width, paintMs: median(paint), workMs: median(work), workMaxMs: max(work), frameMs: median(frame) })}`,
  );
  ctx.log(loadLine());
  assertNoErrors(panel.errors);
  await panel.close();
});
