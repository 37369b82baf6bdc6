/**
 * An overview of the whole copy along the slider, like the editor's overview ruler: what the model
 * saw of it in its preview and what the preview left out, the capture gap, the notable lines (errors,
 * warnings, summaries) and the current search's hits, and the page on screen. Each mark goes to its
 * place when clicked; a legend names the colours (the theme's own overview-ruler colours), and a list
 * of the marks with their offsets is the same overview in words.
 *
 * Bounded whatever the copy holds: the host sends the notable lines binned (notable/marks.ts), and
 * here each lane keeps one mark per pixel column, the column's first line and how many it stands for.
 */
import * as l10n from '@vscode/l10n';
import { h } from './dom';
import { countsText } from './notableList';
import type { DescribeResult, NotableMarks, PageResult, SearchMatch } from './protocol';
import { bytes, num } from './sizes';

export type Lane = 'error' | 'warning' | 'summary' | 'search';
/** The lanes, top to bottom: a pixel column holds at most one mark of each. */
export const LANES: readonly Lane[] = ['error', 'warning', 'summary', 'search'];

interface Mark {
  lane: Lane;
  col: number;
  offset: number;
  line: number;
  /** Lines (or hits) the mark stands for. */
  count: number;
  match?: SearchMatch;
}

/** Where a click on the overview goes. */
export type OverviewTarget =
  | { kind: 'line'; offset: number; line: number }
  | { kind: 'match'; match: SearchMatch }
  | { kind: 'gap' }
  | { kind: 'place'; offset: number };

/** Marks this many pixels from a click are taken as clicked (a 2 px mark is hard to hit). */
const REACH = 4;

export class Overview {
  readonly element: HTMLElement;
  private readonly strip = h('div', { className: 'overview-strip', attrs: { 'aria-hidden': 'true' } });
  private readonly legend = h('ul', { className: 'overview-legend', attrs: { 'aria-label': l10n.t('Legend of the overview') } });
  private readonly list = h('ol', { className: 'overview-marks' });
  private readonly details = h('details', { className: 'overview-list' }, h('summary', {}, l10n.t('Overview as a list')), this.list);
  private readonly pageBox = h('div', { className: 'ov-page' });
  private describe: DescribeResult | undefined;
  private notable: NotableMarks | undefined;
  private matches: SearchMatch[] = [];
  private page: PageResult | undefined;
  private marks: Mark[] = [];
  private width = 0;

  constructor(private readonly go: (target: OverviewTarget) => void) {
    this.element = h(
      'div',
      { className: 'overview', attrs: { role: 'group', 'aria-label': l10n.t('Overview of the whole copy') } },
      this.strip,
      this.legend,
      this.details,
    );
    this.strip.addEventListener('click', (event) => this.click(event));
    this.strip.addEventListener('mouseover', (event) => this.describeMark(event.target as HTMLElement));
    this.details.addEventListener('toggle', () => this.renderList());
    new ResizeObserver(() => {
      if (this.strip.clientWidth !== this.width) this.paint();
    }).observe(this.strip);
  }

  setOutput(describe: DescribeResult): void {
    const changed = describe.info.outputId !== this.describe?.info.outputId;
    this.describe = describe;
    if (changed) {
      this.notable = undefined;
      this.matches = [];
      this.page = undefined;
    }
    this.element.hidden = !!describe.unreadable || describe.info.evicted || describe.info.totalBytes === 0;
    this.update();
  }

  setNotable(notable: NotableMarks | undefined): void {
    this.notable = notable;
    this.update();
  }

  setMatches(matches: SearchMatch[]): void {
    this.matches = matches;
    this.update();
  }

  setPage(page: PageResult | undefined): void {
    this.page = page;
    this.placePage();
  }

  private update(): void {
    this.paint();
    this.renderLegend();
    this.renderList();
  }

  private total(): number {
    return this.describe?.info.totalBytes ?? 0;
  }

  private col(offset: number): number {
    return Math.max(0, Math.min(this.width - 1, Math.floor((offset / Math.max(1, this.total())) * this.width)));
  }

