/**
 * The text a hook adds to the model's context once its server has retained a shell output: the
 * outputId, the exact calls that search and read it, the notable lines (with their read_tool_output
 * offsets) and the last lines, in at most CONTEXT_BYTES. The model reads it on every later turn, so
 * it stays short; the agent's own cut of the output is above it.
 */
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
}

export function retainedContext(text: string, retained: RetainedOutput): string {
  const id = JSON.stringify(retained.outputId);
  const whole = retained.complete
    ? `all ${retained.totalBytes} bytes`
    : `${retained.totalBytes} bytes; ${retained.droppedBytes} bytes were dropped before it was kept, complete: false`;
  const head = [
    `[Tool Output Recall] The whole output of this ${retained.tool} call is retained as outputId ${id} (${whole}; ${formatBytes(retained.totalBytes)}). You were shown ${retained.shown}.`,
    `Do not run the command again to see more: ${SEARCH_TOOL_OUTPUT_TOOL} {"outputId": ${id}, "pattern": "…"} finds a field, ${READ_TOOL_OUTPUT_TOOL} {"outputId": ${id}, "offset": N} reads 4096-byte pages from byte N (follow nextOffset).`,
  ].join('\n');
  const bytes = Buffer.from(text, 'utf8');
  const scanner = new NotableScanner('command', { offset: 0, line: 1 });
  scanner.write(bytes);
  const notable = renderNotableBlock({ omitted: scanner.finish(), readable: true }, NOTABLE_BYTES).text.trimEnd();
  const from = Math.max(0, bytes.length - TAIL_BYTES);
  const lineStart = from === 0 ? 0 : bytes.indexOf(0x0a, from) + 1;
  const start = lineStart > 0 && lineStart < bytes.length ? lineStart : from;
  const tail = `[the last ${bytes.length - start} bytes, from offset ${start}:]\n${bytes.subarray(start).toString('utf8').trimEnd()}`;
  return clip([head, notable, tail].filter(Boolean).join('\n'), CONTEXT_BYTES);
}
