/**
 * Escape sequences across page edges: pages are cut by bytes, so a sequence can start on one page and
 * end on the next. Neither half shows as text, the style it sets applies after the edge, and, read on
 * with Next, a colour set on an earlier page carries on; raw mode still shows every byte.
 */
import assert from 'node:assert/strict';
import { PanelDouble, test } from './harness';
import { tempStore } from './fixtures';
import { assertNoErrors, navigate, typeOffset } from './helpers';

// Byte 4094 starts "\x1b[32m": the first page (4096 bytes) ends with "\x1b[", the second starts with "32m".
const FILLER = ('x'.repeat(99) + '\n').repeat(40) + 'y'.repeat(94);
// Then a red run over the second page's end (byte 8192), reset on the third page.
const RED_START = 4096 + 3 + 'green text\x1b[0m after\n'.length;
const COPY =
  FILLER +
  '\x1b[32mgreen text\x1b[0m after\n' +
  '\x1b[31m' +
  'r'.repeat(8192 + 50 - RED_START - 5) +
  '\x1b[0m plain\n' +
  'tail line\n'.repeat(20);

/** The rendered lines of the page on screen: text, and the classes of the first styled span. */
function shownLines(page: PanelDouble['page']): Promise<{ text: string; firstClass: string }[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('.page-text .line > .text')].map((e) => ({
      text: e.textContent ?? '',
      firstClass: e.querySelector('span')?.className ?? '',
    })),
  );
}

async function open(ctx: Parameters<Parameters<typeof test>[1]>[0]): Promise<PanelDouble> {
  const store = await tempStore();
  const { outputId } = await store.retain(Buffer.from(COPY), { tool: 'run_command', title: 'colours' });
  return PanelDouble.open(ctx, { store, outputId });
}

test('a sequence split by a page edge shows on neither page, and its colour applies on the second', async (ctx) => {
  const panel = await open(ctx);
  const { page } = panel;
  const first = await shownLines(page);
  assert.equal(first.at(-1)!.text, 'y'.repeat(94), 'the first page ends without the start of the sequence');

  await navigate(page, () => page.click('button:has-text("Next")'), 4096);
  const second = await shownLines(page);
  assert.equal(second[0].text, 'green text after');
  assert.match(second[0].firstClass, /\bfg2\b/, 'the split sequence sets green');
  assertNoErrors(panel.errors);
  await panel.close();
});

test('arriving at the second page from elsewhere reads the text before it and finishes the sequence', async (ctx) => {
  const panel = await open(ctx);
  const { page } = panel;
  await navigate(page, () => page.click('button:has-text("End")'));
  await navigate(page, () => typeOffset(page, 4096), 4096);
  await page.waitForFunction(() => document.querySelector('.page-text .line > .text')?.textContent === 'green text after');
  assert.match((await shownLines(page))[0].firstClass, /\bfg2\b/);

  // Raw mode shows the bytes as they are: the page starts with the sequence's second half.
  await page.click('button[aria-label="Show control characters"]');
  await page.waitForFunction(() => document.querySelector('.page-text .line > .text')?.textContent?.startsWith('32m'));
  assertNoErrors(panel.errors);
  await panel.close();
});

test('read on with Next, a colour set on an earlier page carries on after the page edge', async (ctx) => {
  const panel = await open(ctx);
  const { page } = panel;
  await navigate(page, () => page.click('button:has-text("Next")'), 4096);
  await navigate(page, () => page.click('button:has-text("Next")'), 8192);
  const [line] = await shownLines(page);
  assert.equal(line.text, `${'r'.repeat(50)} plain`);
  assert.match(line.firstClass, /\bfg1\b/, 'still red');
  assertNoErrors(panel.errors);
  await panel.close();
});
