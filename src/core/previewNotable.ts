/**
 * The marker's list of notable lines in a preview's omitted part: scanned from the source, rendered
 * in the budget left, and narrowed when head and tail grow into the part.
 */
import type { NotableDigest } from './types';
import type { NotableKind } from './notable/patterns';
import { renderNotableBlock, textBytesFor } from './notable/render';
import { displayOrder } from './notable/digest';
import type { LineCounter, PreviewSource } from './previewSource';
import { scanSource } from './previewSource';
import type { Preview, PreviewKind, PreviewOptions } from './previewTypes';

/** The marker's list of notable lines, and how to narrow it when head and tail grow. */
export interface NotableSection {
  text: string;
  /** UTF-8 bytes the list takes in the preview (its newline before included). */
  bytes: number;
  facts: NonNullable<Preview['notable']>;
  /** The list for a smaller omitted part `[from, to)` inside this one, in at most `bytes`. */
  narrow(from: number, to: number): NotableSection;
}

/**
 * Which patterns fit the content: JSON is told by its first byte (a command's output too: `curl`,
 * `kubectl -o json`), unless the caller said `search` or `json`.
 */
function notableKind(bytes: Buffer, kind: PreviewKind): NotableKind {
  if (kind === 'search' || kind === 'json') return kind;
  for (let i = 0; i < bytes.length && i < 64; i++) {
    const byte = bytes[i];
    if (byte === 0x7b || byte === 0x5b) return 'json';
    if (byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09) break;
  }
  return 'command';
}

export function notableSection(
  source: PreviewSource,
  lines: LineCounter,
  from: number,
  to: number,
  budget: number,
  options: PreviewOptions & { kind: PreviewKind },
): NotableSection {
  const kind = notableKind(source.head, options.kind);
  const gap = options.gapOffset;
  // The copy's own gap marker is not output: leave its line out of the scan. (Content with a gap is
  // never streamed: its head window is all of it.)
  const skip = gap !== undefined && gap >= from && gap < to ? { at: gap, end: lineEndAfter(source.head, gap) } : undefined;
  const scan = (start: number, end: number): NotableDigest | undefined => {
    if (start >= end) return undefined;
    const range = (rangeFrom: number, rangeTo: number): NotableDigest =>
      scanSource(source, kind, rangeFrom, rangeTo, lines.lineAt(rangeFrom));
    if (!skip || skip.end <= start || skip.at >= end) return range(start, end);
    return merge(skip.at > start ? range(start, skip.at) : undefined, skip.end < end ? range(skip.end, end) : undefined);
  };
  // Narrowing keeps the lines as long as the first rendering had them.
  const textMax = textBytesFor(budget - 1);
  const render = (omitted: NotableDigest | undefined, room: number): NotableSection => {
    const rendered = renderNotableBlock(
      { omitted, dropped: options.dropped, droppedBytes: options.droppedBytes, gapOffset: gap, readable: options.outputId !== undefined },
      room - 1,
      textMax,
    );
    const facts: NotableSection['facts'] = { shown: rendered.shown };
    // Listed errors first, then in order of appearance (as the block orders them).
    if (rendered.shown.length > 0) facts.first = displayOrder(rendered.shown, gap ?? 0)[0];
    if (omitted) facts.omitted = omitted.counts;
    if (options.dropped) facts.dropped = options.dropped.counts;
    return {
      text: rendered.text,
      bytes: rendered.text ? Buffer.byteLength(rendered.text) + 1 : 0,
      facts,
      narrow: (narrowFrom, narrowTo) => {
        if (!omitted || !rendered.text) return render(undefined, 0);
        const visible = [scan(from, narrowFrom), scan(narrowTo, to)];
        return render(without(omitted, narrowFrom, narrowTo, visible), rendered.text ? Buffer.byteLength(rendered.text) + 1 : 0);
      },
    };
  };
  return render(scan(from, to), budget);
}

/** Offset just after the line break that ends the line holding `at` (or the end). */
function lineEndAfter(bytes: Buffer, at: number): number {
  const end = bytes.indexOf(0x0a, at + 1);
  return end < 0 ? bytes.length : end + 1;
}

/** Two digests of adjacent ranges as one (bounded as each was; counts add up). */
function merge(a: NotableDigest | undefined, b: NotableDigest | undefined): NotableDigest | undefined {
  if (!a || !b) return a ?? b;
  const counts = {
    error: a.counts.error + b.counts.error,
    summary: a.counts.summary + b.counts.summary,
    warning: a.counts.warning + b.counts.warning,
  };
  return {
    lines: [...a.lines, ...b.lines],
    counts,
    distinct: a.distinct + b.distinct,
    from: a.from,
    to: b.to,
    fromLine: a.fromLine,
    toLine: b.toLine,
  };
}

/**
 * `digest` narrowed to `[from, to)`: the lines outside it are now in head or tail, and the counts
 * of those parts (`visible`, scanned apart) come off. Distinct lines are counted by what remains.
 */
function without(digest: NotableDigest, from: number, to: number, visible: (NotableDigest | undefined)[]): NotableDigest {
  const counts = { ...digest.counts };
  let distinct = digest.distinct;
  for (const part of visible) {
    if (!part) continue;
    counts.error -= part.counts.error;
    counts.summary -= part.counts.summary;
    counts.warning -= part.counts.warning;
    distinct -= part.distinct;
  }
  // A repeated line whose occurrences span the omitted part (2,000 "test N passed" lines, the first
  // and last now in head and tail) still names what it holds: kept, with its first offset and count.
  const lines = digest.lines.filter((line) => line.offset < to && (line.lastOffset ?? line.offset) >= from);
  // Distinct lines of the parts now shown may repeat in the omitted part: the difference is a floor.
  const any = counts.error + counts.summary + counts.warning > 0 ? 1 : 0;
  return { ...digest, lines, counts, distinct: Math.max(distinct, lines.length, any), from, to };
}
