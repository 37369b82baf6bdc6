// Functions the driver runs inside a webview's document for the tests (driver op `probe`), by name:
// the page-side half of test/integration/helpers/inspectorView.ts. They live here, in plain
// JavaScript, because the extension-host tests are compiled without the DOM's types. Each takes one
// JSON argument and returns JSON. Selectors name classes and data attributes, never English labels.

/* global document, window, getComputedStyle, CSSStyleSheet, requestAnimationFrame, MutationObserver -- they run in the page */
// playwright sends each function's source to the page: they can use nothing outside themselves.
// "Rendered" means checkVisibility({ contentVisibilityAuto: true }): not inside a chunk of lines the
// browser skips because it is out of view.
export const PROBES = {
  /** The lines of a pane the browser renders now, in order: gutter number (pages; null in the preview) and text. */
  renderedLines: (selector) =>
    [...document.querySelectorAll(`${selector} .line`)]
      .filter((line) => !line.classList.contains('trailing') && line.checkVisibility({ contentVisibilityAuto: true }))
      .map((line) => {
        const number = line.querySelector('.ln')?.textContent;
        return { number: number ? Number(number) : null, text: line.querySelector('.text')?.innerText ?? '' };
      }),

  /**
   * Where the overview painted its first mark of `lane` (its canvas's pixels read back): a point in
   * the canvas's CSS pixels, for a click there; null when the lane has no mark. Rows as overview.ts's laneRow.
   */
  overviewMark: (lane) => {
    const canvas = document.querySelector('.overview-strip canvas.ov-marks');
    const index = ['error', 'warning', 'summary', 'search'].indexOf(lane);
    if (!canvas || index < 0 || canvas.width === 0) return null;
    const ratio = canvas.width / canvas.clientWidth;
    const y = 7 + 4 * index + 2;
    const row = canvas.getContext('2d').getImageData(0, Math.floor(y * ratio), canvas.width, 1).data;
    for (let x = 0; x < canvas.width; x++) if (row[4 * x + 3] > 0) return { x: (x + 0.5) / ratio, y };
    return null;
  },

  /** The page on screen, from the pager's data attributes. */
  page: () => {
    const data = document.querySelector('.page-text').dataset;
    return {
      offset: Number(data.offset),
      nextOffset: Number(data.nextOffset),
      firstLine: Number(data.firstLine),
      lastLine: Number(data.lastLine),
    };
  },

  /** The flags row: key → the protocol's value (data-value) and the words shown. */
  flags: () => {
    return Object.fromEntries(
      [...document.querySelectorAll('[data-flag]')].map((e) => [
        e.dataset.flag,
        { value: e.dataset.value ?? '', shown: e.querySelector('.flag-value')?.textContent ?? '' },
      ]),
    );
  },

  /**
   * The side view's layout (issue 29 item 6), measured as test/browser/sideView.test.ts measures it:
   * the elements that scroll besides the document and those inside another scroller; the search
   * placeholder's width against the room its box has; controls past the edge or cut; and, with the
   * document scrolled into the page of the copy, where the pager's head sits and how much of the page
   * shows below it. The view's own size too (what the side bar gives it).
   */
  sideViewLayout: () => {
    const doc = document.scrollingElement;
    const name = (e) => `${e.tagName.toLowerCase()}.${[...e.classList].join('.')}`;
    const scrolls = (e) => {
      const style = getComputedStyle(e);
      return (
        (/(auto|scroll)/.test(style.overflowY) && e.scrollHeight > e.clientHeight + 1) ||
        (/(auto|scroll)/.test(style.overflowX) && e.scrollWidth > e.clientWidth + 1)
      );
    };
    const all = [...document.querySelectorAll('#app *')].filter((e) => e.offsetParent !== null);
    const scrollers = all.filter(scrolls);
    const nested = scrollers.filter((e) => scrollers.some((other) => other !== e && other.contains(e))).map(name);
    // The placeholder as the box draws it: typed in as its value, does the text overflow the box?
    const input = document.querySelector('.search-input');
    const typed = input.value;
    input.value = input.placeholder;
    const placeholderWidth = input.scrollWidth;
    const room = input.clientWidth;
    input.value = typed;
    const width = document.documentElement.clientWidth;
    const clipped = [...document.querySelectorAll('#app button:not([hidden]), #app input, #app .flag, #app .field, #app label')]
      .filter((e) => e.offsetParent !== null)
      .filter((e) => {
        const box = e.getBoundingClientRect();
        return box.right > width + 0.5 || box.left < -0.5 || (e.tagName === 'BUTTON' && e.scrollWidth > e.clientWidth + 1);
      })
      .map((e) => `${name(e)} "${e.textContent?.trim() ?? ''}"`);
    const text = document.querySelector('.page-text');
    const before = doc.scrollTop;
    doc.scrollTop = text.getBoundingClientRect().top + doc.scrollTop + 200;
    const head = document.querySelector('.pager-head').getBoundingClientRect();
    const box = text.getBoundingClientRect();
    const pageVisible = Math.min(box.bottom, window.innerHeight) - Math.max(box.top, head.bottom);
    const headTop = head.top;
    doc.scrollTop = before;
    return {
      view: { width: window.innerWidth, height: window.innerHeight },
      docOverflow: doc.scrollHeight - doc.clientHeight,
      scrollers: scrollers.map(name),
      nested,
      headTop,
      pageVisible,
      placeholder: { text: input.placeholder, width: placeholderWidth, room },
      clipped,
    };
  },

  /** When this document was loaded (performance.timeOrigin): a reloaded page has a new one. */
  loadedAt: () => performance.timeOrigin,

  /** The document body's classes: VS Code sets its theme's (vscode-dark, vscode-light, vscode-high-contrast). */
  bodyClasses: () => [...document.body.classList],

  /** How many elements match `selector` (rendered or not): the nodes a pane keeps live. */
  count: (selector) => document.querySelectorAll(selector).length,

  /** The attributes of each element matching `selector` (the workbench's own widgets are found by them). */
  attributes: (selector) =>
    [...document.querySelectorAll(selector)].map((e) => Object.fromEntries([...e.attributes].map((a) => [a.name, a.value]))),

  /** An input's current value. */
  value: (selector) => {
    return document.querySelector(selector)?.value ?? null;
  },

  /** Whether `target` is rendered and lies wholly inside the visible box of `container`. */
  inside: ({ container, target }) => {
    const element = document.querySelector(target);
    if (!element?.checkVisibility({ contentVisibilityAuto: true })) return false;
    const outer = document.querySelector(container).getBoundingClientRect();
    const inner = element.getBoundingClientRect();
    return inner.top >= outer.top && inner.bottom <= outer.bottom && inner.height > 0;
  },

  /**
   * Whether `char` draws in the font of `selector` as a glyph of its own, not as the missing-glyph
   * box: drawn on a canvas beside U+10FFFD, a code point no installed font has.
   */
  hasGlyph: ({ selector, char }) => {
    const font = getComputedStyle(document.querySelector(selector)).font.replace(/\d+(\.\d+)?px/, '40px');
    const draw = (text) => {
      const canvas = document.createElement('canvas');
      canvas.width = 64;
      canvas.height = 64;
      const context = canvas.getContext('2d');
      context.font = font;
      context.fillText(text, 4, 48);
      return context.getImageData(0, 0, 64, 64).data.join(',');
    };
    const glyph = draw(char);
    return glyph !== draw('\u{10FFFD}') && glyph !== draw('');
  },

  /**
   * Slider input to painted page, per position: the time from the slider's `input` event until the
   * frame after the new page is in the DOM (requestAnimationFrame, then a task: that frame has been
   * produced). A position whose page does not arrive within `pageLimitMs` (10 s) counts as null, and
   * after three such in a row the rest are not tried (a hidden webview gets no frames: say so, never
   * hang). A frame that does not come within `frameLimitMs` (2 s) ends the wait for it too; the page
   * has no TEST_TIME_SCALE, so a test passes the limits scaled. `parts` splits each
   * time: to the new page in the DOM (request, host, reply, rendering), then to the frame after it.
   * With `css`, an extra stylesheet applies first (bench/paint.mjs compares renderings that way).
   */
  sliderToPaint: async ({ positions, css, pageLimitMs = 10_000, frameLimitMs = 2000 }) => {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(css ?? '');
    document.adoptedStyleSheets = [sheet];
    const nextFrame = () =>
      new Promise((r) => {
        requestAnimationFrame(() => setTimeout(r, 0));
        setTimeout(r, frameLimitMs);
      });
    await nextFrame();
    const slider = document.querySelector('.slider');
    const view = document.querySelector('.page-text');
    const times = [];
    const parts = [];
    let lostInARow = 0;
    for (const position of positions) {
      if (lostInARow >= 3) break;
      const before = view.dataset.offset;
      const started = performance.now();
      const shown = new Promise((resolve) => {
        const observer = new MutationObserver(() => {
          if (view.dataset.offset === before) return;
          observer.disconnect();
          resolve(true);
        });
        observer.observe(view, { attributes: true, attributeFilter: ['data-offset'] });
        setTimeout(() => {
          observer.disconnect();
          resolve(false);
        }, pageLimitMs);
      });
      slider.value = String(position);
      slider.dispatchEvent(new Event('input', { bubbles: true }));
      const arrived = await shown;
      const inDom = performance.now();
      if (arrived) await nextFrame();
      const painted = performance.now();
      lostInARow = arrived ? 0 : lostInARow + 1;
      times.push(arrived ? painted - started : null);
      // Where the time went: to the page in the DOM (the host's round trip and the rendering), the frame.
      if (arrived) parts.push({ toDom: inDom - started, frame: painted - inDom });
    }
    while (times.length < positions.length) times.push(null); // not tried: counted as never painted
    const lines = view.querySelectorAll('.line').length;
    document.adoptedStyleSheets = [];
    return { times, parts, lines, visibility: document.visibilityState };
  },
};

/**
 * Median, p95 and max (ms) of slider→paint times, in figures and in words; a page that never came
 * counts as lost. Runs in Node (the suites that report the probe's times), not in the page.
 */
export function paintFigures(times) {
  const done = times.filter((t) => t !== null).sort((a, b) => a - b);
  const at = (q) => done[Math.min(done.length - 1, Math.floor(done.length * q))];
  const values = { runs: times.length, lost: times.length - done.length, median: at(0.5), p95: at(0.95), max: done.at(-1) ?? NaN };
  const ms = (n) => `${n.toFixed(1)} ms`;
  const lost = values.lost ? `, ${values.lost} never painted` : '';
  return { values, summary: `median ${ms(values.median)}, p95 ${ms(values.p95)}, max ${ms(values.max)} over ${values.runs} jumps${lost}` };
}
