/**
 * An overview of the whole copy along the slider, like the editor's overview ruler: what the model
 * saw of it in its preview and what the preview left out, the capture gap, the notable lines (errors,
 * warnings, summaries) and the current search's hits, and the page on screen. Each mark goes to its
 * place when clicked; a legend names the colours (the theme's own overview-ruler colours), and a list
 * of the marks with their offsets is the same overview in words.
 *
 * Bounded whatever the copy holds: the host sends the notable lines binned (notable/marks.ts), and
 * here each lane keeps one mark per pixel column, the column's first line and how many it stands for.
 * The marks are painted on a canvas, as VS Code paints its own overview ruler (thousands of elements
 * took 50-75 ms to lay out); they stay here as data, for the click, the hover title and the list.
 */
import * as l10n from '@vscode/l10n';
import { h } from './dom';
import { countsText } from './notableList';
import type { DescribeResult, NotableMarks, PageResult, SearchMatch } from './protocol';
import { bytes, num } from './sizes';

export type Lane = 'error' | 'warning' | 'summary' | 'search';
/** The lanes, top to bottom: a pixel column holds at most one mark of each. */
export const LANES: readonly Lane[] = ['error', 'warning', 'summary', 'search'];

/** Where a lane's marks are painted in the strip, in CSS pixels (under the ranges' 5 px row). */
export function laneRow(lane: Lane): { top: number; height: number } {
  return { top: 7 + 4 * LANES.indexOf(lane), height: 4 };
}
/** A mark's width in CSS pixels: a mark at column c covers c to c + 2. */
const MARK_WIDTH = 2;

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
  private readonly canvas = h('canvas', { className: 'ov-marks' });
  private readonly strip = h('div', { className: 'overview-strip', attrs: { 'aria-hidden': 'true' } }, this.canvas);
  private readonly legend = h('ul', { className: 'overview-legend', attrs: { 'aria-label': l10n.t('Legend of the overview') } });
  private readonly list = h('ol', { className: 'overview-marks' });
  private readonly details = h('details', { className: 'overview-list' }, h('summary', {}, l10n.t('Overview as a list')), this.list);
  private readonly pageBox = h('div', { className: 'ov-page' });
  private describe: DescribeResult | undefined;
  private notable: NotableMarks | undefined;
  private matches: SearchMatch[] = [];
  private page: PageResult | undefined;
  private marks: Mark[] = [];
  /** The marks by lane and column (`lane index × width + column`), for finding the one under the pointer. */
  private grid: (Mark | undefined)[] = [];
  private width = 0;
  private ratio = 0;

  constructor(private readonly go: (target: OverviewTarget) => void) {
    this.element = h(
      'div',
      { className: 'overview', attrs: { role: 'group', 'aria-label': l10n.t('Overview of the whole copy') } },
      this.strip,
      this.legend,
      this.details,
    );
    this.strip.addEventListener('click', (event) => this.click(event));
    this.strip.addEventListener('mousemove', (event) => this.describeMark(event));
    this.details.addEventListener('toggle', () => this.renderList());
    // A canvas follows neither the layout nor the theme by itself: repaint when its size in device
    // pixels changes (a new width, or a new pixel ratio: a zoom, another screen), and when VS Code
    // changes the theme (its variables on <html>, its class on <body>).
    new ResizeObserver(() => {
      if (this.strip.clientWidth !== this.width || devicePixelRatio !== this.ratio) this.paint();
    }).observe(this.strip, { box: 'device-pixel-content-box' });
    const theme = new MutationObserver(() => this.paint());
    theme.observe(document.documentElement, { attributes: true, attributeFilter: ['style', 'class'] });
    theme.observe(document.body, { attributes: true, attributeFilter: ['class'] });
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
    this.ratio = devicePixelRatio;
    const total = this.total();
    if (!this.describe || this.width === 0 || total === 0) {
      this.marks = [];
      this.grid = [];
      this.strip.replaceChildren(this.canvas);
      this.canvas.width = 0;
      return;
    }
    const grid = new Array<Mark | undefined>(LANES.length * this.width);
    const add = (lane: Lane, offset: number, line: number, count: number, match?: SearchMatch): void => {
      const col = this.col(offset);
      const key = LANES.indexOf(lane) * this.width + col;
      const mark = grid[key];
      if (mark) mark.count += count;
      else grid[key] = { lane, col, offset, line, count, match };
    };
    for (const mark of this.notable?.marks ?? []) add(mark.class, mark.offset, mark.line, mark.count);
    for (const match of this.matches) add('search', match.offset, match.line, 1, match);
    this.grid = grid;
    this.marks = grid.filter((m) => m !== undefined).sort((a, b) => a.offset - b.offset || LANES.indexOf(a.lane) - LANES.indexOf(b.lane));
    const parts = document.createDocumentFragment();
    parts.append(this.canvas);
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
    parts.append(this.pageBox);
    this.strip.replaceChildren(parts);
    this.drawMarks();
    this.placePage();
    this.element.dataset.paintMs = (performance.now() - started).toFixed(2);
  }

  /**
   * Paints the marks in device pixels (sharp at any zoom), a lane's neighbouring marks as one run so
   * that a translucent colour is never painted twice over. The colours are the theme's, read now.
   */
  private drawMarks(): void {
    const ratio = this.ratio;
    const height = this.strip.clientHeight;
    this.canvas.width = Math.round(this.width * ratio);
    this.canvas.height = Math.round(height * ratio);
    this.canvas.style.width = `${this.width}px`;
    this.canvas.style.height = `${height}px`;
    const context = this.canvas.getContext('2d');
    if (!context) return;
    const style = getComputedStyle(this.element);
    const device = (css: number): number => Math.round(css * ratio);
    LANES.forEach((lane, index) => {
      context.fillStyle = style.getPropertyValue(`--ov-${lane}`).trim();
      const row = laneRow(lane);
      const top = device(row.top);
      const rowHeight = device(row.top + row.height) - top;
      const fill = (from: number, to: number): void => context.fillRect(device(from), top, device(to) - device(from), rowHeight);
      let runFrom = -1;
      let runTo = -1;
      for (let col = 0, key = index * this.width; col < this.width; col++, key++) {
        if (!this.grid[key]) continue;
        if (col > runTo) {
          if (runFrom >= 0) fill(runFrom, runTo);
          runFrom = col;
        }
        runTo = Math.min(this.width, col + MARK_WIDTH);
      }
      if (runFrom >= 0) fill(runFrom, runTo);
    });
    this.canvas.dataset.marks = String(this.marks.length);
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
    const x = event.clientX - this.strip.getBoundingClientRect().left;
    const target = this.under(event);
    if (target === 'gap') this.go({ kind: 'gap' });
    else if (target) this.go(this.targetOf(target));
    else this.go({ kind: 'place', offset: Math.floor((Math.max(0, x) / Math.max(1, this.width)) * this.total()) });
  }

  /**
   * The mark under the pointer, else the nearest within reach (in the pointer's lane first: a click
   * on a red mark is an error's, whatever lies beside it), or the gap's marker if it is nearer.
   */
  private under(event: MouseEvent): Mark | 'gap' | undefined {
    const box = this.strip.getBoundingClientRect();
    const x = event.clientX - box.left;
    const y = event.clientY - box.top;
    const pointerLane = LANES.findIndex((lane) => y >= laneRow(lane).top && y < laneRow(lane).top + laneRow(lane).height);
    let best: Mark | undefined;
    let bestScore = Infinity;
    const first = Math.max(0, Math.floor(x) - REACH - MARK_WIDTH);
    const last = Math.min(this.width - 1, Math.ceil(x) + REACH);
    for (let lane = 0; lane < LANES.length; lane++) {
      for (let col = first; col <= last; col++) {
        const mark = this.grid[lane * this.width + col];
        if (!mark) continue;
        const distance = Math.max(0, col - x, x - (col + MARK_WIDTH));
        // Another lane's mark only when the pointer's lane has none within reach.
        const score = distance + (pointerLane >= 0 && lane !== pointerLane ? REACH + 1 : 0);
        if (distance <= REACH && score < bestScore) [best, bestScore] = [mark, score];
      }
    }
    const gap = this.describe?.info.gapOffset;
    const gapDistance = gap === undefined ? Infinity : Math.abs(this.col(gap) - x);
    if (gapDistance <= REACH && (!best || gapDistance < bestScore)) return 'gap';
    return best;
  }

  /** The title says what a click there goes to: the mark's words, the gap's own title, or none. */
  private describeMark(event: MouseEvent): void {
    const target = event.target === this.canvas ? this.under(event) : undefined;
    const title = target === 'gap' ? this.gapText() : target ? this.markText(target) : '';
    if (this.canvas.title !== title) this.canvas.title = title;
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
