/**
 * The preview pane builds a chunk's rows only near the view (webview/onDemand.ts): a preview of
 * 24,000 short lines keeps a few hundred rows live wherever it is scrolled, and every line of it is
 * still shown where it belongs.
 */
import assert from 'node:assert/strict';
import { previewHeadTail } from '../../src/core/preview';
import { PanelDouble, test } from './harness';
import { tempStore } from './fixtures';
import { assertNoErrors, shownPreview } from './helpers';

/** 64 KiB of lines, nearly all empty, every 50th numbered: the preview of 24 KiB has ~24,000 lines. */
const content = Array.from({ length: 64 * 1024 }, (_, i) => (i % 50 === 0 ? String(i) : '')).join('\n');

/** Rows in the preview pane now, and the texts of the non-empty ones in view, after the scroll settles. */
function liveRows(page: PanelDouble['page'], scrollTo: 'stay' | 'end' | 'start'): Promise<{ rows: number; inView: string[] }> {
  return page.evaluate(async (scrollTo) => {
    const pane = document.querySelector('.preview-text') as HTMLElement;
    if (scrollTo === 'end') pane.scrollTop = pane.scrollHeight;
    if (scrollTo === 'start') pane.scrollTop = 0;
    for (let i = 0; i < 10; i++) await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    const box = pane.getBoundingClientRect();
    const inView = [...pane.querySelectorAll<HTMLElement>('.line')]
      .filter((line) => {
        const rect = line.getBoundingClientRect();
        return rect.top >= box.top && rect.bottom <= box.bottom && line.textContent !== '';
      })
      .map((line) => line.textContent ?? '');
    return { rows: pane.querySelectorAll('.line').length, inView };
  }, scrollTo);
}

test('a preview of 24,000 lines keeps a few hundred rows live, wherever it is scrolled, and shows every line', async (ctx) => {
  const store = await tempStore();
  const { outputId } = await store.retain(content, { tool: 'run_command', title: 'many short lines' });
  const expected = previewHeadTail(Buffer.from(content), { budgetBytes: 24576, kind: 'command', outputId, copyComplete: true });
  const lines = expected.text.split('\n');
  assert.ok(lines.length > 20_000, `the preview has ${lines.length} lines`);
  const panel = await PanelDouble.open(ctx, { store, outputId });
  const page = panel.page;
  await page.waitForSelector('.preview-text mark.omission');
  const numbered = new Set(lines.filter((line) => line !== '' && !line.startsWith('[')));
  for (const where of ['stay', 'end', 'start'] as const) {
    const { rows, inView } = await liveRows(page, where);
    // A pane's height above and below the view, in chunks of 64: a few hundred rows, not 24,000.
    assert.ok(rows <= 8 * 64, `${rows} rows live (scrolled: ${where})`);
    assert.ok(inView.length > 0, `lines are shown (scrolled: ${where})`);
    for (const text of inView) assert.ok(numbered.has(text) || text.startsWith('[...'), `"${text.slice(0, 80)}" is a line of the preview`);
    if (where === 'end') assert.equal(inView.at(-1), lines.filter((line) => line !== '').at(-1));
    if (where === 'start') assert.equal(inView[0], lines[0]);
  }
  assert.equal(await shownPreview(page), expected.text, 'scrolled through, the pane shows the preview line for line');
  assertNoErrors(panel.errors);
  await panel.close();
});

test('a copy of the whole preview pane has every line, also those whose rows were not built', async (ctx) => {
  const store = await tempStore();
  const { outputId } = await store.retain(content, { tool: 'run_command', title: 'many short lines' });
  const expected = previewHeadTail(Buffer.from(content), { budgetBytes: 24576, kind: 'command', outputId, copyComplete: true });
  const panel = await PanelDouble.open(ctx, { store, outputId });
  const page = panel.page;
  await page.waitForSelector('.preview-text mark.omission');
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(page.url()).origin });
  const pending = await page.evaluate(() => {
    const pane = document.querySelector('.preview-text') as HTMLElement;
    const range = document.createRange();
    range.selectNodeContents(pane);
    document.getSelection()!.removeAllRanges();
    document.getSelection()!.addRange(range);
    return pane.querySelectorAll('.chunk.pending').length;
  });
  assert.ok(pending > 100, `${pending} chunks have no rows before the copy`);
  await page.keyboard.press('Control+C');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  // Every numbered line of the preview, in order (the marker's button text aside).
  const numbered = (text: string) => text.split('\n').filter((line) => /^\d+$/.test(line));
  assert.deepEqual(numbered(copied), numbered(expected.text));
  const rows = await page.evaluate(async () => {
    for (let i = 0; i < 5; i++) await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    return document.querySelectorAll('.preview-text .line').length;
  });
  assert.ok(rows <= 8 * 64, `the rows built for the copy are dropped again after it (${rows} live)`);
  assertNoErrors(panel.errors);
  await panel.close();
});
