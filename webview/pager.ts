/**
 * The byte-offset page scroller over the retained copy: slider, offset box, previous/next, start,
 * end, jump to a gap, and the page itself. Pages are fetched from the host one at a time; a newer
 * navigation supersedes an older one, and while the slider moves at most one request is in flight
 * (the latest position is sent when it returns), so dragging over 8 MiB never floods the host.
 */
import * as l10n from '@vscode/l10n';
import { button, h, ownScroller, scrollWithin, uid } from './dom';
import { hideTooltip } from './tooltip';
import { num } from './format';
import { linesNote, moreChip, seenByModel, statusText } from './pageFacts';
import type { HostConnection } from './ipc';
import { MAX_PAGE_BYTES, type DescribeResult, type PageResult, type SnapMode } from './protocol';
import { LEAD_DELAY_MS, PageEdges, type PageBody } from './pageEdges';
import { PageErrorBox } from './pageError';
import { charIndexAtByte, lineRow, renderText } from './textView';

export interface PagerEvents {
  onPage(page: PageResult | undefined): void;
}

export interface ViewOptions {
  wrap: boolean;
  raw: boolean;
  highlight?: RegExp;
}

export class Pager {
  readonly element: HTMLElement;
  page: PageResult | undefined;
  pageBytes = MAX_PAGE_BYTES;
  private describe: DescribeResult | undefined;
  private seq = 0;
  private sliderBusy = false;
  private sliderPending: number | undefined;
  private dragging = false;
  private focusLine: number | undefined;
  /** The next page painted scrolls its capture-gap marker into view (Capture gap). */
  private focusGap = false;
  private view: ViewOptions = { wrap: true, raw: false };
  private readonly edges: PageEdges;
  private leadTimer: ReturnType<typeof setTimeout> | undefined;

  private readonly slider = h('input', {
    className: 'slider',
    attrs: { type: 'range', min: 0, max: 0, step: 1, 'aria-label': l10n.t('Byte offset in the copy') },
  });
  private readonly offsetBox = h('input', {
    className: 'input offset',
    attrs: { type: 'text', inputmode: 'numeric', spellcheck: 'false', autocomplete: 'off', 'aria-label': l10n.t('Byte offset') },
  });
  private readonly sizeBox = h('input', {
    className: 'input size',
    attrs: { type: 'number', min: 1, max: MAX_PAGE_BYTES, step: 1, 'aria-label': l10n.t('Page size in bytes (1 to {0})', MAX_PAGE_BYTES) },
  });
  /** Says so when a typed page size was out of range (or not a whole number) and another is used. */
  private readonly sizeNote = h('span', { className: 'field-note', attrs: { role: 'status', hidden: true } });
  private readonly status = h('div', { className: 'page-status', attrs: { 'aria-live': 'polite' } });
  private readonly seen = h('div', { className: 'page-seen' });
  /** The page's own flag (hasMore), beside its position: it describes this page, not the output. */
  private readonly more = h('div', { className: 'page-more-slot' });
  /** Says that line numbers past the capture gap count the copy's lines, when the page is past it. */
  private readonly linesNote = h('div', { className: 'lines-note', attrs: { hidden: true } });
  private readonly error = new PageErrorBox({ go: (offset) => void this.go(offset), end: () => void this.end() });
  readonly text = h('div', {
    className: 'page-text',
    attrs: { tabindex: 0, role: 'region', 'aria-label': l10n.t('Page of the retained copy') },
  });
  private readonly buttons = {
    start: button(l10n.t('Start'), () => void this.go(0), {
      secondary: true,
      icon: '⇤',
      attrs: { 'aria-keyshortcuts': 'Alt+Home' },
      title: l10n.t('First page ({0})', 'Alt+Home'),
    }),
    prev: button(l10n.t('Previous'), () => void this.previous(), {
      secondary: true,
      icon: '‹',
      attrs: { 'aria-keyshortcuts': 'Alt+PageUp' },
      title: l10n.t('Previous page ({0})', 'Alt+PageUp'),
    }),
    next: button(l10n.t('Next'), () => void this.next(), {
      secondary: true,
      icon: '›',
      attrs: { 'aria-keyshortcuts': 'Alt+PageDown' },
      title: l10n.t('Next page: read from nextOffset ({0})', 'Alt+PageDown'),
    }),
    end: button(l10n.t('End'), () => void this.end(), {
      secondary: true,
      icon: '⇥',
      attrs: { 'aria-keyshortcuts': 'Alt+End' },
      title: l10n.t('Last page ({0})', 'Alt+End'),
    }),
    omitted: button(l10n.t('Preview gap'), () => this.describe?.preview.omitted && void this.go(this.describe.preview.omitted.from), {
      secondary: true,
      icon: '⤓',
      title: l10n.t('Jump to the first byte the model did not see in its preview'),
    }),
    gap: button(l10n.t('Capture gap'), () => void this.goToCaptureGap(), {
      secondary: true,
      icon: '⤓',
      title: l10n.t('Jump to where capture dropped bytes'),
    }),
    go: button(l10n.t('Go'), () => void this.goTyped(), { secondary: true, title: l10n.t('Show the page at this byte offset (Enter)') }),
  };

