import * as l10n from '@vscode/l10n';
import { renderCodeRun, type RenderedCodeRun } from '../codeMode/render';
import { runProgram, type CodeRunResult, type RunCodeDeps } from '../codeMode/runProgram';
import { DEFAULT_TIMEOUT_SECONDS } from '../codeMode/sandbox';
import { RecallError } from '../errors';
import { RUN_CODE_TOOL, SEARCH_TOOL_OUTPUT_TOOL } from '../toolNames';
import { retentionLines, type RenderedText } from '../previewFacts';
import type { RecallStore } from '../types';
import { PROGRAM_GATE, queuedLine } from '../capture/workGate';
import { annotateOf, recordPreview, type PreviewErrorFn } from './recordPreview';
import { clipLine, storeOrNothing, type RunningToolSpec } from './toolSpec';

export interface RunCodeInput {
  code: string;
  timeoutSeconds?: number;
}

export interface RunCodeContext {
  /** Runs a tool for the program; resolves to its result text and the copies it retained. `signal` aborts when the run ends. */
  callTool: RunCodeDeps['callTool'];
  store: RecallStore | undefined;
  previewBytes: number;
  /** The lines the return value's preview may take (a client that cuts by lines). */
  previewLines?: number;
  /** Most programs running at once in this process (the setting commands.maxConcurrent; 0: sized to the machine). */
  maxConcurrent?: number;
  signal?: AbortSignal;
  /** Told when the text the model gets could not be recorded as a copy's preview (the call still succeeds). */
  onPreviewNotRecorded?: PreviewErrorFn;
  /** Told why, when the program has to wait for a slot before it starts (for the log). */
  onQueued?: (reason: string) => void;
}

const MAX_CODE_CHARS = 100_000;
/** The part of a program the confirmation shows (a person reads it; the rest is counted). */
const CONFIRMATION_CODE_CHARS = 20_000;

/**
 * `run_code`: runs a short JavaScript program in an isolated sandbox process; the program calls other
 * tools through `tools.call(name, input)` (`context.callTool`, by default this registry). Large
 * nested results are retained before the program sees them, and the way back to each is reported
 * next to the program's (previewed) return value.
 */
export const runCodeSpec: RunningToolSpec<RunCodeInput, typeof RUN_CODE_TOOL> = {
  name: RUN_CODE_TOOL,
  effect: 'runs',
  without: 'running code',
  // Header, recovery section and console output take about this much of a token budget.
  headerBytes: 4000,
  invocation: ({ code }) => {
    const firstLine = (typeof code === 'string' ? code : '').trim().split('\n')[0] ?? '';
    return l10n.t('Running program {0}', `\`${clipLine(firstLine, 60)}\``);
  },
  confirmation: ({ code: given, timeoutSeconds }) => {
    const code = typeof given === 'string' ? given : '';
    return {
      title: l10n.t('Run code'),
      question: l10n.t(
        'Run this JavaScript program? It runs isolated (no files, network or processes) and can only act through the tools it calls, which ask for their own confirmation as usual.',
      ),
      code:
        code.length > CONFIRMATION_CODE_CHARS
          ? `${code.slice(0, CONFIRMATION_CODE_CHARS)}\n// ${l10n.t('… {0} more characters', code.length - CONFIRMATION_CODE_CHARS)}`
          : code,
      language: 'javascript',
      note: l10n.t('Time limit: {0} s.', timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS),
    };
  },
  progress: () => `$(code) ${RUN_CODE_TOOL}`,
  validate: validateRunCodeInput,
  async run(input, context) {
    const { settings, log } = context;
    const { text, result } = await runCodeTool(input, {
      callTool: context.callTool,
      store: await storeOrNothing(context, RUN_CODE_TOOL),
      previewBytes: context.previewBytes ?? settings.previewBytes,
      previewLines: context.previewLines,
      maxConcurrent: settings.commandsMaxConcurrent,
      signal: context.signal,
      onPreviewNotRecorded: (message) => log.warn(`${RUN_CODE_TOOL}: ${message}`),
      onQueued: (reason) => log.info(`${RUN_CODE_TOOL} queued: ${reason}`),
    });
    log.info(describeCodeRun(result));
    const retained = retainedByCodeRun(result);
    if (retained.length > 0) context.onRetained?.(retained);
    return text;
  },
};

/** Throws RecallError INVALID_ARGUMENT for a program that cannot start (its schema bounds timeoutSeconds). */
export function validateRunCodeInput(input: RunCodeInput): void {
  const { code } = input as { code: unknown };
  if (typeof code !== 'string' || code.trim() === '') {
    throw new RecallError(
      'INVALID_ARGUMENT',
      'code must be a non-empty JavaScript program (the body of an async function that ends with return value).',
    );
  }
  if (code.length > MAX_CODE_CHARS) {
    throw new RecallError(
      'INVALID_ARGUMENT',
      `the program is ${code.length} characters; the limit is ${MAX_CODE_CHARS}. Write a shorter program that calls tools for the data instead of embedding it.`,
    );
  }
}

