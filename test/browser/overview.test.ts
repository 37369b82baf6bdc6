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
import { LANES, laneRow, type Lane } from '../../webview/overview';
import type { ThemeName } from './themes';

/** ~12,000 lines (~170 KB): an error every 500 lines, a warning every 700, a summary at the end; 64 KiB kept of it. */
const COMMAND =
  `for i in $(seq 1 12000); do echo "step $i of the build went fine"; ` +
  `if [ $((i % 500)) = 0 ]; then echo "error: step $i failed to link"; fi; ` +
  `if [ $((i % 700)) = 0 ]; then echo "warning: step $i is slow"; fi; done; ` +
  `echo "test result: FAILED. 10 passed; 2 failed"`;

/** A run of CSS pixels painted in one lane of the overview's canvas, and its colour (RGBA, 0-255). */
interface Run {
  from: number;
  to: number;
  rgba: number[];
}

interface Painted {
  /** The canvas's width in CSS pixels. */
  width: number;
  /** How many marks the painter holds (the list in words names each one). */
  marks: number;
  runs: Record<Lane, Run[]>;
}

/** The overview's marks as painted: each lane's row of the canvas read back, pixel by pixel. */
function painted(page: Page): Promise<Painted> {
  const rows = Object.fromEntries(LANES.map((lane) => [lane, laneRow(lane)]));
  return page.evaluate((rows) => {
    const canvas = document.querySelector<HTMLCanvasElement>('.overview-strip canvas.ov-marks')!;
    const width = canvas.getBoundingClientRect().width;
    const ratio = canvas.width / width;
    const context = canvas.getContext('2d')!;
    const runs = Object.fromEntries(
      Object.entries(rows).map(([lane, row]) => {
        const y = Math.floor((row.top + row.height / 2) * ratio);
        const { data } = context.getImageData(0, y, canvas.width, 1);
        const found: { from: number; to: number; rgba: number[] }[] = [];
        for (let x = 0; x < canvas.width; x++) {
          if (data[x * 4 + 3] === 0) continue;
          const last = found[found.length - 1];
          if (last && last.to === x) last.to = x + 1;
          else found.push({ from: x, to: x + 1, rgba: [...data.subarray(x * 4, x * 4 + 4)] });
        }
        return [lane, found.map((r) => ({ from: Math.round(r.from / ratio), to: Math.round(r.to / ratio), rgba: r.rgba }))];
      }),
    );
    return { width, marks: Number(canvas.dataset.marks), runs };
  }, rows) as Promise<Painted>;
}

/**
 * The pixel columns a lane's painted runs can hold marks in: a mark at column c covers c and c + 1,
 * so a run of n pixels holds at most n - 1 (n at the right edge, where the last column's mark is cut).
 */
function columnsIn(runs: Run[], width: number): number {
  return runs.reduce((sum, run) => sum + run.to - run.from - (run.to >= width ? 0 : 1), 0);
}

/** The list in words: opened (it is built on the details' toggle event) and read. */
async function listed(page: Page): Promise<string[]> {
  if (!(await page.$eval('.overview-list', (d) => (d as HTMLDetailsElement).open))) {
    await page.click('.overview-list summary');
    // The list is built on the details' toggle event, which fires after the click returns.
    await page.waitForSelector('.overview-marks button');
  }
  return page.$$eval('.overview-marks button', (buttons) => buttons.map((b) => b.textContent ?? ''));
}

const MARK_WORDS: Record<Lane, RegExp> = {
  error: /^Error at line [\d,]+, byte ([\d,]+)/,
  warning: /^Warning at line [\d,]+, byte ([\d,]+)/,
  summary: /^Summary at line [\d,]+, byte ([\d,]+)/,
  search: /^Search hit at line [\d,]+, byte ([\d,]+)/,
};

