/**
 * Search in the copy (text or regex, the engine's own search), results as a listbox with their
 * line and byte offset; choosing one shows the page that holds it with the match highlighted.
 */
import * as l10n from '@vscode/l10n';
import { h, toggle, uid } from './dom';
import { num } from './format';
import type { HostConnection } from './ipc';
import type { OutputInfo, SearchMatch } from './protocol';
import { renderInline } from './textView';

export interface SearchQuery {
  pattern: string;
  regex: boolean;
  caseSensitive: boolean;
}

export interface SearchEvents {
  /** The highlight for pages (undefined: none), after every search or when the query is cleared. */
  onHighlight(pattern: RegExp | undefined, query: SearchQuery | undefined): void;
  onPick(match: SearchMatch): void;
  /** The matches listed now (none once the search is cleared or fails): the overview marks them. */
  onMatches(matches: SearchMatch[]): void;
}

/** Page highlighting with the engine's semantics (JavaScript RegExp, `m`, `i` unless case-sensitive). */
export function highlightPattern(query: SearchQuery): RegExp | undefined {
  try {
    const source = query.regex ? query.pattern : query.pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return new RegExp(source, `gm${query.caseSensitive ? '' : 'i'}`);
  } catch {
    return undefined;
  }
}

export class SearchPanel {
  readonly element: HTMLElement;
  private outputId: string | undefined;
  private matches: SearchMatch[] = [];
  private active = -1;
  private seq = 0;
  /** What the copy lacks (an incomplete copy): a search cannot find what was dropped. */
  private missing: string | undefined;
  private readonly input = h('input', {
    className: 'input search-input',
    attrs: {
      type: 'search',
      spellcheck: 'false',
      autocomplete: 'off',
      placeholder: l10n.t('Search the copy'),
      'aria-label': l10n.t('Search the copy'),
    },
  });
  private readonly regex = toggle(l10n.t('Use regular expression'), '.*', false, () => this.rerun(), l10n.t('Use Regular Expression'));
  private readonly caseSensitive = toggle(l10n.t('Match case'), 'Aa', false, () => this.rerun(), l10n.t('Match Case'));
  private readonly summary = h('div', { className: 'search-summary', attrs: { 'aria-live': 'polite' } });
  private readonly list = h('div', {
    className: 'search-results',
    attrs: { role: 'listbox', tabindex: 0, 'aria-label': l10n.t('Search results'), hidden: true },
  });

