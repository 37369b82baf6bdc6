/**
 * The text a hook adds to the model's context: the outputId (or the saved file) and the exact calls
 * that search and read it, the notable lines and the last lines, in at most CONTEXT_BYTES. The model
 * reads it on every later turn, so it stays short; the agent's own cut of the output is above it.
 *
 * Everything here takes `MaskedCopy` bytes only (spillCopy.ts): the type has no other producers than
 * the masking functions, so no path can scan, cut or tail an output before its secrets are masked,
 * with or without a server (issue 37: with one, the tail and notable lines used to reach the model raw).
 */
import { maskedNote } from '../core/files/secretShapes';
import type { MaskedCopy } from '../core/files/spillCopy';
import { formatBytes } from '../core/limits';
import { clip, renderNotableBlock } from '../core/notable/render';
import { NotableScanner } from '../core/notable/scanner';
import { READ_TOOL_OUTPUT_TOOL, SEARCH_TOOL_OUTPUT_TOOL } from '../core/toolNames';

/** The most the context may hold (UTF-8 bytes). */
export const CONTEXT_BYTES = 4096;
/** The output's last bytes shown, at most (from the first line break in them). */
export const TAIL_BYTES = 1536;
/** Room for the notable lines. */
const NOTABLE_BYTES = 1400;

export interface RetainedOutput {
  tool: string;
  outputId: string;
  totalBytes: number;
  complete: boolean;
  droppedBytes: number;
  /** What the agent showed its model of the output, in its words ("its first 2,000 characters"). */
  shown: string;
  /** Secret-shaped values masked in the copy. */
  masked: number;
}

/**
 * One pass over a masked output, in pieces: its notable lines (as the preview's own block renders
 * them) and its last bytes. `ignoreBefore`: bytes the model already saw, whose notable lines are not
 * repeated; `readable`: whether the notable lines name read_tool_output offsets (a retained copy) or
 * only line numbers (a file).
 */
export class MaskedSummary {
  private readonly scanner: NotableScanner;
  private last: Buffer = Buffer.alloc(0);
  private total = 0;

  constructor(private readonly options: { ignoreBefore?: number; readable: boolean }) {
    this.scanner = new NotableScanner('command', { offset: 0, line: 1, ignoreBefore: options.ignoreBefore ?? 0 });
  }

  write(masked: MaskedCopy): void {
    this.scanner.write(masked);
    this.total += masked.length;
    const kept = Buffer.concat([this.last, masked.subarray(Math.max(0, masked.length - TAIL_BYTES))]);
    this.last = kept.subarray(Math.max(0, kept.length - TAIL_BYTES));
  }

  /** The notable block ('' when none) and the last lines ('' when the model saw them all), labelled with `offsetName`. */
  finish(offsetName: string): { notable: string; tail: string } {
    const notable = renderNotableBlock({ omitted: this.scanner.finish(), readable: this.options.readable }, NOTABLE_BYTES).text.trimEnd();
    if (this.total <= (this.options.ignoreBefore ?? 0)) return { notable, tail: '' };
    const from = this.total - this.last.length;
    // From a line's start when one begins in the kept bytes; all of them when none does.
    const lineStart = from === 0 ? 0 : this.last.indexOf(0x0a) + 1;
    const start = lineStart > 0 && lineStart < this.last.length ? lineStart : 0;
    const shown = this.last.subarray(start);
    return { notable, tail: `[the last ${shown.length} bytes, from ${offsetName} ${from + start}:]\n${shown.toString('utf8').trimEnd()}` };
  }
}

/** The context once a server retained the (masked) output `content` as `retained.outputId`. */
export function retainedContext(content: MaskedCopy, retained: RetainedOutput): string {
  const id = JSON.stringify(retained.outputId);
  const whole = retained.complete
    ? `all ${retained.totalBytes} bytes`
    : `${retained.totalBytes} bytes; ${retained.droppedBytes} bytes were dropped before it was kept, complete: false`;
  const head = [
    `[Tool Output Recall] The whole output of this ${retained.tool} call is retained as outputId ${id} (${whole}; ${formatBytes(retained.totalBytes)}). You were shown ${retained.shown}.`,
    `Do not run the command again to see more: ${SEARCH_TOOL_OUTPUT_TOOL} {"outputId": ${id}, "pattern": "…"} finds a field, ${READ_TOOL_OUTPUT_TOOL} {"outputId": ${id}, "offset": N} reads 4096-byte pages from byte N (follow nextOffset).`,
    ...(retained.masked > 0 ? [maskedNote(retained.masked, 'in this output, here and in its retained copy')] : []),
  ].join('\n');
  const summary = new MaskedSummary({ readable: true });
  summary.write(content);
  const { notable, tail } = summary.finish('offset');
  return clip([head, notable, tail].filter(Boolean).join('\n'), CONTEXT_BYTES);
}
