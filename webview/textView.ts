/**
 * Renders output text (a page of the copy, or the preview) as rows of lines. Every character of
 * the output goes in as text (createTextNode, Text.data, textContent): there is no path from output
 * to markup. Line numbers sit in an aria-hidden, unselectable gutter so a selection copies only the
 * output.
 */
import * as l10n from '@vscode/l10n';
import { parseAnsi, type Segment, type Style } from './ansi';
import { append, h } from './dom';

type Item =
  | { kind: 'text'; segment: Segment }
  | { kind: 'gap'; label: string; detail: string }
  | { kind: 'marker'; text: string; action?: { label: string; run(): void } };

export interface RenderOptions {
  /** Line number of the first line; omit for no gutter. */
  firstLine?: number;
  /** Show control characters and escape sequences as they are instead of interpreting SGR. */
  raw: boolean;
  /** Occurrences to highlight, matched within each line's visible text. */
  highlight?: RegExp;
  /** A capture gap at this UTF-16 index: bytes were dropped there. */
  gap?: { at: number; label: string; detail: string };
  /** The SGR style in force where the text starts (set before it, on an earlier page). */
  ansiState?: Style;
  /** The omission marker's span in the text (preview only). */
  marker?: { start: number; end: number; action?: { label: string; run(): void } };
  /**
   * Update the rows already in the container instead of building new ones (see updateRows). Only
   * when the caller keeps the scroll position as it is, so the chunks on screen stay there.
   */
  reuse?: boolean;
  /**
   * Build a chunk's rows only while it is near the view, and drop them when it is far again (see
   * renderOnDemand): for a text of any size (the preview), a bounded number of nodes stays live.
   * Its highlighted occurrences are not collected.
   */
  onDemand?: boolean;
}

export interface Rendered {
  lines: number;
  /** Highlighted occurrences, in order, for "scroll to match". */
  marks: HTMLElement[];
  /** The line (0-based) the omission marker is on, when there is one. */
  markerLine?: number;
}

/**
 * Lines per chunk. Chunks, not lines, carry `content-visibility: auto`: measured in nested
 * cross-origin iframes (as VS Code's webviews are), a 4096-line page rendered with the property on
 * every line took as long as without it, and with it on chunks of 64 lines about a tenth of that
 * (CONTRIBUTING.md, "Painting in the real host").
 */
export const CHUNK_LINES = 64;

/**
 * The row of line `index` (0-based) of what renderText last put in `container` (its chunk's rows
 * built first when they were not).
 */
export function lineRow(container: HTMLElement, index: number): HTMLElement | undefined {
  if (index < 0) return undefined;
  const chunk = container.children[Math.floor(index / CHUNK_LINES)] as HTMLElement | undefined;
  if (chunk) demanded.get(container)?.fill(chunk);
  return chunk?.children[index % CHUNK_LINES] as HTMLElement | undefined;
}

export function renderText(container: HTMLElement, text: string, options: RenderOptions): Rendered {
  const items = toItems(text, options);
  const lines = splitLines(items);
  const marks: HTMLElement[] = [];
  const first = options.firstLine;
  const markerLine = options.marker ? lines.findIndex((line) => line.some((item) => item.kind === 'marker')) : -1;
  const rendered = (): Rendered => (markerLine < 0 ? { lines: lines.length, marks } : { lines: lines.length, marks, markerLine });
  // Gutter as wide as the largest line number on the page (plus room), set through CSSOM.
  const digits = first === undefined ? 0 : String(first + lines.length).length;
  setVariable(container, '--gutter', first === undefined ? '0px' : `${Math.max(4, digits) + 2}ch`);
  watchChunks(container);
  demanded.get(container)?.stop();
  if (options.onDemand) {
    demanded.set(container, new OnDemand(container, lines, options));
    return rendered();
  }
  demanded.delete(container);
  const row = container.firstElementChild?.firstElementChild;
  if (options.reuse && row?.classList.contains('line') && (row.firstElementChild?.className === 'ln') === (first !== undefined)) {
    updateRows(container, lines, options, marks);
    return rendered();
  }
  // Plain blocks with a hanging indent, not a flex row per line: a 4096-line page lays out fast.
  // Rows go in chunks of CHUNK_LINES, and `content-visibility: auto` is on the chunk (see the CSS).
  const fragment = document.createDocumentFragment();
  for (let from = 0; from < lines.length; from += CHUNK_LINES) {
    const chunk = newChunk(Math.min(CHUNK_LINES, lines.length - from));
    for (let index = from; index < from + CHUNK_LINES && index < lines.length; index++) {
      chunk.appendChild(fillRow(newRow(first !== undefined), lines, index, options, marks));
    }
    fragment.appendChild(chunk);
  }
  container.replaceChildren(fragment);
  return rendered();
}

