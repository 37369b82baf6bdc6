// The inspector webview as a person sees it in the workbench, read through the driver (webview.ts)
// and the page-side probes (scripts/host/probes.mjs): the lines its panes render (chunks the browser
// skips because they are out of view are not read: they are not on screen), the page it shows, its
// flags. Selectors name classes and data attributes, not English labels.
import * as assert from 'node:assert/strict';
import { scaled } from '../../unit/helpers/timeScale';
import { Webview } from './webview';

export interface RenderedLine {
  /** The gutter's line number (pages), or null (the preview has no gutter). */
  number: number | null;
  /** The line's text as rendered (innerText). */
  text: string;
}

export interface ShownPage {
  offset: number;
  nextOffset: number;
  firstLine: number;
  lastLine: number;
}

export const PANES = { preview: '.preview-text', page: '.page-text' } as const;
export type Pane = keyof typeof PANES;

/** The editor panel's page, or the side view's (html.ts marks it data-surface="view"). */
const SURFACE = { panel: 'html:not([data-surface="view"]) #app', view: 'html[data-surface="view"] #app' } as const;

export class InspectorView extends Webview {
  constructor(
    readonly outputId: string,
    surface: keyof typeof SURFACE = 'panel',
  ) {
    super({ outputId, selector: SURFACE[surface] }, 20_000);
  }

  /** Waits until the inspector shows a page of the copy (its first load done). */
  async ready(): Promise<ShownPage> {
    await this.waitFor('.page-text[data-offset]', 'attached');
    return this.page();
  }

  /** The lines of a pane that the browser renders now (in or near the view), in order. */
  renderedLines(pane: Pane): Promise<RenderedLine[]> {
    return this.probe('renderedLines', PANES[pane]);
  }

  page(): Promise<ShownPage> {
    return this.probe('page');
  }

  /** Runs `action` and waits until the page shown starts elsewhere (or at `expected`). */
  async navigate(action: () => Promise<void>, expected?: number): Promise<ShownPage> {
    const before = await this.page();
    await action();
    const end = Date.now() + scaled(20_000); // a page shows in well under a second on an idle machine
    for (;;) {
      const now = await this.page();
      if (expected === undefined ? now.offset !== before.offset : now.offset === expected) return now;
      if (Date.now() > end) assert.fail(`the page stayed at ${now.offset} (expected ${expected ?? `a page other than ${before.offset}`})`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** The flags row: key → the protocol's value (data-value) and the words shown. */
  flags(): Promise<Record<string, { value: string; shown: string }>> {
    return this.probe('flags');
  }

  /** Whether `target` is rendered and wholly inside the visible box of `container`. */
  inside(container: string, target: string): Promise<boolean> {
    return this.probe('inside', { container, target });
  }

  /** When the page's document was loaded: a reload makes a new one. */
  loadedAt(): Promise<number> {
    return this.probe('loadedAt');
  }

  /** An input's current value. */
  value(selector: string): Promise<string | null> {
    return this.probe('value', selector);
  }

  /** Whether a character draws in a pane's font as a glyph, not as the missing-glyph box. */
  hasGlyph(pane: Pane, char: string): Promise<boolean> {
    return this.probe('hasGlyph', { selector: PANES[pane], char });
  }
}
