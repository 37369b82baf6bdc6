/** Reading the inspector's DOM from tests, the way a user sees it. */
import assert from 'node:assert/strict';
import os from 'node:os';
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

/** The page's own flag (hasMore), shown with the pager: its value and its tooltip's text. */
export async function pageFlag(page: Page): Promise<{ value: string; tip: string }> {
  return page.evaluate(() => {
    const e = document.querySelector<HTMLElement>('[data-page-flag="hasMore"]');
    if (!e) return { value: 'none', tip: '' };
    const tipId = e.getAttribute('aria-describedby');
    return { value: e.dataset.value ?? '', tip: (tipId && document.getElementById(tipId)?.textContent) || '' };
  });
}

export async function typeOffset(page: Page, offset: number | string): Promise<void> {
  await page.fill('.input.offset', String(offset));
  await page.press('.input.offset', 'Enter');
}

/** The machine's load beside a measured figure: timings from a busy machine read differently. */
export const loadLine = (): string =>
  `(load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} on ${os.cpus().length} CPUs)`;

export function assertNoErrors(errors: string[]): void {
  assert.deepEqual(errors, [], `errors in the page or host:\n${errors.join('\n')}`);
}

/**
 * The preview pane's text as rendered, without the inspector's own buttons: its chunks get their
 * rows only near the view (onDemand.ts), so each one is scrolled to and read in turn,
 * and the pane is left scrolled where it was.
 */
export function shownPreview(page: Page): Promise<string> {
  return page.evaluate(async () => {
    const pane = document.querySelector('.preview-text') as HTMLElement;
    const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    const top = pane.scrollTop;
    const texts: string[] = [];
    for (const chunk of pane.querySelectorAll<HTMLElement>(':scope > .chunk')) {
      for (let frames = 0; chunk.classList.contains('pending') && frames < 100; frames++) {
        pane.scrollTop = chunk.offsetTop - pane.offsetTop;
        await frame();
      }
      for (const text of chunk.querySelectorAll(':scope > .line > .text')) {
        const clone = text.cloneNode(true) as HTMLElement;
        clone.querySelectorAll('.gap-inline, .inline-action').forEach((n) => n.remove());
        texts.push(clone.textContent ?? '');
      }
    }
    // Back where it was, its rows built again, for what the test reads next.
    pane.scrollTop = top;
    for (let frames = 0; frames < 3; frames++) await frame();
    return texts.join('\n');
  });
}
