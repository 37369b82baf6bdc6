/** Reading the inspector's DOM from tests, the way a user sees it. */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';

export interface ShownPage {
  offset: number;
  nextOffset: number;
  firstLine: number;
  lastLine: number;
  /** The page's text as rendered (lines joined back with \n). */
  text: string;
  status: string;
}

export function shownPage(page: Page): Promise<ShownPage> {
  return page.evaluate(() => {
    const view = document.querySelector('.page-text') as HTMLElement;
    const lines = [...view.querySelectorAll(':scope > .chunk > .line > .text')].map((e) => {
      // The copy's own text only: not the inline notes the inspector adds (gap marks, buttons).
      const clone = e.cloneNode(true) as HTMLElement;
      clone.querySelectorAll('.gap-inline, .inline-action').forEach((n) => n.remove());
      return clone.textContent ?? '';
    });
    return {
      offset: Number(view.dataset.offset),
      nextOffset: Number(view.dataset.nextOffset),
      firstLine: Number(view.dataset.firstLine),
      lastLine: Number(view.dataset.lastLine),
      text: lines.join('\n'),
      status: document.querySelector('.page-status')?.textContent ?? '',
    };
  });
}

/** Runs `action` and waits until the page on screen starts somewhere else (or at `expected`). */
export async function navigate(page: Page, action: () => Promise<unknown>, expected?: number): Promise<ShownPage> {
  const before = await page.evaluate(() => (document.querySelector('.page-text') as HTMLElement).dataset.offset);
  await action();
  await page.waitForFunction(
    ([prev, want]) => {
      const now = (document.querySelector('.page-text') as HTMLElement).dataset.offset;
      return want === null ? now !== prev : now === String(want);
    },
    [before ?? null, expected ?? null] as const,
    { timeout: 15000 },
  );
  return shownPage(page);
}

export async function flags(page: Page): Promise<Record<string, { value: string; shown: string; tip: string }>> {
  return page.evaluate(() =>
    Object.fromEntries(
      [...document.querySelectorAll<HTMLElement>('[data-flag]')].map((e) => {
        const tipId = e.getAttribute('aria-describedby');
        return [
          e.dataset.flag!,
          {
            value: e.dataset.value ?? '',
            shown: e.querySelector('.flag-value')?.textContent ?? '',
            tip: (tipId && document.getElementById(tipId)?.textContent) || '',
          },
        ];
      }),
    ),
  );
}

export async function typeOffset(page: Page, offset: number | string): Promise<void> {
  await page.fill('.input.offset', String(offset));
  await page.press('.input.offset', 'Enter');
}

export function assertNoErrors(errors: string[]): void {
  assert.deepEqual(errors, [], `errors in the page or host:\n${errors.join('\n')}`);
}

/** The preview pane's text as rendered, without the inspector's own buttons. */
export function shownPreview(page: Page): Promise<string> {
  return page.evaluate(() =>
    [...document.querySelectorAll('.preview-text > .chunk > .line > .text')]
      .map((e) => {
        const clone = e.cloneNode(true) as HTMLElement;
        clone.querySelectorAll('.gap-inline, .inline-action').forEach((n) => n.remove());
        return clone.textContent ?? '';
      })
      .join('\n'),
  );
}
