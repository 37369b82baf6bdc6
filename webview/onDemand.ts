/**
 * Rows put in on demand (renderText's `onDemand`, the preview): a text of any size keeps a bounded
 * number of rows live. See OnDemand.
 */
import { CHUNK_LINES, fillRow, newChunk, newRow, type Item, type RenderOptions } from './rows';

/**
 * Lines put in on demand: every chunk is there from the start, empty and as high as its lines
 * (`pending`, see the CSS), so the scroll range is the text's; a chunk gets its rows when it comes
 * within a pane's height of the view, and gives them up, keeping the height it had, when it leaves
 * that again. A 24,000-line preview so keeps a few hundred rows, not 72,000 nodes that every
 * collection and every frame of the shared main thread would walk (measured with bench/paint.mjs).
 * A copy of a selection gets the rows it covers first (`copying`).
 */
class OnDemand {
  private readonly observer: IntersectionObserver;

  /** `shown`: the chunks the text before had rows in, where the view is: they get theirs at once. */
  constructor(
    private readonly container: HTMLElement,
    private readonly lines: Item[][],
    private readonly options: RenderOptions,
    shown: number[],
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
    // No frame without the lines in view: the first ones on a first rendering, which is at the top.
    for (const index of shown.length > 0 ? shown : [0]) {
      const chunk = container.children[index] as HTMLElement | undefined;
      if (chunk) this.fill(chunk);
    }
    watchCopies(container);
  }

  /** Indices of the chunks that have their rows. */
  shown(): number[] {
    const indices: number[] = [];
    for (let i = 0; i < this.container.children.length; i++) if (!this.container.children[i].classList.contains('pending')) indices.push(i);
    return indices;
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

  /**
   * A copy is about to serialize the selection: the chunks it covers get their rows (the range
   * takes in what is inserted inside it), and those far from the view give them up again after.
   */
  copying(): void {
    const selection = document.getSelection();
    if (!selection || selection.isCollapsed) return;
    const filled: HTMLElement[] = [];
    for (const chunk of this.container.children as HTMLCollectionOf<HTMLElement>) {
      if (chunk.classList.contains('pending') && selection.containsNode(chunk, true)) {
        this.fill(chunk);
        filled.push(chunk);
      }
    }
    if (filled.length === 0) return;
    setTimeout(() => {
      if (demanded.get(this.container) !== this) return;
      const view = this.container.getBoundingClientRect();
      for (const chunk of filled) {
        const box = chunk.getBoundingClientRect();
        if (box.bottom < view.top - view.height || box.top > view.bottom + view.height) this.empty(chunk, box.height);
      }
    }, 0);
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
        this.empty(chunk, entry.boundingClientRect.height);
      }
    }
  }

  /** Drops the rows of `chunk`, which keeps `height` (when known). */
  private empty(chunk: HTMLElement, height: number): void {
    if (height > 0) chunk.style.height = `${height}px`;
    chunk.classList.add('pending');
    chunk.replaceChildren();
  }
}

/** The on-demand rendering each container shows, if any. */
const demanded = new WeakMap<HTMLElement, OnDemand>();
const copied = new WeakSet<HTMLElement>();

function watchCopies(container: HTMLElement): void {
  if (copied.has(container)) return;
  copied.add(container);
  // Caught on the way down from the document, before the browser serializes the selection.
  const copying = (): void => demanded.get(container)?.copying();
  document.addEventListener('copy', copying, { capture: true });
  document.addEventListener('cut', copying, { capture: true });
}

/** Shows `lines` in `container` on demand, in place of what it showed. */
export function renderOnDemand(container: HTMLElement, lines: Item[][], options: RenderOptions): void {
  const previous = demanded.get(container);
  previous?.stop();
  demanded.set(container, new OnDemand(container, lines, options, previous?.shown() ?? []));
}

/** Ends the on-demand rendering of `container`, if any: it shows all its rows now. */
export function stopOnDemand(container: HTMLElement): void {
  demanded.get(container)?.stop();
  demanded.delete(container);
}

/** Builds the rows of `chunk`, a chunk of `container`, if it is shown on demand and has none. */
export function fillChunk(container: HTMLElement, chunk: HTMLElement): void {
  demanded.get(container)?.fill(chunk);
}
