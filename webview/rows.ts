/**
 * The rows of output text (a page of the copy, or the preview): its lines as items (text segments
 * with their SGR style, the omission marker, a capture gap) and the DOM of a row and of a chunk of
 * rows. Every character of the output goes in as text (createTextNode, Text.data, textContent):
 * there is no path from output to markup. Line numbers sit in an aria-hidden, unselectable gutter
 * so a selection copies only the output.
 */
import * as l10n from '@vscode/l10n';
import { parseAnsi, type Segment, type Style } from './ansi';
import { append, h } from './dom';

export type Item =
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
   * Update the rows already in the container instead of building new ones (textView.ts updateRows). Only
   * when the caller keeps the scroll position as it is, so the chunks on screen stay there.
   */
  reuse?: boolean;
  /**
   * Build a chunk's rows only while it is near the view, and drop them when it is far again
   * (onDemand.ts): for a text of any size (the preview), a bounded number of nodes stays live.
   * Its highlighted occurrences are not collected.
   */
  onDemand?: boolean;
}

/**
 * Lines per chunk. Chunks, not lines, carry `content-visibility: auto`: measured in nested
 * cross-origin iframes (as VS Code's webviews are), a 4096-line page rendered with the property on
 * every line took as long as without it, and with it on chunks of 64 lines about a tenth of that
 * (CONTRIBUTING.md, "Painting in the real host").
 */
export const CHUNK_LINES = 64;

export function newChunk(lines: number): HTMLElement {
  const chunk = document.createElement('div');
  chunk.className = 'chunk';
  // Its height while skipped: one line each (the remembered real height once it was shown).
  chunk.style.setProperty('--lines', String(lines));
  return chunk;
}

/** An empty row: the gutter (with an empty text node for its number) and the text span. */
export function newRow(gutter: boolean): HTMLElement {
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
export function fillRow(row: HTMLElement, lines: Item[][], index: number, options: RenderOptions, marks: HTMLElement[]): HTMLElement {
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
export function setVariable(element: HTMLElement, name: string, value: string): void {
  if (element.style.getPropertyValue(name) !== value) element.style.setProperty(name, value);
}

export function toItems(text: string, options: RenderOptions): Item[] {
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

export function splitLines(items: Item[]): Item[][] {
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

export function styled(text: string, segment: Segment): Node {
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
