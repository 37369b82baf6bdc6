/**
 * The notable lines of the copy as a list with a filter (all, errors, warnings, summaries), like the
 * Output view's: each line shows its page when chosen. The host lists the first lines of each class
 * (notable/marks.ts) and counts every one; the lines the capture dropped are named too, though no
 * page holds them.
 */
import * as l10n from '@vscode/l10n';
import { h } from './dom';
import type { DescribeResult, NotableMarks } from './protocol';
import { bytes, num } from './sizes';

type NotableClass = NotableMarks['lines'][number]['class'];
type Filter = NotableClass | 'all';

/** "11 errors, 3 warnings, 1 summary": what a digest's counts say, the classes with none left out. */
export function countsText(counts: Record<NotableClass, number>): string {
  const parts = [
    counts.error ? (counts.error === 1 ? l10n.t('1 error') : l10n.t('{0} errors', num(counts.error))) : '',
    counts.warning ? (counts.warning === 1 ? l10n.t('1 warning') : l10n.t('{0} warnings', num(counts.warning))) : '',
    counts.summary ? (counts.summary === 1 ? l10n.t('1 summary') : l10n.t('{0} summaries', num(counts.summary))) : '',
  ].filter(Boolean);
  return parts.join(l10n.t(', '));
}

export class NotableList {
  readonly element: HTMLDetailsElement;
  private readonly summary = h('summary', {}, l10n.t('Notable lines'));
  private readonly filters = h('div', {
    className: 'notable-filters',
    attrs: { role: 'radiogroup', 'aria-label': l10n.t('Show notable lines of') },
  });
  private readonly note = h('p', { className: 'notable-note', attrs: { role: 'status' } });
  private readonly list = h('ol', { className: 'notable-lines', attrs: { 'aria-label': l10n.t('Notable lines') } });
  private readonly dropped = h('div', { className: 'notable-dropped' });
  private describe: DescribeResult | undefined;
  private marks: NotableMarks | undefined;
  private filter: Filter = 'all';

  constructor(private readonly go: (offset: number, line: number) => void) {
    this.element = h('details', { className: 'notables' }, this.summary, this.filters, this.note, this.list, this.dropped);
    this.element.hidden = true;
  }

  setOutput(describe: DescribeResult): void {
    if (describe.info.outputId !== this.describe?.info.outputId) this.marks = undefined;
    this.describe = describe;
    this.render();
  }

  setNotable(marks: NotableMarks | undefined): void {
    this.marks = marks;
    this.render();
  }

  private render(): void {
    const counts = this.marks?.counts;
    const droppedDigest = this.describe?.info.notable;
    const inCopy = counts ? counts.error + counts.warning + counts.summary : 0;
    const inDropped = droppedDigest ? droppedDigest.counts.error + droppedDigest.counts.warning + droppedDigest.counts.summary : 0;
    this.element.hidden = inCopy + inDropped === 0;
    if (this.element.hidden) return;
    this.summary.textContent = counts && inCopy > 0 ? l10n.t('Notable lines: {0}', countsText(counts)) : l10n.t('Notable lines');
    this.renderFilters(counts);
    this.renderLines();
    this.renderDropped();
  }

  private renderFilters(counts: Record<NotableClass, number> | undefined): void {
    const choice = (filter: Filter, label: string): HTMLElement => {
      const element = h(
        'button',
        {
          className: 'toggle notable-filter',
          attrs: { type: 'button', role: 'radio', 'aria-checked': String(this.filter === filter), 'data-filter': filter },
          on: {
            click: () => {
              this.filter = filter;
              this.render();
              this.filters.querySelector<HTMLElement>(`[data-filter="${filter}"]`)?.focus();
            },
          },
        },
        label,
      );
      return element;
    };
    const c = counts ?? { error: 0, warning: 0, summary: 0 };
    this.filters.replaceChildren(
      choice('all', l10n.t('All')),
      choice('error', l10n.t('Errors ({0})', num(c.error))),
      choice('warning', l10n.t('Warnings ({0})', num(c.warning))),
      choice('summary', l10n.t('Summaries ({0})', num(c.summary))),
    );
  }

  private renderLines(): void {
    const marks = this.marks;
    if (!marks) {
      this.note.textContent = l10n.t('Finding the notable lines of the copy…');
      this.list.replaceChildren();
      return;
    }
    const lines = marks.lines.filter((line) => this.filter === 'all' || line.class === this.filter);
    const classes: NotableClass[] = this.filter === 'all' ? ['error', 'warning', 'summary'] : [this.filter];
    const cut = classes.filter((cls) => marks.counts[cls] > marks.listed);
    this.note.textContent =
      lines.length === 0
        ? l10n.t('None in the copy.')
        : cut.length > 0
          ? l10n.t('The first {0} of each kind are listed; the overview marks every one.', num(marks.listed))
          : '';
    const label = { error: l10n.t('error'), warning: l10n.t('warning'), summary: l10n.t('summary') };
    this.list.replaceChildren(
      ...lines.map((line) =>
        h(
          'li',
          {},
          h(
            'button',
            {
              className: `notable-line notable-${line.class}`,
              attrs: { type: 'button', 'data-class': line.class, 'data-offset': line.offset, 'data-line': line.line },
              on: { click: () => this.go(line.offset, line.line) },
            },
            h('span', { className: 'where' }, l10n.t('line {line} · {kind}', { line: num(line.line), kind: label[line.class] })),
            h('span', { className: 'text' }, line.text),
          ),
        ),
      ),
    );
  }

  /** What the capture saw in the bytes it dropped: named, not pageable (no page holds them). */
  private renderDropped(): void {
    const info = this.describe?.info;
    const digest = info?.notable;
    const lines = (digest?.lines ?? []).filter((line) => line.dropped && (this.filter === 'all' || line.class === this.filter));
    if (!info || !digest || countsText(digest.counts) === '') {
      this.dropped.replaceChildren();
      return;
    }
    this.dropped.replaceChildren(
      h(
        'p',
        { className: 'notable-note' },
        l10n.t('In the {size} dropped at capture (not in the copy): {counts}.', {
          size: bytes(info.droppedBytes),
          counts: countsText(digest.counts),
        }),
      ),
      ...(lines.length
        ? [
            h(
              'ul',
              { className: 'notable-lines dropped' },
              ...lines.map((line) =>
                h(
                  'li',
                  { attrs: { 'data-class': line.class } },
                  h('span', { className: 'where' }, l10n.t('output line {0}', num(line.line))),
                  h('span', { className: 'text' }, line.text),
                ),
              ),
            ),
          ]
        : []),
    );
  }
}
