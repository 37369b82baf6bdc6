/**
 * A page's own facts, as the pager shows them beside the page (the output's facts are the flags,
 * flags.ts): where the page is ("Bytes a to b of N · lines …"), its hasMore chip, whether its line
 * numbers are the copy's (past a capture gap), and whether the model saw it in its preview. Texts and
 * elements only; the pager (pager.ts) puts them in place.
 */
import * as l10n from '@vscode/l10n';
import { h } from './dom';
import { num } from './format';
import type { DescribeResult, PageResult } from './protocol';
import { withTooltip } from './tooltip';

/** The status line and the slider's spoken value for a page. */
export function statusText(page: PageResult, totalLines: number | undefined): { text: string; sliderLabel: string } {
  const one = page.firstLine === page.lastLine;
  const lineArgs = { first: num(page.firstLine), last: num(page.lastLine), total: num(totalLines ?? 0) };
  const lines = one ? l10n.t('line {first}', lineArgs) : l10n.t('lines {first}–{last}', lineArgs);
  const linesOfTotal =
    totalLines === undefined
      ? lines
      : one
        ? l10n.t('line {first} of {total}', lineArgs)
        : l10n.t('lines {first}–{last} of {total}', lineArgs);
  const range = l10n.t('Bytes {from} to {to} of {total}', {
    from: num(page.offset),
    to: num(page.nextOffset),
    total: num(page.totalBytes),
  });
  const snapped =
    page.offset !== page.requestedOffset && page.requestedOffset < page.offset + 4 && page.requestedOffset > page.offset
      ? ` ${l10n.t('(moved back from {0} to the start of a character)', num(page.requestedOffset))}`
      : '';
  const sliderLabel = l10n.t('bytes {from} to {to} of {total}, {lines}', {
    from: page.offset,
    to: page.nextOffset,
    total: page.totalBytes,
    lines,
  });
  return { text: `${range} · ${linesOfTotal}${snapped}`, sliderLabel };
}

/** The page's hasMore, with what it means here (a chip with a tooltip, as the output's flags). */
export function moreChip(page: PageResult): HTMLElement {
  const end = !page.hasMore;
  const tip = end
    ? page.complete
      ? l10n.t('This page reaches the end of the copy, and the copy is the whole output (hasMore=false).')
      : l10n.t('You reached the end of what was saved, and what was saved is not all (hasMore=false, complete=false).')
    : l10n.t('More saved bytes follow this page; the next page starts at byte {0} (hasMore=true).', num(page.nextOffset));
  const chip = h(
    'span',
    {
      className: `flag page-flag${end ? (page.complete ? ' tone-ok' : ' tone-warn') : ''}`,
      attrs: { tabindex: 0, 'aria-label': `hasMore: ${String(!end)}`, 'data-page-flag': 'hasMore', 'data-value': String(!end) },
    },
    h('span', { className: 'flag-label' }, 'hasMore'),
    h('span', { className: 'flag-value' }, String(!end)),
  );
  return withTooltip(chip, tip);
}

/**
 * The copy's line numbers: past a capture gap they are not the output's (the lines dropped there are
 * not known, only their bytes), so the page says what it counts.
 */
export function linesNote(page: PageResult, describe: DescribeResult | undefined): { pastGap: boolean; text: string } {
  const gapOffset = describe?.info.gapOffset;
  const pastGap = gapOffset !== undefined && page.nextOffset > gapOffset && !describe?.info.complete;
  return {
    pastGap,
    text: pastGap
      ? l10n.t(
          "Line numbers after byte {offset} count the copy's lines, not the output's: the {dropped} bytes dropped there held lines that are not counted.",
          { offset: num(gapOffset), dropped: num(describe?.info.droppedBytes ?? 0) },
        )
      : '',
  };
}

/** Whether the model saw the page in its preview: all of it, none (the omitted range), or part. */
export function seenByModel(page: PageResult, describe: DescribeResult | undefined): { seen: 'all' | 'none' | 'part' | ''; text: string } {
  const omitted = describe?.preview.omitted;
  if (!omitted) {
    const text = describe?.preview.source === 'unavailable' ? '' : l10n.t('The model saw this page in its preview.');
    return { seen: text ? 'all' : '', text };
  }
  const inside = Math.max(0, Math.min(page.nextOffset, omitted.to) - Math.max(page.offset, omitted.from));
  const size = page.nextOffset - page.offset;
  const seen = inside === 0 ? 'all' : inside >= size ? 'none' : 'part';
  return {
    seen,
    text:
      seen === 'all'
        ? l10n.t('The model saw this page in its preview.')
        : seen === 'none'
          ? l10n.t("The model did not see this page: it is in the preview's omitted range.")
          : l10n.t("The model saw only part of this page: the preview's omitted range starts or ends here."),
  };
}
