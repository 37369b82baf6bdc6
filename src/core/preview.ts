/**
 * Head+tail previews with an omission marker that says exactly what was left out and how to read it.
 *
 * Budgets are UTF-8 bytes (what a harness's limit counts), and the marker's offsets are byte offsets
 * into the retained copy, so the model can pass them straight to `read_tool_output`. The caller must
 * give the same bytes that were retained.
 */
import { toBuffer } from './bytes';
import { RecallError } from './errors';
import { boundaryAtOrAfter, boundaryAtOrBefore, decodeUtf8 } from './utf8';
import { READ_TOOL_OUTPUT_TOOL, SEARCH_TOOL_OUTPUT_TOOL } from './toolNames';
import type { Preview, PreviewKind, PreviewOptions } from './previewTypes';
import { notableSection, type NotableSection } from './previewNotable';
import { LineCounter, type PreviewSource, TAIL_TEXT_BYTES, bytesSource, stringSource } from './previewSource';

export type { Preview, PreviewKind, PreviewOptions } from './previewTypes';

/** Smallest line budget: the marker, its notable list and a few lines either side. */
export const MIN_PREVIEW_LINES = 16;

/** Smallest budget that still leaves room for a marker and a little text on either side. */
export const MIN_PREVIEW_BUDGET = 512;

const TAIL_WINDOW_CHARS = 2000;
const ERROR_WORDS =
  /\b(error|errors|exception|failed|failure|fatal|traceback|panic|panicked|stack trace|errno|exit code|segmentation fault|denied|abort(ed)?)\b/i;
const SUMMARY_WORDS = /\b(total|totals|summary|result|results|passed|succeeded|complete|completed|done|finished|count)\b/i;
const CLOSING_BRACKET = /[}\]]\s*$/;

/**
 * Whether the end of a text carries something a reader must not lose: error words, a JSON object or
 * array closing (OpenClaw checks only `}`), or summary words. Looks at the last ~2000 characters.
 */
export function hasImportantTail(text: string): boolean {
  const tail = text.length > TAIL_WINDOW_CHARS ? text.slice(-TAIL_WINDOW_CHARS) : text;
  return ERROR_WORDS.test(tail) || SUMMARY_WORDS.test(tail) || CLOSING_BRACKET.test(tail);
}

/** Share of the text budget given to the tail, by kind and by whether the tail matters. */
function tailShare(kind: PreviewKind, important: boolean): number {
  switch (kind) {
    case 'command':
      return 0.6; // errors and summaries come last in command output
    case 'search':
      return important ? 0.3 : 0; // ranked results: the head is what matters
    default:
      return important ? 0.3 : 0.1;
  }
}

/** The fewest bytes a notable list entry takes ("error line 1 @0: x" and its line break). */
const NOTABLE_ENTRY_BYTES = 20;

/** How far a cut may move to land on a line break instead of mid-line. */
const lineSnapWindow = (partBytes: number): number => Math.min(1024, Math.floor(partBytes / 8));