/**
 * Lines put in on demand: every chunk is there from the start, empty and as high as its lines
 * (`pending`, see the CSS), so the scroll range is the text's; a chunk gets its rows when it comes
 * within a pane's height of the view, and gives them up, keeping the height it had, when it leaves
 * that again. A 24,000-line preview so keeps a few hundred rows, not 72,000 nodes that every
 * collection and every frame of the shared main thread would walk (measured with bench/paint.mjs).
 */
class OnDemand {
  private readonly observer: IntersectionObserver;

  constructor(
    private readonly container: HTMLElement,
    private readonly lines: Item[][],
    private readonly options: RenderOptions,
  ) {
    this.observer = new IntersectionObserver((entries) => this.update(entries), { root: container, rootMargin: '100% 0px' });
    const fragment = document.createDocumentFragment();
    for (let from = 0; from < lines.length; from += CHUNK_LINES) {
      const chunk = newChunk(Math.min(CHUNK_LINES, lines.length - from));
      chunk.classList.add('pending');
      fragment.appendChild(chunk);
      this.observer.observe(chunk);
    }
    container.replaceChildren(fragment);
    // The first lines are what shows until the caller scrolls: no frame without them.
    const top = container.firstElementChild as HTMLElement | null;
    if (top) this.fill(top);
  }

  /** Builds the rows of `chunk` (one of this text's), unless it has them. */
  fill(chunk: HTMLElement): void {
    if (!chunk.classList.contains('pending')) return;
    const from = Array.prototype.indexOf.call(this.container.children, chunk) * CHUNK_LINES;
    const first = this.options.firstLine !== undefined;
    const marks: HTMLElement[] = [];
    for (let index = from; index < from + CHUNK_LINES && index < this.lines.length; index++) {
      chunk.appendChild(fillRow(newRow(first), this.lines, index, this.options, marks));
    }
    chunk.classList.remove('pending');
    chunk.style.removeProperty('height');
  }

  /** Ends the observation: the container shows another text now. */
  stop(): void {
    this.observer.disconnect();
  }

  private update(entries: IntersectionObserverEntry[]): void {
    const selection = document.getSelection();
    for (const entry of entries) {
      const chunk = entry.target as HTMLElement;
      if (entry.isIntersecting) {
        this.fill(chunk);
      } else if (!chunk.classList.contains('pending') && entry.rootBounds && !selection?.containsNode(chunk, true)) {
        // Far from the view (and holding no selection): the rows go, the height stays. A pane not
        // laid out (hidden) reports no root bounds and keeps its rows.
        const height = entry.boundingClientRect.height;
        if (height > 0) chunk.style.height = `${height}px`;
        chunk.classList.add('pending');
        chunk.replaceChildren();
      }
    }
  }
}

/** The on-demand rendering each container shows, if any. */
const demanded = new WeakMap<HTMLElement, OnDemand>();

/**
 * Puts `lines` into the chunks and rows `container` already holds, adding or removing what the
 * count differs by. On a 4096-line page this takes a tenth of the time that building 12,000
 * elements does and leaves none behind for the collector (measured in the real host with
 * bench/paint.mjs). The text still goes in only as text (Text.data, textContent).
 *
 * A chunk the browser has laid out remembers that height (`contain-intrinsic-block-size: auto`)
 * and keeps it while skipped: one skipped now would show the new lines at the old lines' height.
 * Those chunks are replaced by fresh ones (their rows moved over), which count one line per line
 * again, as a new page's chunks do. A chunk on screen stays on screen (the caller keeps the scroll
 * position), so the browser lays it out with its new lines.
 */
function updateRows(container: HTMLElement, lines: Item[][], options: RenderOptions, marks: HTMLElement[]): void {
  const count = Math.ceil(lines.length / CHUNK_LINES);
  while (container.children.length > count) container.lastElementChild!.remove();
  // A selection inside the rows would now cover other text: collapse it as replacing them would.
  const selection = document.getSelection();
  if (selection?.anchorNode && (container.contains(selection.anchorNode) || container.contains(selection.focusNode))) {
    selection.collapse(container, 0);
  }
  for (let c = 0; c < count; c++) {
    const from = c * CHUNK_LINES;
    const size = Math.min(CHUNK_LINES, lines.length - from);
    let chunk = container.children[c] as HTMLElement | undefined;
    if (!chunk) {
      chunk = container.appendChild(newChunk(size));
    } else if (skippedAfterShown.has(chunk)) {
      const fresh = newChunk(size);
      fresh.append(...chunk.children);
      chunk.replaceWith(fresh);
      chunk = fresh;
    } else {
      setVariable(chunk, '--lines', String(size));
    }
    const rows = chunk.children;
    while (rows.length > size) chunk.lastElementChild!.remove();
    for (let i = 0; i < size; i++) {
      const row = (rows[i] as HTMLElement | undefined) ?? chunk.appendChild(newRow(options.firstLine !== undefined));
      fillRow(row, lines, from + i, options, marks);
    }
  }
}

