/**
 * How a result states a cut preview: the exact read call, the marker's place as fields
 * (`extra.previewMarker`), and the lines a client that keeps only part of a result still gets.
 */
import { READ_TOOL_OUTPUT_TOOL } from './toolNames';
import type { NotableDigest } from './types';
import { describeCounts } from './notable/render';
import type { Preview } from './previewTypes';

/** The exact call that reads on from `offset` in the copy `outputId`. */
export const readCall = (outputId: string, offset: number): string => `${READ_TOOL_OUTPUT_TOOL} ${JSON.stringify({ outputId, offset })}`;

/** What a cut preview states about the part it omitted, and where it says so, as its result (`Preview`) holds it. */
export type PreviewFacts = Pick<Preview, 'totalBytes' | 'omitted' | 'notable' | 'marker'>;

/**
 * A result text's omission marker as fields, recorded beside the text (`extra.previewMarker`) so the
 * inspector highlights it without reading the text back: its place in the text, as UTF-16 indexes
 * `[start, end)`, and the copy's byte range `[from, to)` it omits.
 */
export interface PreviewMarker {
  start: number;
  end: number;
  from: number;
  to: number;
}

/** A result text the model gets, and where the marker of the preview inside it sits (absent when the preview is whole). */
export interface RenderedText {
  text: string;
  previewMarker?: PreviewMarker;
}

/** The marker of a cut preview placed at index `at` of a result text; undefined when the preview was not cut. */
export function markerAt(preview: PreviewFacts | undefined, at: number): PreviewMarker | undefined {
  if (!preview?.marker || !preview.omitted) return undefined;
  return { start: at + preview.marker.start, end: at + preview.marker.end, from: preview.omitted.from, to: preview.omitted.to };
}

/**
 * What the omitted part holds, in the words the marker's list uses, for a result's first and last
 * lines: "notable lines: 3 errors, 1 warning omitted; first: error line 20001 @108894" (then what
 * the capture dropped); '' when the preview lists none.
 */
export function notableMention({ notable }: PreviewFacts): string {
  const omitted = notable?.omitted && countWords(notable.omitted);
  const dropped = notable?.dropped && countWords(notable.dropped);
  if (!omitted && !dropped) return '';
  const first = notable?.first;
  const where = first && (first.dropped ? `output line ${first.line}, dropped at capture` : `line ${first.line} @${first.offset}`);
  // The first line before what the capture dropped: a client that keeps 500 characters keeps it too.
  return [
    `notable lines: ${omitted ? `${omitted} omitted` : 'none omitted'}`,
    ...(first ? [`first: ${first.class} ${where}`] : []),
    ...(dropped ? [`${dropped} in the bytes dropped at capture (not in the copy)`] : []),
  ].join('; ');
}

/** Counts as the marker's list words them ("3 errors, 1 warning"), or undefined for none. */
function countWords(counts: NotableDigest['counts']): string | undefined {
  return counts.error + counts.summary + counts.warning > 0 ? describeCounts(counts) : undefined;
}

/**
 * The lines that say a result is not whole, for a client that keeps only part of it: `first` goes
 * right after the status line (a client that keeps a result's first 500 characters still has the
 * outputId, the omitted range, the read call and the notable count), `last` after everything (one
 * that keeps only the end has them too). `what` is what the preview shows ("output", "return value");
 * `preview` is of the copy `outputId`. Undefined when the preview was not cut.
 */
export function retentionLines(
  preview: PreviewFacts,
  outputId: string,
  what: string,
  after: string,
): { first: string; last: string } | undefined {
  if (!preview.omitted) return undefined;
  const range = `bytes [${preview.omitted.from}, ${preview.omitted.to}) of ${preview.totalBytes}`;
  const read = readCall(outputId, preview.omitted.from);
  const notable = notableMention(preview);
  const first =
    `NOT the whole ${what}: retained as outputId "${outputId}". Omitted here: ${range}; read on with ${read}.` +
    (notable ? ` N${notable.slice(1)}.` : '') +
    ` ${after}`;
  const last = `[end of preview. outputId "${outputId}": ${range} omitted; read on with ${read}${notable ? `; ${notable}` : ''}.]`;
  return { first, last };
}