export function previewHeadTail(content: string | Uint8Array, options: PreviewOptions): Preview {
  const { budgetBytes, kind = 'generic' } = options;
  if (!Number.isInteger(budgetBytes) || budgetBytes < MIN_PREVIEW_BUDGET) {
    throw new RecallError(
      'INVALID_ARGUMENT',
      `The preview budget must be an integer of at least ${MIN_PREVIEW_BUDGET} bytes; got ${budgetBytes}.`,
    );
  }
  const { budgetLines } = options;
  if (budgetLines !== undefined && (!Number.isInteger(budgetLines) || budgetLines < MIN_PREVIEW_LINES)) {
    throw new RecallError(
      'INVALID_ARGUMENT',
      `The preview's line budget must be an integer of at least ${MIN_PREVIEW_LINES}; got ${budgetLines}.`,
    );
  }
  // A string with a capture gap (only a capture's bytes have one) is encoded whole: the gap's line is read in it.
  const source =
    typeof content === 'string'
      ? stringSource(content, budgetBytes, options.gapOffset === undefined)
      : bytesSource(toBuffer(content), options.lines);
  const { totalBytes, head, tail, tailStart } = source;
  const lines = new LineCounter(source);
  const totalLines = lines.total;
  const tailText = decodeUtf8(tail.subarray(Math.max(0, totalBytes - TAIL_TEXT_BYTES) - tailStart));
  const importantTail = hasImportantTail(tailText);
  if (totalBytes <= budgetBytes && (budgetLines === undefined || source.breaks < budgetLines)) {
    const whole = typeof content === 'string' ? content : decodeUtf8(head);
    // Invalid bytes decode to U+FFFD (3 bytes each), so binary content can outgrow its byte count.
    if (typeof content === 'string' || Buffer.byteLength(whole) <= budgetBytes)
      return { text: whole, truncated: false, totalBytes, totalLines, lines: source.lines, importantTail };
  }

  // Reserve room for the longest marker these totals can produce, then cut.
  const worst = { from: totalBytes, to: totalBytes, bytes: totalBytes, firstLine: totalLines, lines: totalLines };
  const reserve = Buffer.byteLength(marker(worst, totalBytes, totalLines, options)) + 2;
  const available = budgetBytes - reserve;
  if (available < 64) {
    throw new RecallError(
      'INVALID_ARGUMENT',
      `A preview budget of ${budgetBytes} bytes leaves no room for text beside the omission marker; use at least ${reserve + 64}.`,
    );
  }
  // Lines as bytes: the marker and the line breaks around it take 3 of them, the notable list its own.
  const linesFor = (listLines: number) => (budgetLines === undefined ? undefined : budgetLines - 3 - listLines);
  const cutAt = (textBytes: number, textLines: number | undefined) =>
    cutHeadTail(source, textBytes, tailShare(kind, importantTail), textLines);
  // The notable lines take up to a quarter of the text budget, from head and tail; what they do not
  // use goes back to head and tail, so the whole stays within the budget. Under a line budget, a
  // quarter of its lines too (an entry is at least NOTABLE_ENTRY_BYTES).
  const listLineCap = budgetLines === undefined ? 0 : Math.floor(budgetLines / 4);
  const blockCap =
    options.notable === false
      ? 0
      : budgetLines === undefined
        ? Math.floor(available / 4)
        : Math.min(Math.floor(available / 4), listLineCap * NOTABLE_ENTRY_BYTES);
  let { from, to } = cutAt(available - blockCap, linesFor(blockCap > 0 ? listLineCap : 0));
  let block: NotableSection | undefined;
  if (blockCap > 0) {
    block = notableSection(source, lines, from, to, blockCap, { ...options, kind });
    const wider = cutAt(available - block.bytes, linesFor(block.text ? block.text.split('\n').length : 0));
    if (wider.from !== from || wider.to !== to) block = block.narrow(wider.from, wider.to);
    ({ from, to } = wider);
  }

  const omitted = {
    from,
    to,
    bytes: to - from,
    firstLine: lines.lineAt(from),
    lines: lines.between(from, to) + (to > from && tail[to - 1 - tailStart] !== 0x0a ? 1 : 0),
  };
  const shownHead = decodeUtf8(head.subarray(0, from));
  const shownTail = decodeUtf8(tail.subarray(to - tailStart));
  const before = shownHead.length === 0 || shownHead.endsWith('\n') ? '' : '\n';
  const after = shownTail.length === 0 ? '' : '\n';
  const listed = block?.text ? `\n${block.text.replace(/\n$/, '')}` : '';
  const said = marker(omitted, totalBytes, totalLines, options);
  const text = `${shownHead}${before}${said}${listed}${after}${shownTail}`;
  const start = shownHead.length + before.length;
  const preview: Preview = {
    text,
    truncated: true,
    totalBytes,
    totalLines,
    lines: source.lines,
    omitted,
    marker: { start, end: start + said.length },
    importantTail,
  };
  if (block?.text) preview.notable = block.facts;
  return preview;
}

/**
 * Where head and tail end, for `textBytes` of text of which `share` goes to the tail: the head is
 * cut in the head window, the tail in the tail window (both the whole buffer, given bytes).
 */
function cutHeadTail(source: PreviewSource, textBytes: number, share: number, textLines?: number): { from: number; to: number } {
  const { totalBytes, head, tail, tailStart } = source;
  const tailBytes = Math.floor(textBytes * share);
  const headBytes = textBytes - tailBytes;

  let from = boundaryAtOrBefore(head, headBytes);
  const headBreak = head.lastIndexOf(0x0a, from - 1);
  if (headBreak >= 0 && from - (headBreak + 1) <= lineSnapWindow(headBytes)) from = headBreak + 1;

  let to = totalBytes;
  if (tailBytes > 0) {
    to = tailStart + boundaryAtOrAfter(tail, totalBytes - tailBytes - tailStart);
    const tailBreak = tail.indexOf(0x0a, to > 0 ? to - 1 - tailStart : 0);
    if (tailBreak >= 0 && tailStart + tailBreak + 1 - to <= lineSnapWindow(tailBytes) && tailStart + tailBreak + 1 <= totalBytes)
      to = tailStart + tailBreak + 1;
  }
  from = fitHead(head, from, headBytes);
  to = tailStart + fitTail(tail, to - tailStart, tailBytes);
  if (textLines !== undefined) {
    // At most this many lines of each: the head ends after its last line break, the tail starts after one.
    const tailLines = Math.floor(Math.max(0, textLines) * share);
    from = Math.min(from, afterBreaks(head, Math.max(0, textLines) - tailLines));
    to = Math.max(to, tailStart + tailOfLines(tail, tailLines, to - tailStart));
  }
  if (to < from) to = from;
  return { from, to };
}