/**
 * Runs the program in the sandbox (runProgram itself refuses a nested run_code); the text is what the
 * model gets (return value preview, recovery section, console), the result is for logs. The text is
 * recorded, exactly, as the preview (`extra.preview`) of the copies this run retained: its return
 * value's and its nested results'. A nested run_command's own copy was annotated by that call.
 */
export async function runCodeTool(input: RunCodeInput, context: RunCodeContext): Promise<{ text: string; result: CodeRunResult }> {
  if (context.maxConcurrent !== undefined) PROGRAM_GATE.configure({ maxConcurrent: context.maxConcurrent });
  // A sandbox is a Node process: they wait for a slot as commands do (an abort while waiting
  // reaches runProgram already aborted, which then starts nothing and says it was cancelled).
  const admission = await PROGRAM_GATE.enter(0, context.signal, context.onQueued);
  let result: CodeRunResult;
  try {
    result = await runProgram(
      { code: input.code, timeoutMs: (input.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000, signal: context.signal },
      { callTool: context.callTool, store: context.store, previewBytes: context.previewBytes, previewLines: context.previewLines },
    );
  } finally {
    admission.release();
  }
  const queued = admission.waitedFor ? queuedLine({ waitedMs: admission.waitedMs, reason: admission.waitedFor }) : undefined;
  const { text, previewMarker } = withRetentionLines(renderCodeRun(result, context.previewBytes), result, queued);
  const retained = result.nested.filter((record) => record.status === 'retained').map((record) => record.outputId);
  // The inspector numbers the value's lines from these and highlights its marker from this, reading
  // neither back; the marker is the value copy's alone (the nested copies' texts name no range of theirs).
  const valueFacts = { ...(result.valueLines && { lines: result.valueLines }), ...(previewMarker && { previewMarker }) };
  const facts = result.valueOutputId ? { [result.valueOutputId]: valueFacts } : {};
  await recordPreview(annotateOf(context.store), [result.valueOutputId, ...retained], text, context.onPreviewNotRecorded, facts);
  return { text, result };
}

/**
 * The rendered run with the lines a client that keeps only part of a result still gets (see
 * renderCommandResult): when the return value is cut, the line after the status line and the last
 * line name its outputId, the omitted range, the read call and the notable lines omitted. A
 * `queued` line goes first, or after that line when there is one (the first 500 characters are
 * what Copilot CLI keeps of a large result). The marker moves by what goes before it.
 */
export function withRetentionLines(
  { text: rendered, status, rest, previewMarker }: RenderedCodeRun,
  result: CodeRunResult,
  queued?: string,
): RenderedText {
  const id = result.valueOutputId;
  const lines =
    id && result.valueFacts
      ? retentionLines(
          result.valueFacts,
          id,
          'return value',
          `To find a field: ${SEARCH_TOOL_OUTPUT_TOOL} {"outputId":"${id}","pattern":"…"}. Do not re-run the program to see more.`,
        )
      : undefined;
  const moved = (by: number): RenderedText['previewMarker'] =>
    previewMarker && { ...previewMarker, start: previewMarker.start + by, end: previewMarker.end + by };
  if (!lines)
    return queued ? { text: `${queued}\n${rendered}`, previewMarker: moved(queued.length + 1) } : { text: rendered, previewMarker };
  const inserted = `\n${lines.first}${queued ? `\n${queued}` : ''}`;
  const text = `${status}${inserted}${rest}`;
  // The value's preview is after the status line, so the lines inserted there move its marker.
  return { text: `${text}${text.endsWith('\n') ? '' : '\n'}${lines.last}`, previewMarker: moved(inserted.length) };
}

/** The copies a run retained (its nested results and its return value). */
export function retainedByCodeRun(result: CodeRunResult): string[] {
  return [
    ...result.nested.flatMap((record) => (record.outputId ? [record.outputId] : [])),
    ...(result.valueOutputId ? [result.valueOutputId] : []),
  ];
}

/** One log line about a finished program. */
export function describeCodeRun(result: CodeRunResult): string {
  const outcome = result.error ? `${result.error.kind}: ${result.error.message}` : `${result.valueKind}, ${result.valueBytes} bytes`;
  return `${RUN_CODE_TOOL}: ${outcome}; ${result.calls} calls; ${retainedByCodeRun(result).length} retained; ${result.durationMs} ms`;
}

declare module './registry' {
  interface ToolSpecs {
    run_code: typeof runCodeSpec;
  }
}