  constructor(
    private readonly conn: HostConnection,
    private readonly events: PagerEvents,
  ) {
    this.edges = new PageEdges(conn);
    const b = this.buttons;
    this.offsetBox.id = uid('offset');
    this.sizeBox.id = uid('size');
    this.offsetBox.setAttribute('aria-describedby', this.error.element.id);
    this.sizeNote.id = uid('size-note');
    this.sizeBox.setAttribute('aria-describedby', this.sizeNote.id);
    const offsetGroup = h(
      'div',
      { className: 'field' },
      h('label', { className: 'field-label', attrs: { for: this.offsetBox.id } }, l10n.t('Offset')),
      this.offsetBox,
      b.go,
    );
    const sizeGroup = h(
      'div',
      { className: 'field' },
      h('label', { className: 'field-label', attrs: { for: this.sizeBox.id } }, l10n.t('Page size')),
      this.sizeBox,
      h('span', { className: 'field-unit' }, l10n.t('bytes')),
      this.sizeNote,
    );
    this.element = h(
      'section',
      { className: 'pager', attrs: { 'aria-label': l10n.t('Page through the retained copy') } },
      // The navigation and the slider: in a narrow view (the side bar), where the document scrolls, they
      // stay at the top while the page is read, one row (inspector.css); the page's position follows.
      h(
        'div',
        { className: 'pager-head' },
        h(
          'div',
          { className: 'toolbar', attrs: { role: 'toolbar', 'aria-label': l10n.t('Page navigation') } },
          b.start,
          b.prev,
          b.next,
          b.end,
          b.omitted,
          b.gap,
        ),
        this.slider,
      ),
      h('div', { className: 'status-row' }, this.status, this.more, this.seen),
      this.linesNote,
      h('div', { className: 'toolbar' }, offsetGroup, sizeGroup),
      this.error.element,
      this.text,
    );

    this.slider.addEventListener('input', () => this.slide(Number(this.slider.value)));
    this.slider.addEventListener('pointerdown', () => {
      this.dragging = true;
    });
    const release = (): void => {
      this.dragging = false;
      if (this.page && !this.sliderBusy) this.slider.value = String(this.page.offset);
    };
    this.slider.addEventListener('pointerup', release);
    this.slider.addEventListener('change', release);
    // The native step (one byte) is useless on megabytes: arrows move a page, PageUp/Down ten.
    this.slider.addEventListener('keydown', (event) => {
      const keys: Record<string, () => void> = {
        ArrowRight: () => void this.next(),
        ArrowUp: () => void this.next(),
        ArrowLeft: () => void this.previous(),
        ArrowDown: () => void this.previous(),
        PageDown: () => this.slide(Math.min(this.total() - 1, (this.page?.offset ?? 0) + 10 * this.pageBytes)),
        PageUp: () => this.slide(Math.max(0, (this.page?.offset ?? 0) - 10 * this.pageBytes)),
        Home: () => void this.go(0),
        End: () => void this.end(),
      };
      const action = keys[event.key];
      if (action) {
        event.preventDefault();
        action();
      }
    });
    this.offsetBox.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') void this.goTyped();
    });
    this.offsetBox.addEventListener('input', () => this.clearError());
    this.sizeBox.addEventListener('change', () => {
      // (A number box hands over '' for what is not a number.) Out of range: the nearest size that is.
      const typed = this.sizeBox.value.trim() === '' ? NaN : Number(this.sizeBox.value);
      const size = Number.isFinite(typed) ? Math.max(1, Math.min(MAX_PAGE_BYTES, Math.floor(typed))) : MAX_PAGE_BYTES;
      this.sizeNote.hidden = typed === size;
      this.sizeNote.textContent =
        typed === size ? '' : l10n.t('A page holds 1 to {max} bytes: {size} is used.', { max: num(MAX_PAGE_BYTES), size: num(size) });
      this.sizeBox.value = String(size);
      this.pageBytes = size;
      if (this.page) void this.go(this.page.offset);
    });
    this.sizeBox.value = String(this.pageBytes);
  }

  total(): number {
    return this.describe?.info.totalBytes ?? 0;
  }

  /** A new description of the output (first show, or after `changed`). */
  setOutput(describe: DescribeResult, pageBytes: number): void {
    this.describe = describe;
    this.pageBytes = Math.max(1, Math.min(MAX_PAGE_BYTES, pageBytes));
    this.sizeBox.value = String(this.pageBytes);
    const total = describe.info.totalBytes;
    this.slider.max = String(Math.max(0, total - 1));
    const readable = !describe.unreadable && !describe.info.evicted;
    for (const control of [this.slider, this.offsetBox, this.sizeBox, ...Object.values(this.buttons)]) control.disabled = !readable;
    this.buttons.omitted.hidden = !describe.preview.omitted;
    this.buttons.gap.hidden = describe.info.gapOffset === undefined;
    if (!readable) {
      this.page = undefined;
      this.text.replaceChildren(h('p', { className: 'unreadable' }, describe.unreadable?.message ?? l10n.t('The copy cannot be read.')));
      this.status.textContent = '';
      this.seen.textContent = '';
      this.more.replaceChildren();
      this.linesNote.hidden = true;
      this.events.onPage(undefined);
    }
  }

  setView(view: Partial<ViewOptions>): void {
    this.view = { ...this.view, ...view };
    this.text.classList.toggle('nowrap', !this.view.wrap);
    if (this.page) this.render(this.page);
  }

  /**
   * Shows the page at `offset`; `snap: 'before'` moves a mid-character offset back to a boundary,
   * `'line'` to the start of the next line (the slider: a page then starts with a whole line).
   */
  async go(offset: number, snap: SnapMode = 'exact', focusLine?: number): Promise<boolean> {
    const outputId = this.describe?.info.outputId;
    if (!outputId) return false;
    return this.fetch(() => this.conn.request('page', { outputId, offset, maxBytes: this.pageBytes, snap }), focusLine);
  }

  previous(): Promise<boolean> {
    const outputId = this.describe?.info.outputId;
    if (!outputId || !this.page || this.page.offset === 0) return Promise.resolve(false);
    const end = this.page.offset;
    return this.fetch(() => this.conn.request('pageBefore', { outputId, end, maxBytes: this.pageBytes }));
  }

  next(): Promise<boolean> {
    if (!this.page?.hasMore) return Promise.resolve(false);
    return this.go(this.page.nextOffset);
  }

  end(): Promise<boolean> {
    const outputId = this.describe?.info.outputId;
    if (!outputId) return Promise.resolve(false);
    return this.fetch(() => this.conn.request('pageBefore', { outputId, end: this.total(), maxBytes: this.pageBytes }));
  }

  goToCaptureGap(): Promise<boolean> {
    const gap = this.describe?.info.gapOffset;
    if (gap === undefined) return Promise.resolve(false);
    // Start a little before the gap so both sides of it are in the page, and scroll its marker into view.
    const start = Math.max(0, gap - Math.floor(this.pageBytes / 2));
    return this.fetchPage(
      () => this.conn.request('page', { outputId: this.describe!.info.outputId, offset: start, maxBytes: this.pageBytes, snap: 'before' }),
      undefined,
      true,
    );
  }

  private slide(value: number): void {
    if (this.sliderBusy) {
      this.sliderPending = value;
      return;
    }
    this.sliderBusy = true;
    void this.go(value, 'line').finally(() => {
      this.sliderBusy = false;
      const pending = this.sliderPending;
      this.sliderPending = undefined;
      if (pending !== undefined) this.slide(pending);
      else if (!this.dragging && this.page) this.slider.value = String(this.page.offset);
    });
  }

  private async goTyped(): Promise<void> {
    const typed = this.offsetBox.value.trim().replace(/[,_\s]/g, '');
    if (!/^\d+$/.test(typed)) {
      this.showError(
        l10n.t('"{typed}" is not a byte offset: type a whole number from 0 to {max}.', {
          typed: this.offsetBox.value,
          max: num(this.total()),
        }),
      );
      return;
    }
    await this.go(Number(typed), 'exact');
  }

  private fetch(request: () => Promise<PageResult>, focusLine?: number): Promise<boolean> {
    return this.fetchPage(request, focusLine, false);
  }

  private async fetchPage(request: () => Promise<PageResult>, focusLine: number | undefined, focusGap: boolean): Promise<boolean> {
    const seq = ++this.seq;
    try {
      const page = await request();
      if (seq !== this.seq) return false; // a newer navigation won
      this.clearError();
      this.focusLine = focusLine;
      this.focusGap = focusGap;
      this.render(page);
      return true;
    } catch (error) {
      if (seq !== this.seq) return false;
      this.showError(error);
      return false;
    }
  }

  private render(page: PageResult): void {
    this.page = page;
    const { body, known } = this.edges.body(page, this.view.raw);
    this.paintText(page, body);
    if (!this.dragging && !this.sliderBusy) this.slider.value = String(page.offset);
    this.offsetBox.value = String(page.offset);
    this.updateStatus(page);
    this.updateButtons(page);
    this.events.onPage(page);
    // Read once the page stays: while the slider moves, pages pass by and the host has enough to do.
    clearTimeout(this.leadTimer);
    if (!known && !this.view.raw) this.leadTimer = setTimeout(() => void this.readLead(page), LEAD_DELAY_MS);
  }

  /**
   * The page's text (`body`: what of it shows, see pageEdges.ts), its capture gap and focus line.
   * `keepScroll`: the same page painted again, left scrolled where the reader has it.
   */
  private paintText(page: PageResult, body: PageBody, keepScroll = false): void {
    const gapOffset = this.describe?.info.gapOffset;
    let gap: { at: number; label: string; detail: string } | undefined;
    if (
      gapOffset !== undefined &&
      gapOffset >= page.offset &&
      gapOffset <= page.nextOffset &&
      (gapOffset < page.nextOffset || gapOffset === page.totalBytes)
    ) {
      const dropped = this.describe?.info.droppedBytes ?? 0;
      const at = charIndexAtByte(page.text, gapOffset - page.offset);
      const detail = l10n.t(
        'Capture dropped {dropped} bytes here (at byte {offset}): the text on either side was not adjacent in the real output.',
        { dropped: num(dropped), offset: num(gapOffset) },
      );
      const label = dropped === 1 ? l10n.t('1 byte dropped here') : l10n.t('{0} bytes dropped here', num(dropped));
      gap = { at: at < 0 ? 0 : at, label: ` ⟪ ${label} ⟫ `, detail };
    }
    if (gap) gap.at = Math.max(0, gap.at - body.skip);
    // A page shown from the top updates the rows on screen in place (renderText's `reuse`) when they
    // stay on screen: the view was at the top already, or keeps its place. The scroll is read and
    // reset before the new text goes in, while the layout is clean: after, each would lay out the
    // new page there and then, not in the frame.
    const focus = this.focusLine !== undefined || this.focusGap;
    const reuse = !focus && (keepScroll || this.text.scrollTop === 0);
    if (!focus && !keepScroll) {
      this.text.scrollTop = 0;
      // A narrow view scrolls as a whole (the text is no scroller then): show the new page's top.
      if (!ownScroller(this.text)) {
        const head = this.element.querySelector('.pager-head')?.getBoundingClientRect().bottom ?? 0;
        const top = this.text.getBoundingClientRect().top;
        if (top < head) document.scrollingElement?.scrollBy(0, top - head);
      }
    }
    renderText(this.text, body.text, {
      firstLine: page.firstLine,
      raw: this.view.raw,
      highlight: this.view.highlight,
      gap,
      ansiState: body.state,
      reuse,
    });
    const data = this.text.dataset;
    data.offset = String(page.offset);
    data.nextOffset = String(page.nextOffset);
    data.firstLine = String(page.firstLine);
    data.lastLine = String(page.lastLine);
    if (this.focusLine !== undefined) {
      const row = lineRow(this.text, this.focusLine - page.firstLine);
      row?.classList.add('focus-line');
      const target = row?.querySelector<HTMLElement>('mark.match') ?? row;
      if (target) scrollWithin(this.text, target);
    } else if (this.focusGap) {
      const marker = this.text.querySelector<HTMLElement>('.gap-inline');
      if (marker) scrollWithin(this.text, marker);
    }
  }

  /** Reads the text before the page on screen and paints the page again if it finishes a sequence. */
  private async readLead(page: PageResult): Promise<void> {
    const outputId = this.describe?.info.outputId;
    if (!outputId) return;
    let body: PageBody | undefined;
    try {
      body = await this.edges.read(outputId, page);
    } catch {
      return; // the page stays as shown: its first characters may be the rest of a sequence
    }
    if (!body || this.page !== page || this.view.raw) return;
    const top = this.text.scrollTop;
    this.paintText(page, body, true);
    if (this.focusLine === undefined && !this.focusGap) this.text.scrollTop = top;
  }

  private updateStatus(page: PageResult): void {
    const status = statusText(page, this.describe?.totalLines);
    this.status.textContent = status.text;
    this.slider.setAttribute('aria-valuetext', status.sliderLabel);
    const focused = this.more.contains(document.activeElement);
    hideTooltip();
    const chip = moreChip(page);
    this.more.replaceChildren(chip);
    if (focused) chip.focus();
    const lines = linesNote(page, this.describe);
    this.linesNote.hidden = !lines.pastGap;
    this.text.dataset.lines = lines.pastGap ? 'copy' : 'output';
    this.linesNote.textContent = lines.text;
    const seen = seenByModel(page, this.describe);
    this.seen.dataset.seen = seen.seen;
    this.seen.textContent = seen.text;
  }

  private updateButtons(page: PageResult): void {
    this.buttons.prev.disabled = page.offset === 0;
    this.buttons.start.disabled = page.offset === 0;
    this.buttons.next.disabled = !page.hasMore;
    this.buttons.end.disabled = !page.hasMore;
  }

  private showError(error: unknown): void {
    this.error.show(error);
    this.offsetBox.setAttribute('aria-invalid', 'true');
  }

  private clearError(): void {
    this.error.clear();
    this.offsetBox.removeAttribute('aria-invalid');
  }

  /** Keyboard shortcuts that work anywhere in the panel. */
  handleGlobalKey(event: KeyboardEvent): boolean {
    if (!event.altKey || event.ctrlKey || event.metaKey) return false;
    const actions: Record<string, () => unknown> = {
      PageDown: () => this.next(),
      PageUp: () => this.previous(),
      Home: () => this.go(0),
      End: () => this.end(),
    };
    const action = actions[event.key];
    if (!action || !this.page) return false;
    action();
    return true;
  }
}