/** Chunks laid out once and skipped now (off screen), from the browser's events (see updateRows). */
const skippedAfterShown = new WeakSet<Element>();
const shownOnce = new WeakSet<Element>();
const watched = new WeakSet<HTMLElement>();

function watchChunks(container: HTMLElement): void {
  if (watched.has(container)) return;
  watched.add(container);
  // Fired at each chunk when it starts or stops being skipped, and once when it is first placed,
  // a frame or two after the change (a page painted that soon after a scroll may keep one chunk's
  // old height: an estimate, as the line count is). It does not bubble: caught on the way down.
  container.addEventListener(
    'contentvisibilityautostatechange',
    (event) => {
      const chunk = event.target as Element;
      if ((event as Event & { skipped?: boolean }).skipped) {
        if (shownOnce.has(chunk)) skippedAfterShown.add(chunk);
      } else {
        shownOnce.add(chunk);
        skippedAfterShown.delete(chunk);
      }
    },
    { capture: true },
  );
}

function newChunk(lines: number): HTMLElement {
  const chunk = document.createElement('div');
  chunk.className = 'chunk';
  // Its height while skipped: one line each (the remembered real height once it was shown).
  chunk.style.setProperty('--lines', String(lines));
  return chunk;
}

/** An empty row: the gutter (with an empty text node for its number) and the text span. */
function newRow(gutter: boolean): HTMLElement {
  const row = document.createElement('div');
  row.className = 'line';
  if (gutter) {
    const number = document.createElement('span');
    number.className = 'ln';
    number.setAttribute('aria-hidden', 'true');
    number.appendChild(document.createTextNode(''));
    row.appendChild(number);
  }
  const body = document.createElement('span');
  body.className = 'text';
  row.appendChild(body);
  return row;
}

/** Shows line `index` in `row` (new, or one that showed another line: newRow's shape). */
function fillRow(row: HTMLElement, lines: Item[][], index: number, options: RenderOptions, marks: HTMLElement[]): HTMLElement {
  const line = lines[index];
  if (row.className !== 'line') row.className = 'line'; // a reused row drops focus-line and trailing
  if (options.firstLine !== undefined) (row.firstChild!.firstChild as Text).data = String(options.firstLine + index);
  const body = row.lastChild as HTMLElement;
  const only = line.length === 1 ? line[0] : undefined;
  if (line.length === 0) {
    if (body.firstChild) body.replaceChildren(); // an empty line
  } else if (only?.kind === 'text' && !only.segment.style && !only.segment.control && !options.highlight) {
    // The common case, without building pieces.
    const node = body.firstChild;
    if (node && node === body.lastChild && node.nodeType === Node.TEXT_NODE) (node as Text).data = only.segment.text;
    else body.textContent = only.segment.text;
  } else {
    if (body.firstChild) body.replaceChildren();
    renderLine(body, line, options.highlight, marks);
  }
  // The empty "line" after a final newline: kept in the DOM (the text stays exact), not shown.
  if (index === lines.length - 1 && index > 0 && line.length === 0) row.classList.add('trailing');
  return row;
}

/** Sets a custom property only when it changes: each write makes the browser restyle the subtree. */
function setVariable(element: HTMLElement, name: string, value: string): void {
  if (element.style.getPropertyValue(name) !== value) element.style.setProperty(name, value);
}

function toItems(text: string, options: RenderOptions): Item[] {
  const cuts: { at: number; end: number; item: Item }[] = [];
  if (options.marker) {
    const { start, end, action } = options.marker;
    cuts.push({ at: start, end, item: { kind: 'marker', text: text.slice(start, end), action } });
  }
  if (options.gap && options.gap.at >= 0 && options.gap.at <= text.length) {
    cuts.push({ at: options.gap.at, end: options.gap.at, item: { kind: 'gap', label: options.gap.label, detail: options.gap.detail } });
  }
  cuts.sort((a, b) => a.at - b.at);
  const items: Item[] = [];
  let state: Style = options.ansiState ?? {};
  let at = 0;
  const pushText = (part: string): void => {
    const parsed = parseAnsi(part, state, options.raw);
    state = parsed.state;
    for (const segment of parsed.segments) items.push({ kind: 'text', segment });
  };
  for (const cut of cuts) {
    if (cut.at < at) continue;
    pushText(text.slice(at, cut.at));
    items.push(cut.item);
    at = cut.end;
  }
  pushText(text.slice(at));
  return items;
}

