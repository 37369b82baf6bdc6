import { renderCodeRun } from '../codeMode/render';
import { runCode, type CodeRunResult, type RunCodeDeps } from '../codeMode/runCode';
import { DEFAULT_TIMEOUT_SECONDS, MAX_TIMEOUT_SECONDS } from '../codeMode/sandbox';
import { RecallError } from '../errors';
import { RUN_CODE_TOOL } from '../toolNames';
import type { RecallStore } from '../types';
import { PROGRAM_GATE, queuedLine } from '../capture/workGate';
import { annotateOf, recordPreview, type PreviewErrorFn } from './recordPreview';

export interface RunCodeInput {
  code: string;
  timeoutSeconds?: number;
}

export interface RunCodeContext {
  /** Runs a tool for the program; resolves to its result text. `signal` aborts when the run ends. */
  callTool: RunCodeDeps['callTool'];
  store: RecallStore | undefined;
  previewBytes: number;
  /** Most programs running at once in this process (the setting commands.maxConcurrent; 0: sized to the machine). */
  maxConcurrent?: number;
  signal?: AbortSignal;
  /** Told when the text the model gets could not be recorded as a copy's preview (the call still succeeds). */
  onPreviewNotRecorded?: PreviewErrorFn;
  /** Told why, when the program has to wait for a slot before it starts (for the log). */
  onQueued?: (reason: string) => void;
}

/** Header, recovery section and console output take about this much of a token budget. */
export const RUN_CODE_HEADER_BYTES = 4000;
const MAX_CODE_CHARS = 100_000;

/** Throws RecallError INVALID_ARGUMENT for a program that cannot start. */
export function validateRunCodeInput(input: RunCodeInput): void {
  const { code, timeoutSeconds } = input as { code: unknown; timeoutSeconds: unknown };
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
  if (
    timeoutSeconds !== undefined &&
    !(typeof timeoutSeconds === 'number' && Number.isFinite(timeoutSeconds) && timeoutSeconds > 0 && timeoutSeconds <= MAX_TIMEOUT_SECONDS)
  ) {
    throw new RecallError(
      'INVALID_ARGUMENT',
      `timeoutSeconds must be a number of seconds in (0, ${MAX_TIMEOUT_SECONDS}]; got ${JSON.stringify(timeoutSeconds)}. Omit it to use ${DEFAULT_TIMEOUT_SECONDS} s.`,
    );
  }
}

/**
 * Runs the program in the sandbox (runCode itself refuses a nested run_code); the text is what the
 * model gets (return value preview, recovery section, console), the result is for logs. The text is
 * recorded, exactly, as the preview (`extra.preview`) of the copies this run retained: its return
 * value's and its nested results'. A nested run_command's own copy was annotated by that call.
 */
export async function runCodeTool(input: RunCodeInput, context: RunCodeContext): Promise<{ text: string; result: CodeRunResult }> {
  if (context.maxConcurrent !== undefined) PROGRAM_GATE.configure({ maxConcurrent: context.maxConcurrent });
  // A sandbox is a Node process: they wait for a slot as commands do (an abort while waiting
  // reaches runCode already aborted, which then starts nothing and says it was cancelled).
  const admission = await PROGRAM_GATE.enter(0, context.signal, context.onQueued);
  let result: CodeRunResult;
  try {
    result = await runCode(
      { code: input.code, timeoutMs: (input.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000, signal: context.signal },
      { callTool: context.callTool, store: context.store, previewBytes: context.previewBytes },
    );
  } finally {
    admission.release();
  }
  const rendered = renderCodeRun(result, context.previewBytes);
  const text = admission.waitedFor ? `${queuedLine({ waitedMs: admission.waitedMs, reason: admission.waitedFor })}\n${rendered}` : rendered;
  const retained = result.nested.filter((record) => record.status === 'retained').map((record) => record.outputId);
  await recordPreview(annotateOf(context.store), [result.valueOutputId, ...retained], text, context.onPreviewNotRecorded);
  return { text, result };
}

/** How many copies a run retained (its nested results and its return value). */
export function retainedByCodeRun(result: CodeRunResult): number {
  return result.nested.filter((record) => record.outputId).length + (result.valueOutputId ? 1 : 0);
}

/** One log line about a finished program. */
export function describeCodeRun(result: CodeRunResult): string {
  const outcome = result.error ? `${result.error.kind}: ${result.error.message}` : `${result.valueKind}, ${result.valueBytes} bytes`;
  return `${RUN_CODE_TOOL}: ${outcome}; ${result.calls} calls; ${retainedByCodeRun(result)} retained; ${result.durationMs} ms`;
}