  /** Draws every mark: one per lane and pixel column at most. Its time is in `data-paint-ms`. */
  private paint(): void {
    const started = performance.now();
    this.width = this.strip.clientWidth;
    const total = this.total();
    if (!this.describe || this.width === 0 || total === 0) {
      this.marks = [];
      this.strip.replaceChildren();
      return;
    }
    const columns = new Map<number, Mark>();
    const add = (lane: Lane, offset: number, line: number, count: number, match?: SearchMatch): void => {
      const col = this.col(offset);
      const key = LANES.indexOf(lane) * this.width + col;
      const mark = columns.get(key);
      if (mark) mark.count += count;
      else columns.set(key, { lane, col, offset, line, count, match });
    };
    for (const mark of this.notable?.marks ?? []) add(mark.class, mark.offset, mark.line, mark.count);
    for (const match of this.matches) add('search', match.offset, match.line, 1, match);
    this.marks = [...columns.values()].sort((a, b) => a.offset - b.offset || LANES.indexOf(a.lane) - LANES.indexOf(b.lane));
    const parts = document.createDocumentFragment();
    const omitted = this.describe.preview.omitted;
    if (omitted && omitted.to > omitted.from) {
      parts.append(
        this.range('ov-seen', 0, omitted.from),
        this.range('ov-omitted', omitted.from, omitted.to),
        this.range('ov-seen', omitted.to, total),
      );
    } else if (this.describe.preview.text !== undefined) {
      parts.append(this.range('ov-seen', 0, total));
    }
    const gap = this.describe.info.gapOffset;
    if (gap !== undefined) parts.append(this.at(h('div', { className: 'ov-gap', title: this.gapText() }), gap));
    // Built plainly (thousands of them): their words are made only when hovered (`describeMark`).
    this.marks.forEach((mark, index) => {
      const element = document.createElement('div');
      element.className = `ov-mark ov-${mark.lane}`;
      element.dataset.index = String(index);
      element.dataset.col = String(mark.col);
      element.dataset.offset = String(mark.offset);
      element.style.left = `${mark.col}px`;
      parts.append(element);
    });
    parts.append(this.pageBox);
    this.strip.replaceChildren(parts);
    this.placePage();
    this.element.dataset.paintMs = (performance.now() - started).toFixed(2);
  }

  private at(element: HTMLElement, offset: number): HTMLElement {
    element.style.left = `${this.col(offset)}px`;
    return element;
  }

  private range(className: string, from: number, to: number): HTMLElement {
    const element = h('div', { className: `ov-range ${className}`, attrs: { 'data-from': from, 'data-to': to } });
    element.style.left = `${(from / this.total()) * 100}%`;
    element.style.width = `${((to - from) / this.total()) * 100}%`;
    return element;
  }

  private placePage(): void {
    const page = this.page;
    this.pageBox.hidden = !page || this.width === 0;
    if (!page || this.width === 0) return;
    const left = this.col(page.offset);
    this.pageBox.style.left = `${left}px`;
    this.pageBox.style.width = `${Math.max(2, this.col(page.nextOffset) - left)}px`;
  }

  private click(event: MouseEvent): void {
    const box = this.strip.getBoundingClientRect();
    const x = event.clientX - box.left;
    const index = (event.target as HTMLElement).dataset.index;
    // The mark clicked, else the nearest within reach, else the place in the copy under the pointer.
    let mark = index !== undefined ? this.marks[Number(index)] : undefined;
    if (!mark) {
      let best = REACH + 1;
      for (const candidate of this.marks) {
        const distance = Math.abs(candidate.col - x);
        if (distance < best) [best, mark] = [distance, candidate];
      }
    }
    const gap = this.describe?.info.gapOffset;
    if (mark) this.go(this.targetOf(mark));
    else if (gap !== undefined && Math.abs(this.col(gap) - x) <= REACH) this.go({ kind: 'gap' });
    else this.go({ kind: 'place', offset: Math.floor((Math.max(0, x) / Math.max(1, box.width)) * this.total()) });
  }

