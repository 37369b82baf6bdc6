/**
 * The text run_code gives the model: the return value's preview, then a separate recovery section
 * that the program could not have edited, then console output. Kept vscode-free so the wording is
 * unit-tested.
 */
import type { CodeRunResult, NestedOutputRef, RecoveryRecord } from './runProgram';
import { markerAt, type RenderedText } from '../previewFacts';
import { READ_TOOL_OUTPUT_TOOL, SEARCH_TOOL_OUTPUT_TOOL, RUN_COMMAND_TOOL, RUN_CODE_TOOL } from '../toolNames';

/** Console output shown to the model; the rest is counted, not shown. */
export const MAX_LOG_CHARS_SHOWN = 4000;

/**
 * A rendered run: its text, where the return value's marker sits in it, and the text's two parts as
 * fields, so that lines can go after the status line without looking for it in the text.
 */
export interface RenderedCodeRun extends RenderedText {
  /** The first line: how the program ended, how long it took, its calls (no line break). */
  status: string;
  /** Everything after the status line, from the line break that ends it ('' when there is nothing more): `text` is `status + rest`. */
  rest: string;
}

/** The text (the status line, then the rest), and where the return value's marker sits in it. */
export function renderCodeRun(result: CodeRunResult, previewBytes: number): RenderedCodeRun {
  const lines: string[] = [];
  let valueAt: number | undefined;
  const callNote = `${result.calls} tool call${result.calls === 1 ? '' : 's'}${result.failedCalls ? ` (${result.failedCalls} failed)` : ''}`;
  const took = `${(result.durationMs / 1000).toFixed(1)} s`;
  if (result.error) {
    lines.push(`${RUN_CODE_TOOL}: the program did not finish (${result.error.kind}); ${took}; ${callNote}.`, result.error.message);
  } else {
    lines.push(`${RUN_CODE_TOOL}: the program ${describeValue(result)}; ${took}; ${callNote}.`);
    if (result.valueOutputId) {
      lines.push(
        `The return value below is NOT shown whole: it is retained as outputId "${result.valueOutputId}" (${result.valueBytes} bytes). Use ${READ_TOOL_OUTPUT_TOOL} or ${SEARCH_TOOL_OUTPUT_TOOL} with that outputId for the omitted part; do not re-run the program to see it.`,
      );
    } else if (result.valueTruncated) {
      lines.push(
        `The return value below is NOT shown whole, and the rest could not be retained (${result.valueUnavailableReason}). Say that it was cut off rather than concluding something is absent.`,
      );
    }
    if (result.valueKind !== 'undefined') {
      lines.push(
        result.valueTruncated ? '--- return value (head and tail; the marker shows what was omitted) ---' : '--- return value ---',
      );
      valueAt = lines.reduce((at, line) => at + line.length + 1, 0);
      lines.push(result.valuePreview);
    }
  }
  if (result.nested.length > 0) lines.push(...renderRecovery(result.nested, previewBytes));
  if (result.logs.length > 0 || result.droppedLogLines > 0) lines.push(...renderLogs(result));
  const previewMarker = valueAt === undefined ? undefined : markerAt(result.valueFacts, valueAt);
  const [status, ...after] = lines;
  const rest = after.map((line) => `\n${line}`).join('');
  return { text: status + rest, status, rest, ...(previewMarker && { previewMarker }) };
}

function describeValue(result: CodeRunResult): string {
  switch (result.valueKind) {
    case 'undefined':
      return 'returned nothing (undefined)';
    case 'json':
      return `returned JSON (${result.valueBytes} bytes)`;
    default:
      return `returned a string (${result.valueBytes} bytes)`;
  }
}

function renderRecovery(records: RecoveryRecord[], previewBytes: number): string[] {
  const lines = [
    '--- recovery: tool results the program received (recorded outside the program) ---',
    'The program may have returned only part of these. Each large one was saved BEFORE the program saw it, so nothing it cut away is lost:',
  ];
  for (const record of records) {
    const head = `[call ${record.call}] ${record.tool} ${record.input} returned ${record.bytes} bytes to the program`;
    if (record.status === 'retained') {
      const incomplete = record.complete === false ? ', complete: false (the copy lost bytes: absence is not proof)' : ', complete: true';
      lines.push(
        `${head}; outputId "${record.outputId}" holds that result text exactly as the program received it (${record.totalBytes} bytes${incomplete}).`,
      );
    } else if (record.status === 'small') {
      lines.push(`${head}; the program saw it whole (at or below the ${previewBytes}-byte threshold, so not saved separately).`);
    } else {
      lines.push(
        `${head}; it could NOT be saved (${record.unavailableReason}), so whatever the program dropped from it cannot be recovered. Say so rather than concluding something is absent.`,
      );
    }
    for (const ref of record.nestedOutputIds) lines.push(`  - ${describeRef(ref, record)}`);
  }
  return lines;
}

/** Which is which: the nested result text (above) versus the copy the call retained, the tool's full output. */
function describeRef(ref: NestedOutputRef, record: RecoveryRecord): string {
  // The call retained it and its result text names it (run_command's does, always).
  const named = `outputId "${ref.outputId}", named inside that result text`;
  if (!ref.found) {
    return `${named}, is not readable in this session (${ref.evicted ? 'evicted to stay within the session quota' : 'not held by this session'}).`;
  }
  const facts = `${ref.totalBytes} bytes, complete: ${ref.complete}`;
  const command = record.tool === RUN_COMMAND_TOOL;
  const returned = `what ${record.tool} returned (${command ? 'its status and a preview' : 'a preview of that output'})`;
  const outer = record.outputId ? `"${record.outputId}" holds only ${returned}` : `the result text held only ${returned}`;
  return `${named}, is ${record.tool}'s own copy of its FULL output${ref.title ? ` for ${clip(ref.title, 120)}` : ''} (${facts}). For anything in the ${command ? "command's output" : 'full output'}, search or read "${ref.outputId}"; ${outer}.`;
}

function renderLogs(result: CodeRunResult): string[] {
  const shown = result.logs.length > MAX_LOG_CHARS_SHOWN ? result.logs.slice(0, MAX_LOG_CHARS_SHOWN) : result.logs;
  const cut = result.logs.length - shown.length;
  const lines = [`--- console output (${result.logs.length} characters) ---`, shown.replace(/\n$/, '')];
  if (cut > 0 || result.droppedLogLines > 0) {
    lines.push(
      `[console output cut: ${cut} more characters${result.droppedLogLines ? ` and ${result.droppedLogLines} more lines` : ''} were not kept. Return what matters instead of logging it.]`,
    );
  }
  return lines;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