/** Marks at most one per lane and pixel column: the marks listed fit in the columns each lane painted. */
function assertBounded(shown: Painted, items: string[]): void {
  assert.ok(shown.marks <= Math.round(shown.width) * LANES.length, `${shown.marks} marks for ${shown.width} px`);
  assert.equal(items.filter((t) => LANES.some((lane) => MARK_WORDS[lane].test(t))).length, shown.marks, 'the list names every mark');
  for (const lane of LANES) {
    const count = items.filter((t) => MARK_WORDS[lane].test(t)).length;
    const runs = shown.runs[lane];
    assert.ok(count <= columnsIn(runs, shown.width), `${lane}: ${count} marks in ${columnsIn(runs, shown.width)} painted columns`);
    assert.ok(count >= runs.length, `${lane}: every painted run is a mark (${count} marks, ${runs.length} runs)`);
  }
}

/** Where to point at a lane's last mark (the middle of what is painted of it), in the strip's own pixels. */
function lastMarkAt(shown: Painted, lane: Lane): { x: number; y: number } {
  const run = shown.runs[lane][shown.runs[lane].length - 1];
  // A mark in the last column is cut to its first pixel.
  const x = run.to >= shown.width ? run.to - 0.5 : run.to - 1;
  return { x, y: laneRow(lane).top + laneRow(lane).height / 2 };
}

const byteOf = (item: string, lane: Lane): number => Number(MARK_WORDS[lane].exec(item)![1].replace(/,/g, ''));