  constructor(
    private readonly conn: HostConnection,
    private readonly events: SearchEvents,
  ) {
    const form = h(
      'form',
      { className: 'search-form', attrs: { role: 'search' } },
      this.input,
      this.regex,
      this.caseSensitive,
      h('button', { className: 'btn', attrs: { type: 'submit' } }, l10n.t('Search')),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.run();
    });
    this.input.addEventListener('keydown', (event) => {
      if (event.key === 'ArrowDown' && this.matches.length > 0) {
        event.preventDefault();
        this.list.focus();
        this.setActive(Math.max(0, this.active));
      }
    });
    this.list.addEventListener('keydown', (event) => this.onListKey(event));
    this.element = h('section', { className: 'search', attrs: { 'aria-label': l10n.t('Search the copy') } }, form, this.summary, this.list);
  }

  setOutput(outputId: string, query?: SearchQuery): void {
    this.outputId = outputId;
    if (query) {
      this.input.value = query.pattern;
      this.regex.setAttribute('aria-pressed', String(query.regex));
      this.caseSensitive.setAttribute('aria-pressed', String(query.caseSensitive));
    }
  }

  /** The copy's facts (after each describe): an incomplete copy's summaries say what was not searched. */
  setCopy(info: Pick<OutputInfo, 'complete' | 'droppedBytes' | 'gapOffset'>): void {
    this.missing = info.complete
      ? undefined
      : info.droppedBytes > 0 && info.gapOffset !== undefined
        ? l10n.t(
            'The copy is incomplete: {dropped} bytes of the output were dropped at byte {offset} and are not in it, so a match there cannot be found.',
            { dropped: num(info.droppedBytes), offset: num(info.gapOffset) },
          )
        : info.droppedBytes > 0
          ? l10n.t(
              'The copy is incomplete: {0} bytes of the output were dropped and are not in it, so a match there cannot be found.',
              num(info.droppedBytes),
            )
          : l10n.t('The copy is incomplete: the tool reported missing bytes, and a match in them cannot be found.');
  }

  query(): SearchQuery | undefined {
    const pattern = this.input.value;
    if (!pattern) return undefined;
    return {
      pattern,
      regex: this.regex.getAttribute('aria-pressed') === 'true',
      caseSensitive: this.caseSensitive.getAttribute('aria-pressed') === 'true',
    };
  }

  focus(): void {
    this.input.focus();
    this.input.select();
  }

  private rerun(): void {
    if (this.input.value) void this.run();
  }

  async run(): Promise<void> {
    const query = this.query();
    const outputId = this.outputId;
    if (!outputId) return;
    const seq = ++this.seq;
    if (!query) {
      // Searching for nothing clears the results, and says what a search needs.
      this.show([], false);
      this.summary.textContent = l10n.t('Type something to search for.');
      this.summary.classList.remove('error');
      this.events.onHighlight(undefined, undefined);
      return;
    }
    this.summary.textContent = l10n.t('Searching…');
    this.summary.classList.remove('error');
    try {
      const found = await this.conn.request('search', { outputId, ...query });
      if (seq !== this.seq) return;
      this.show(found.matches, found.truncated);
      this.events.onHighlight(highlightPattern(query), query);
    } catch (error) {
      if (seq !== this.seq) return;
      this.show([], false);
      this.summary.textContent = error instanceof Error ? error.message : String(error);
      this.summary.classList.add('error');
      this.events.onHighlight(undefined, query);
    }
  }

  private show(matches: SearchMatch[], truncated: boolean): void {
    this.matches = matches;
    this.events.onMatches(matches);
    this.active = -1;
    this.list.removeAttribute('aria-activedescendant');
    const count = num(matches.length);
    const found =
      matches.length === 0
        ? l10n.t('No matches in the copy.')
        : truncated
          ? l10n.t('{0}+ matches (the first {0} are listed). Choose one to show its page.', count)
          : matches.length === 1
            ? l10n.t('1 match. Choose one to show its page.')
            : l10n.t('{0} matches. Choose one to show its page.', count);
    this.summary.textContent = this.missing ? `${found} ${this.missing}` : found;
    this.summary.dataset.incomplete = this.missing ? 'true' : 'false';
    this.list.hidden = matches.length === 0;
    this.list.replaceChildren(
      ...matches.map((match, index) => {
        const option = h(
          'div',
          {
            className: 'search-result',
            id: uid('match'),
            attrs: { role: 'option', 'aria-selected': 'false', 'data-offset': match.offset, 'data-line': match.line },
          },
          h('span', { className: 'where' }, l10n.t('line {line} · byte {offset}', { line: num(match.line), offset: num(match.offset) })),
          excerpt(match.text),
        );
        option.addEventListener('click', () => {
          this.setActive(index);
          this.events.onPick(match);
        });
        return option;
      }),
    );
  }

  private setActive(index: number): void {
    const options = this.list.children;
    if (index < 0 || index >= options.length) return;
    options[this.active]?.setAttribute('aria-selected', 'false');
    this.active = index;
    const option = options[index] as HTMLElement;
    option.setAttribute('aria-selected', 'true');
    this.list.setAttribute('aria-activedescendant', option.id);
    option.scrollIntoView({ block: 'nearest' });
  }

  private onListKey(event: KeyboardEvent): void {
    const last = this.matches.length - 1;
    const moves: Record<string, number> = {
      ArrowDown: this.active + 1,
      ArrowUp: this.active - 1,
      Home: 0,
      End: last,
      PageDown: this.active + 10,
      PageUp: this.active - 10,
    };
    if (event.key in moves) {
      event.preventDefault();
      this.setActive(Math.max(0, Math.min(last, moves[event.key])));
    } else if ((event.key === 'Enter' || event.key === ' ') && this.active >= 0) {
      event.preventDefault();
      this.events.onPick(this.matches[this.active]);
    }
  }
}

function excerpt(text: string): HTMLElement {
  const element = h('span', { className: 'excerpt' });
  renderInline(element, text);
  return element;
}