  private describeMark(element: HTMLElement): void {
    const mark = element.dataset.index !== undefined ? this.marks[Number(element.dataset.index)] : undefined;
    if (mark && !element.title) element.title = this.markText(mark);
  }

  private targetOf(mark: Mark): OverviewTarget {
    return mark.match ? { kind: 'match', match: mark.match } : { kind: 'line', offset: mark.offset, line: mark.line };
  }

  private markText(mark: Mark): string {
    const where = { line: num(mark.line), offset: num(mark.offset) };
    const first = {
      error: l10n.t('Error at line {line}, byte {offset}', where),
      warning: l10n.t('Warning at line {line}, byte {offset}', where),
      summary: l10n.t('Summary at line {line}, byte {offset}', where),
      search: l10n.t('Search hit at line {line}, byte {offset}', where),
    }[mark.lane];
    return mark.count > 1 ? `${first} ${l10n.t('(and {0} more near it)', num(mark.count - 1))}` : first;
  }

  private gapText(): string {
    const info = this.describe!.info;
    const dropped = l10n.t('Capture gap at byte {offset}: {size} dropped', {
      offset: num(info.gapOffset ?? 0),
      size: bytes(info.droppedBytes),
    });
    const counts = info.notable ? countsText(info.notable.counts) : '';
    return counts ? `${dropped} ${l10n.t('({0} in them)', counts)}` : dropped;
  }

  private renderLegend(): void {
    const d = this.describe;
    if (!d) return;
    const item = (className: string, label: string): HTMLElement =>
      h('li', { className: 'legend-item' }, h('span', { className: `swatch ${className}`, attrs: { 'aria-hidden': 'true' } }), label);
    const counts = this.notable?.counts;
    const omitted = d.preview.omitted;
    const items = [
      d.preview.text !== undefined ? item('ov-seen', l10n.t('Seen by the model')) : null,
      omitted ? item('ov-omitted', l10n.t('Not in the preview')) : null,
      d.info.gapOffset !== undefined ? item('ov-gap', l10n.t('Capture gap')) : null,
      counts?.error ? item('ov-error', l10n.t('Errors: {0}', num(counts.error))) : null,
      counts?.warning ? item('ov-warning', l10n.t('Warnings: {0}', num(counts.warning))) : null,
      counts?.summary ? item('ov-summary', l10n.t('Summaries: {0}', num(counts.summary))) : null,
      this.matches.length ? item('ov-search', l10n.t('Search hits: {0}', num(this.matches.length))) : null,
      item('ov-page', l10n.t('This page')),
    ];
    this.legend.replaceChildren(...items.filter((i): i is HTMLElement => i !== null));
  }

  /** The overview in words, built while it is open: the ranges, the gap and every mark, each a button that goes there. */
  private renderList(): void {
    const d = this.describe;
    if (!this.details.open || !d) {
      this.list.replaceChildren();
      return;
    }
    const entry = (text: string, target: OverviewTarget): HTMLElement =>
      h('li', {}, h('button', { className: 'link', attrs: { type: 'button' }, on: { click: () => this.go(target) } }, text));
    const entries: HTMLElement[] = [];
    const omitted = d.preview.omitted;
    if (omitted) {
      entries.push(
        entry(l10n.t('Seen by the model: bytes {from} to {to}', { from: 0, to: num(omitted.from) }), { kind: 'place', offset: 0 }),
      );
      entries.push(
        entry(l10n.t('Not in the preview: bytes {from} to {to}', { from: num(omitted.from), to: num(omitted.to) }), {
          kind: 'place',
          offset: omitted.from,
        }),
      );
      entries.push(
        entry(l10n.t('Seen by the model: bytes {from} to {to}', { from: num(omitted.to), to: num(this.total()) }), {
          kind: 'place',
          offset: omitted.to,
        }),
      );
    }
    if (d.info.gapOffset !== undefined) entries.push(entry(this.gapText(), { kind: 'gap' }));
    for (const mark of this.marks) entries.push(entry(this.markText(mark), this.targetOf(mark)));
    this.list.replaceChildren(...entries);
  }
}