function splitLines(items: Item[]): Item[][] {
  const lines: Item[][] = [[]];
  for (const item of items) {
    if (item.kind !== 'text' || item.segment.control) {
      lines[lines.length - 1].push(item);
      continue;
    }
    const parts = item.segment.text.split('\n');
    parts.forEach((part, i) => {
      if (i > 0) lines.push([]);
      if (part.length > 0) lines[lines.length - 1].push({ kind: 'text', segment: { text: part, style: item.segment.style } });
    });
  }
  return lines;
}

function matchRanges(line: Item[], pattern: RegExp | undefined): [number, number][] {
  if (!pattern) return [];
  const visible = line.map((item) => (item.kind === 'text' ? item.segment.text : '')).join('');
  const ranges: [number, number][] = [];
  pattern.lastIndex = 0;
  for (let m = pattern.exec(visible); m && ranges.length < 1000; m = pattern.exec(visible)) {
    if (m[0].length === 0) {
      pattern.lastIndex++;
      continue;
    }
    ranges.push([m.index, m.index + m[0].length]);
  }
  return ranges;
}

function renderLine(body: HTMLElement, line: Item[], highlight: RegExp | undefined, marks: HTMLElement[]): void {
  const ranges = matchRanges(line, highlight);
  let position = 0;
  let range = 0;
  for (const item of line) {
    if (item.kind === 'gap') {
      body.appendChild(
        h('span', { className: 'gap-inline', title: item.detail, attrs: { role: 'note', 'aria-label': item.detail } }, item.label),
      );
      continue;
    }
    if (item.kind === 'marker') {
      body.appendChild(h('mark', { className: 'omission', attrs: { 'aria-label': l10n.t('Omission marker: {0}', item.text) } }, item.text));
      if (item.action) {
        const action = item.action;
        body.appendChild(
          h(
            'button',
            { className: 'btn secondary inline-action', attrs: { type: 'button' }, on: { click: () => action.run() } },
            action.label,
          ),
        );
      }
      continue;
    }
    const { segment } = item;
    const end = position + segment.text.length;
    let cursor = position;
    while (cursor < end) {
      while (range < ranges.length && ranges[range][1] <= cursor) range++;
      const current = ranges[range];
      const inside = current !== undefined && current[0] <= cursor;
      const stop = Math.min(end, current === undefined ? end : inside ? current[1] : current[0]);
      const piece = segment.text.slice(cursor - position, stop - position);
      const node = styled(piece, segment);
      if (inside) {
        const mark = h('mark', { className: 'match' }, node);
        marks.push(mark);
        body.appendChild(mark);
      } else {
        append(body, node);
      }
      cursor = stop;
    }
    position = end;
  }
}

function styled(text: string, segment: Segment): Node {
  const { style, control } = segment;
  if (!style && !control) return document.createTextNode(text);
  const span = h('span', {}, text);
  if (control) span.className = 'ctrl';
  if (!style) return span;
  let fg = style.fg;
  let bg = style.bg;
  if (style.inverse) [fg, bg] = [bg ?? 'fg', fg ?? 'bg'];
  const classes: string[] = [];
  if (style.bold) classes.push('b');
  if (style.dim) classes.push('dim');
  if (style.italic) classes.push('i');
  if (style.underline) classes.push('u');
  if (style.strike) classes.push('s');
  if (typeof fg === 'number') classes.push(`fg${fg}`);
  else if (fg === 'bg') classes.push('fg-inverse');
  else if (fg) span.style.color = fg; // CSSOM, allowed by the CSP; the value is built from numbers
  if (typeof bg === 'number') classes.push(`bg${bg}`);
  else if (bg === 'fg') classes.push('bg-inverse');
  else if (bg) span.style.backgroundColor = bg;
  span.classList.add(...classes);
  return span;
}

/** One line of output (a search excerpt) into `element`, escapes interpreted like the pages. */
export function renderInline(element: HTMLElement, text: string, raw = false): void {
  const { segments } = parseAnsi(text, {}, raw);
  element.replaceChildren(...segments.map((segment) => styled(segment.text, segment)));
}

/**
 * UTF-16 index in `text` of the byte `byteDelta` bytes into it, or -1 when that cannot be known
 * exactly (U+FFFD stands for 1-3 original bytes of an ill-formed sequence).
 */
export function charIndexAtByte(text: string, byteDelta: number): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    if (bytes === byteDelta) return i;
    if (bytes > byteDelta) return -1;
    const code = text.charCodeAt(i);
    if (code === 0xfffd) return -1;
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes === byteDelta ? text.length : -1;
}