/** A pixel read back (RGBA 0-255, unpremultiplied, so within rounding) is the CSS colour `rgb()`/`rgba()`. */
function assertColour(rgba: number[], css: string, what: string): void {
  const [r, g, b, a = 1] = (css.match(/[\d.]+/g) ?? []).map(Number);
  const want = [r, g, b, Math.round(a * 255)];
  assert.ok(
    want.every((v, i) => Math.abs(v - rgba[i]) <= 3),
    `${what}: painted rgba(${rgba.join(', ')}), the theme's ${css}`,
  );
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
  // The legend and the canvas are drawn in the same task as the notable lines arrive.
  await page.waitForFunction(() => document.querySelector('.overview-legend')?.textContent?.includes('Errors:'));
  for (const range of ['.ov-seen', '.ov-omitted', '.ov-gap', '.ov-page'])
    assert.ok(await page.$(`.overview-strip ${range}`), `the overview draws ${range}`);
  const legend = await page.textContent('.overview-legend');
  for (const word of ['Seen by the model', 'Not in the preview', 'Capture gap', 'Errors:', 'Warnings:', 'Summaries:', 'This page'])
    assert.ok(legend?.includes(word), `the legend names "${word}": ${legend}`);
  const gapTitle = await page.getAttribute('.overview-strip .ov-gap', 'title');
  assert.match(gapTitle ?? '', new RegExp(`${info.notable.counts.error} errors`), `the gap says what the dropped bytes held: ${gapTitle}`);

  // The overview in words: every range and mark with its offset, each a button that goes there.
  let items = await listed(page);
  assert.ok(
    items.some((t) => /^Not in the preview: bytes [\d,]+ to [\d,]+$/.test(t)),
    `the omitted range is listed: ${items.slice(0, 4).join(' | ')}`,
  );
  assert.ok(
    items.some((t) => t.startsWith('Capture gap at byte')),
    'the capture gap is listed',
  );
  // Bounded: at most one mark per lane in a pixel column, each painted in its lane.
  let shown = await painted(page);
  for (const lane of ['error', 'warning', 'summary'] as Lane[]) assert.ok(shown.runs[lane].length > 0, `${lane} marks are painted`);
  assertBounded(shown, items);

  // Click-to-go: the last error mark shows the page holding that error, its line focused; hovered,
  // it says which line it is.
  const lastError = items.filter((t) => MARK_WORDS.error.test(t)).at(-1)!;
  const at = lastMarkAt(shown, 'error');
  await page.hover('.overview-strip', { position: at });
  await page.waitForFunction((words) => document.querySelector('.ov-marks')?.getAttribute('title') === words, lastError);
  let went = await navigate(page, () => page.click('.overview-strip', { position: at }));
  const lastOffset = byteOf(lastError, 'error');
  assert.ok(went.offset <= lastOffset && lastOffset < went.nextOffset, `the page holds byte ${lastOffset}: ${JSON.stringify(went)}`);
  assert.match(await focusedLine(page), /^error: step \d+ failed to link/);
  // Away from every mark and the gap, a click goes to the place under the pointer.
  const gapX = await page.evaluate(
    () =>
      document.querySelector('.ov-gap')!.getBoundingClientRect().left -
      document.querySelector('.overview-strip')!.getBoundingClientRect().left,
  );
  const clear = (x: number): boolean =>
    Math.abs(x - gapX) > 10 && LANES.every((lane) => shown.runs[lane].every((run) => run.to + 10 < x || x < run.from - 10));
  const x = Array.from({ length: Math.floor(shown.width / 2) }, (_, i) => i + 20).find(clear);
  assert.ok(x !== undefined, 'a place in the first half with no mark near it');
  went = await navigate(page, () => page.click('.overview-strip', { position: { x, y: laneRow('error').top + 1 } }));
  const place = Math.floor((x / shown.width) * info.totalBytes);
  // The page starts at a line start by that byte (the copy's lines here are ~30 bytes).
  assert.ok(Math.abs(went.offset - place) < 100, `the page starts by byte ${place}: ${went.offset}`);

  // The search's hits are marked too.
  await page.fill('.search-input', 'is slow');
  await page.press('.search-input', 'Enter');
  await page.waitForFunction(() => document.querySelector('.overview-legend')?.textContent?.includes('Search hits:'));
  items = await listed(page);
  shown = await painted(page);
  assert.ok(shown.runs.search.length > 0, 'the search hits are painted');
  assert.ok(
    items.some((t) => MARK_WORDS.search.test(t)),
    'and listed',
  );
  assertBounded(shown, items);
  const screenshot = path.join(ctx.artifactsDir, 'inspector-overview.png');

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
  went = await navigate(page, () => page.click('.notable-line >> nth=1'));
  assert.ok(went.firstLine <= Number(second.line) && Number(second.line) <= went.lastLine, `the page holds line ${second.line}`);
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
    await page.waitForFunction(() => /Search hits:.*/.test(document.querySelector('.overview-legend')?.textContent ?? ''));
    const shown = await painted(page);
    const theirs = await page.evaluate(() => {
      // The theme's own value of a variable, resolved by the browser (on a probe element).
      const resolved = (variable: string): string => {
        const probe = document.body.appendChild(document.createElement('div'));
        probe.style.backgroundColor = `var(${variable})`;
        const value = getComputedStyle(probe).backgroundColor;
        probe.remove();
        return value;
      };
      return {
        error: resolved('--vscode-editorOverviewRuler-errorForeground'),
        warning: resolved('--vscode-editorOverviewRuler-warningForeground'),
        summary: resolved('--vscode-editorOverviewRuler-infoForeground'),
        search: resolved('--vscode-editorOverviewRuler-findMatchForeground'),
        legend: [
          getComputedStyle(document.querySelector('.swatch.ov-error')!).backgroundColor,
          resolved('--vscode-editorOverviewRuler-errorForeground'),
        ],
      };
    });
    // The pixels painted in each lane are the theme's colour (a translucent one read back within rounding).
    for (const lane of LANES) {
      assert.ok(shown.runs[lane].length > 0, `${lane} marks are painted`);
      for (const run of shown.runs[lane]) assertColour(run.rgba, theirs[lane], `${lane} in ${theme}`);
    }
    assert.equal(theirs.legend[0], theirs.legend[1], `the legend's error swatch in ${theme}`);

    // A theme change (VS Code sets its variables on <html>) repaints the marks in the new colours.
    const at = lastMarkAt(shown, 'error');
    await page.evaluate(() => document.documentElement.style.setProperty('--vscode-editorOverviewRuler-errorForeground', '#00ff00'));
    await page.waitForFunction(({ x, y }) => {
      const canvas = document.querySelector<HTMLCanvasElement>('canvas.ov-marks')!;
      const ratio = canvas.width / canvas.getBoundingClientRect().width;
      const [r, g, b] = canvas.getContext('2d')!.getImageData(Math.floor(x * ratio), Math.floor(y * ratio), 1, 1).data;
      return r === 0 && g === 255 && b === 0;
    }, at);
    await page.evaluate(() => document.documentElement.style.removeProperty('--vscode-editorOverviewRuler-errorForeground'));
    await page.waitForFunction(({ x, y }) => {
      const canvas = document.querySelector<HTMLCanvasElement>('canvas.ov-marks')!;
      const ratio = canvas.width / canvas.getBoundingClientRect().width;
      return canvas.getContext('2d')!.getImageData(Math.floor(x * ratio), Math.floor(y * ratio), 1, 1).data[1] !== 255;
    }, at);
    assertColour((await painted(page)).runs.error[0].rgba, theirs.error, `error in ${theme}, the theme back`);

    if (theme === 'dark') {
      // At twice the pixel ratio (a zoom, a retina screen) the bitmap has twice the pixels, the same marks.
      // (Headless Chromium reports no event for the new ratio alone: a resize with it repaints, as a zoom does.)
      const cdp = await page.context().newCDPSession(page);
      for (const width of [1300, 1400]) {
        await cdp.send('Emulation.setDeviceMetricsOverride', { width, height: 900, deviceScaleFactor: 2, mobile: false });
        await page.waitForFunction(
          (width) =>
            innerWidth === width &&
            document.querySelector<HTMLCanvasElement>('canvas.ov-marks')!.width ===
              2 * document.querySelector('.overview-strip')!.clientWidth,
          width,
        );
      }
      const sharp = await painted(page);
      assert.deepEqual(
        LANES.map((lane) => sharp.runs[lane].map((r) => [r.from, r.to])),
        LANES.map((lane) => shown.runs[lane].map((r) => [r.from, r.to])),
        'the same marks at twice the pixels',
      );
      for (const lane of LANES) assertColour(sharp.runs[lane][0].rgba, theirs[lane], `${lane} at ratio 2`);
      await cdp.send('Emulation.clearDeviceMetricsOverride');
    }
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
  const shown = await painted(page);
  assertBounded(shown, await listed(page));
  await page.click('.overview-list summary');
  const { width, marks } = shown;
  assert.ok(columnsIn(shown.runs.error, width) >= width * 0.9, `nearly every column has its error mark (${marks} marks for ${width} px)`);
  // Each run: the strip made narrower or wider, so its marks are binned and painted anew. `paint`:
  // from the data (the new width) to the painted canvas, as the overview times it; `work`: from the
  // change to the canvas painted and laid out, taken by an observer of the strip's size that runs
  // after the overview's own (layout forced there); `frame`: to the next frame after that.
  const times: { paint: number; work: number; frame: number }[] = [];
  for (let run = 0; run < 12; run++) {
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
    `overview repaint over ${marks} marks (${width} px, ${times.length} paints): from the data to the painted canvas median ${median(paint).toFixed(1)} / max ${max(paint).toFixed(1)} ms (target ≤ 50 ms); ` +
      `from the resize to the canvas painted and laid out median ${median(work).toFixed(1)} / max ${max(work).toFixed(1)} ms; ` +
      `to the next frame median ${median(frame).toFixed(1)} / max ${max(frame).toFixed(1)} ms`,
  );
  ctx.log(
    `OVERVIEW_PAINT ${JSON.stringify({ marks, width, paintMs: median(paint), workMs: median(work), workMaxMs: max(work), frameMs: median(frame) })}`,
  );
  ctx.log(loadLine());
  assertNoErrors(panel.errors);
  await panel.close();
});