/** Where the head's first `count` lines end (after their line breaks), or the head's end. */
function afterBreaks(head: Buffer, count: number): number {
  let at = 0;
  for (let n = 0; n < count; n++) {
    const next = head.indexOf(0x0a, at);
    if (next < 0) return head.length;
    at = next + 1;
  }
  return at;
}

/**
 * Where a tail of at most `count` lines starts in `tail` (at or after `from`): after the line break
 * that leaves `count` line breaks after it, the last one ending the text included; the end for 0.
 */
function tailOfLines(tail: Buffer, count: number, from: number): number {
  if (count <= 0) return tail.length;
  let at = tail.length;
  for (let n = 0; n <= count - (tail[tail.length - 1] === 0x0a ? 0 : 1); n++) {
    const previous = at > 0 ? tail.lastIndexOf(0x0a, at - 1) : -1;
    if (previous < from) return from;
    at = previous;
  }
  return at + 1;
}

/**
 * Invalid bytes decode to U+FFFD (3 bytes for 1 to 3 bytes), so a binary head or tail can decode to
 * more than its byte count: move the cut until the decoded text fits its share of the budget.
 */
function fitHead(bytes: Buffer, from: number, budget: number): number {
  const fits = (cut: number): boolean => Buffer.byteLength(decodeUtf8(bytes.subarray(0, boundaryAtOrBefore(bytes, cut)))) <= budget;
  if (fits(from)) return from;
  let low = 0; // fits
  let high = from; // does not fit
  while (high - low > 1) {
    const mid = (low + high) >>> 1;
    if (fits(mid)) low = mid;
    else high = mid;
  }
  return boundaryAtOrBefore(bytes, low);
}

function fitTail(bytes: Buffer, to: number, budget: number): number {
  const fits = (cut: number): boolean => Buffer.byteLength(decodeUtf8(bytes.subarray(boundaryAtOrAfter(bytes, cut)))) <= budget;
  if (fits(to)) return to;
  let low = to; // does not fit
  let high = bytes.length; // fits
  while (high - low > 1) {
    const mid = (low + high) >>> 1;
    if (fits(mid)) high = mid;
    else low = mid;
  }
  return boundaryAtOrAfter(bytes, high);
}

/** The omission marker: the range, the totals and the exact call that continues. */
function marker(omitted: NonNullable<Preview['omitted']>, totalBytes: number, totalLines: number, options: PreviewOptions): string {
  const lastLine = omitted.firstLine + Math.max(omitted.lines, 1) - 1;
  const what = `[... ${omitted.bytes} bytes omitted: bytes [${omitted.from}, ${omitted.to}) of ${totalBytes}, lines ${omitted.firstLine}-${lastLine} of ${totalLines} (${omitted.lines} lines).`;
  if (options.omittedNote !== undefined) return `${what} ${options.omittedNote}]`;
  if (!options.outputId) {
    const reason = options.unavailableReason ? ` (${options.unavailableReason})` : '';
    return `${what} They were NOT retained${reason}: this preview is all that can be read. Do not conclude that something is absent from the output.]`;
  }
  const call = JSON.stringify({ outputId: options.outputId, offset: omitted.from });
  const incomplete =
    options.copyComplete === false
      ? ' The retained copy is itself incomplete (capture dropped bytes): complete=false even after the last page.'
      : '';
  return `${what} The full output is retained: call ${READ_TOOL_OUTPUT_TOOL} ${call} to continue (follow nextOffset), or ${SEARCH_TOOL_OUTPUT_TOOL} with the same outputId to find a field. Check the copy before concluding something is absent; if this outputId is lost, ${SEARCH_TOOL_OUTPUT_TOOL} without one finds it.${incomplete}]`;
}
