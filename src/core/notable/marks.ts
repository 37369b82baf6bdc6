/**
 * Where a whole copy's notable lines are, for the inspector's overview and its list of notable lines:
 * every line counted, and what crosses bounded whatever the copy holds. The copy is cut into
 * MARK_BINS equal byte ranges, and each range keeps, per class, its first line and how many it
 * holds (the overview draws a pixel from one or more ranges); the list keeps the first
 * LISTED_PER_CLASS lines of each class with their text.
 */
import type { NotableMarks } from '../types';
import type { NotableClass, NotableKind } from './patterns';
import { lineText, NotableScanner } from './scanner';

/** Byte ranges a copy is cut into: more than the pixels of any overview, so one range is never two marks. */
export const MARK_BINS = 2048;
/** Lines of each class listed with their text. */
export const LISTED_PER_CLASS = 500;

export function notableMarks(bytes: Uint8Array, kind: NotableKind = 'command'): NotableMarks {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const totalBytes = buffer.length;
  const counts: Record<NotableClass, number> = { error: 0, summary: 0, warning: 0 };
  const firsts = new Map<string, NotableMarks['marks'][number]>();
  const lines: NotableMarks['lines'] = [];
  const scanner = new NotableScanner(kind, {}, true, (hit) => {
    counts[hit.class]++;
    const bin = Math.min(MARK_BINS - 1, Math.floor((hit.offset * MARK_BINS) / Math.max(1, totalBytes)));
    const key = `${bin}:${hit.class}`;
    const mark = firsts.get(key);
    if (mark) mark.count++;
    else firsts.set(key, { class: hit.class, bin, offset: hit.offset, line: hit.line, count: 1 });
    if (counts[hit.class] <= LISTED_PER_CLASS)
      lines.push({ class: hit.class, line: hit.line, offset: hit.offset, text: lineText(hit.source.subarray(hit.start, hit.end)) });
  });
  scanner.write(buffer);
  scanner.finish();
  // Each range's first line of a class comes in order of offset, and so does the map's order.
  return { totalBytes, counts, bins: MARK_BINS, marks: [...firsts.values()], lines, listed: LISTED_PER_CLASS };
}
