/**
 * Renders output text (a page of the copy, or the preview) as rows of lines (rows.ts), in chunks
 * of CHUNK_LINES: all built at once, or in place of the last page's rows (a page), or on demand
 * (onDemand.ts: the preview).
 */
import { parseAnsi } from './ansi';
import { fillChunk, renderOnDemand, stopOnDemand } from './onDemand';
import { CHUNK_LINES, fillRow, newChunk, newRow, setVariable, splitLines, styled, toItems, type Item, type RenderOptions } from './rows';

export interface Rendered {
  lines: number;
  /** Highlighted occurrences, in order, for "scroll to match". */
  marks: HTMLElement[];
  /** The line (0-based) the omission marker is on, when there is one. */
  markerLine?: number;
}

/**
 * The row of line `index` (0-based) of what renderText last put in `container` (its chunk's rows
 * built first when they were not).
 */
export function lineRow(container: HTMLElement, index: number): HTMLElement | undefined {
  if (index < 0) return undefined;
  const chunk = container.children[Math.floor(index / CHUNK_LINES)] as HTMLElement | undefined;
  if (chunk) fillChunk(container, chunk);
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
  if (options.onDemand) {
    renderOnDemand(container, lines, options);
    return rendered();
  }
  stopOnDemand(container);
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
