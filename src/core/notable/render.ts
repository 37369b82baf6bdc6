/**
 * The notable lines as the model reads them, inside a byte budget: a header with the counts, then
 * the ranked lines that fit (errors first; each with its line number and read offset), then what
 * the capture saw in the bytes it dropped, marked as not in the copy.
 */
import type { NotableDigest, NotableLine } from '../types';
import { displayOrder, rankNotable } from './digest';
import { READ_TOOL_OUTPUT_TOOL } from '../toolNames';

export interface NotableBlockInput {
  /** The notable lines of the part the preview omits (offsets and lines of the copy). */
  omitted?: NotableDigest;
  /** What the capture saw in the bytes it dropped (output offsets and lines). */
  dropped?: NotableDigest;
  /** Bytes the capture dropped. */
  droppedBytes?: number;
  /** Where the copy's gap is: dropped lines rank as if they stood there. */
  gapOffset?: number;
  /** Whether the lines can be read back (a retained copy): offsets are shown only then. */
  readable: boolean;
}

export interface NotableBlock {
  text: string;
  shown: NotableLine[];
}

/** Shortest text worth showing for a line, and the longest. */
const MIN_TEXT = 40;
const MAX_TEXT = 160;

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** Counts as the preview's marker and block word them ("3 errors, 1 warning"). */
export function describeCounts(counts: NotableDigest['counts']): string {
  const parts = [
    counts.error ? plural(counts.error, 'error') : '',
    counts.summary ? plural(counts.summary, 'summary line') : '',
    counts.warning ? plural(counts.warning, 'warning') : '',
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : 'no notable lines';
}

const total = (counts: NotableDigest['counts']): number => counts.error + counts.summary + counts.warning;

/** How much of each line a block of `budgetBytes` shows. */
export const textBytesFor = (budgetBytes: number): number => Math.max(MIN_TEXT, Math.min(MAX_TEXT, Math.floor(budgetBytes / 6)));

/**
 * The block for `input` in at most `budgetBytes` UTF-8 bytes (newline included at its end), or ''
 * when there is nothing to say or no room to say it; each line clipped to `textMax` bytes.
 */
export function renderNotableBlock(input: NotableBlockInput, budgetBytes: number, textMax = textBytesFor(budgetBytes)): NotableBlock {
  const omitted = input.omitted && total(input.omitted.counts) > 0 ? input.omitted : undefined;
  const dropped = input.dropped;
  if (!omitted && !dropped) return { text: '', shown: [] };
  const candidates = rankNotable(
    [...(omitted?.lines ?? []), ...(dropped?.lines ?? []).map((line) => ({ ...line, dropped: true }))],
    input.gapOffset ?? 0,
  );
  const head = header(omitted, dropped, input);
  let used = Buffer.byteLength(head) + 2; // the closing "]\n"
  if (used > budgetBytes) return { text: '', shown: [] };
  const chosen: NotableLine[] = [];
  const rendered = new Map<NotableLine, string>();
  for (const line of candidates) {
    const text = entry(line, textMax, input.readable);
    const size = Buffer.byteLength(text) + 1;
    if (used + size > budgetBytes) continue;
    used += size;
    chosen.push(line);
    rendered.set(line, text);
  }
  const lines = displayOrder(chosen, input.gapOffset ?? 0).map((line) => rendered.get(line)!);
  return { text: `${head}${lines.map((line) => `\n${line}`).join('')}]\n`, shown: chosen };
}

function header(omitted: NotableDigest | undefined, dropped: NotableDigest | undefined, input: NotableBlockInput): string {
  const parts: string[] = [];
  if (omitted) {
    const distinct = omitted.distinct < total(omitted.counts) ? ` (${omitted.distinct} distinct)` : '';
    parts.push(`[notable lines in the omitted part: ${describeCounts(omitted.counts)}${distinct}`);
  } else parts.push('[notable lines in the omitted part: none');
  if (dropped) {
    const span = `output lines ${dropped.fromLine}-${dropped.toLine}`;
    parts.push(
      `; in the ${input.droppedBytes ?? dropped.to - dropped.from} bytes dropped at capture (${span}, NOT in the copy) the capture saw ${describeCounts(dropped.counts)}`,
    );
  }
  const how = input.readable ? `; errors first; "@N" is the ${READ_TOOL_OUTPUT_TOOL} offset of a line` : '; errors first';
  return `${parts.join('')}${how}:`;
}

function entry(line: NotableLine, textMax: number, readable: boolean): string {
  const repeat = line.count > 1 ? ` ×${line.count}${line.lastLine !== undefined ? ` (last line ${line.lastLine})` : ''}` : '';
  const where = line.dropped
    ? `output line ${line.line}, dropped at capture`
    : readable
      ? `line ${line.line} @${line.offset}`
      : `line ${line.line}`;
  return `${line.class} ${where}${repeat}: ${clip(line.text, textMax)}`;
}

/** At most `max` UTF-8 bytes of `text`, never splitting a character, with "…" when cut. */
export function clip(text: string, max: number): string {
  if (Buffer.byteLength(text) <= max) return text;
  let end = Math.min(text.length, max - 3);
  while (end > 0 && Buffer.byteLength(text.slice(0, end)) > max - 3) end--;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}
