/**
 * The inspector answers what a person typed instead of acting on it silently: a page size out of
 * range (0, 99999, −3, 2.5) is replaced by the nearest one that works, and an inline note says which
 * range the box takes; searching for nothing says what a search needs. Errors from the engine reach
 * the page in words for people (src/extension/personMessages.ts), not the engine's texts for a model.
 */
import assert from 'node:assert/strict';
import { PanelDouble, test, type TestContext } from './harness';
import { tempStore } from './fixtures';
import { assertNoErrors } from './helpers';

const NOTE = '.field-note';

/** A copy of about 40 KB: many pages at any size. */
async function opened(ctx: TestContext): Promise<PanelDouble> {
  const store = await tempStore();
  const text = Array.from({ length: 2000 }, (_, i) => `build step ${i + 1}: compiled`).join('\n') + '\n';
  const { outputId } = await store.retain(text, { tool: 'run_command', title: 'make all' });
  return PanelDouble.open(ctx, { store, outputId });
}

test('a page size out of range is replaced by the nearest one, and a note says the box takes 1 to 4,096 bytes', async (ctx) => {
  const panel = await opened(ctx);
  const { page } = panel;
  assert.equal(await page.isHidden(NOTE), true, 'no note before anything is typed');
  const describedBy = await page.getAttribute('.input.size', 'aria-describedby');
  assert.equal(describedBy, await page.getAttribute(NOTE, 'id'), 'the box is described by its note');

  /** Types a size, leaves the box, and waits for the page to be read again at the size used. */
  const typeSize = async (typed: string, used: number) => {
    await page.fill('.input.size', typed);
    await page.press('.input.size', 'Tab');
    await page.waitForFunction(
      (size) => {
        const view = document.querySelector('.page-text') as HTMLElement;
        return (
          (document.querySelector('.input.size') as HTMLInputElement).value === String(size) &&
          Number(view.dataset.nextOffset) - Number(view.dataset.offset) <= size
        );
      },
      used,
      { timeout: 15_000 },
    );
  };

  for (const [typed, used] of [
    ['0', 1],
    ['99999', 4096],
    ['-3', 1],
    ['2.5', 2],
  ] as const) {
    await typeSize(typed, used);
    assert.equal(await page.isVisible(NOTE), true, `a note for ${typed}`);
    assert.equal(
      await page.textContent(NOTE),
      `A page holds 1 to 4,096 bytes: ${used.toLocaleString('en-US')} is used.`,
      `the note for ${typed}`,
    );
  }
  await typeSize('2048', 2048);
  assert.equal(await page.isHidden(NOTE), true, 'a size in range needs no note');
  assertNoErrors(panel.errors);
  await panel.close();
});

test('searching for nothing says to type something; a search then clears the hint', async (ctx) => {
  const panel = await opened(ctx);
  const { page } = panel;
  await page.fill('.search-input', '');
  await page.press('.search-input', 'Enter');
  await page.waitForFunction(() => document.querySelector('.search-summary')?.textContent !== '');
  assert.equal(await page.textContent('.search-summary'), 'Type something to search for.');
  assert.equal(await page.isVisible('.search-summary'), true);
  assert.equal(await page.isHidden('.search-results'), true);

  await page.fill('.search-input', 'build step 1999:');
  await page.press('.search-input', 'Enter');
  await page.waitForSelector('.search-result');
  assert.equal(await page.textContent('.search-summary'), '1 match. Choose one to show its page.');
  assertNoErrors(panel.errors);
  await panel.close();
});

test('a bad regular expression is explained for people: no "pass \\"regex\\": false", and how to search for the text as typed', async (ctx) => {
  const panel = await opened(ctx);
  const { page } = panel;
  await page.fill('.search-input', '(unclosed');
  await page.click('button[aria-label="Use regular expression"]');
  await page.waitForSelector('.search-summary.error');
  const summary = (await page.textContent('.search-summary')) ?? '';
  assert.match(summary, /turn off "Use Regular Expression" to search for the text as typed/);
  assert.doesNotMatch(summary, /"regex"|pass|search_tool_output/);
  assertNoErrors(panel.errors);
  await panel.close();
});
