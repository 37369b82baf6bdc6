import * as vscode from 'vscode';
import { renderCodeRun } from '../../core/codeMode/render';
import { runCode } from '../../core/codeMode/runCode';
import { DEFAULT_TIMEOUT_SECONDS, MAX_TIMEOUT_SECONDS } from '../../core/codeMode/sandbox';
import { RecallError } from '../../core/errors';
import { RUN_CODE_TOOL } from '../../core/toolNames';
import { confirmRun, invokeSideEffect, type SideEffectDeps } from './sideEffectTool';

export interface RunCodeInput {
  code: string;
  timeoutSeconds?: number;
}

/** Runs another language-model tool for the program and gives back its result as text. */
export type ToolInvoker = (
  name: string,
  input: object,
  toolInvocationToken: vscode.LanguageModelToolInvocationOptions<object>['toolInvocationToken'],
  token: vscode.CancellationToken,
) => Promise<string>;

export interface RunCodeDeps extends SideEffectDeps {
  /** Defaults to `invokeToolText` (vscode.lm.invokeTool); injectable for tests. */
  invokeTool?: ToolInvoker;
}

/** Header, recovery section and console output take about this much of a token budget. */
const HEADER_BYTES = 4000;
const MAX_CODE_CHARS = 100_000;

/**
 * `run_code`: runs a short JavaScript program in an isolated sandbox process; the program calls other
 * tools through `tools.call(name, input)`. Large nested results are retained before the program sees
 * them, and the way back to each is reported next to the program's (previewed) return value.
 */
export class RunCodeTool implements vscode.LanguageModelTool<RunCodeInput> {
  static readonly toolName = RUN_CODE_TOOL;

  constructor(private readonly deps: RunCodeDeps) {}

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<RunCodeInput>): vscode.PreparedToolInvocation {
    const code = typeof options.input.code === 'string' ? options.input.code : '';
    const seconds = options.input.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
    const firstLine = code.trim().split('\n')[0] ?? '';
    return confirmRun(
      `Running program \`${firstLine.length > 60 ? `${firstLine.slice(0, 57)}…` : firstLine}\``,
      'Run code',
      'Run this JavaScript program? It runs isolated (no files, network or processes) and can only act through the tools it calls, which ask for their own confirmation as usual.',
      code.length > 20_000 ? `${code.slice(0, 20_000)}\n// … ${code.length - 20_000} more characters` : code,
      'javascript',
      `Time limit: ${seconds} s.`,
    );
  }

  async invoke(
    options: vscode.LanguageModelToolInvocationOptions<RunCodeInput>,
    token: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelToolResult> {
    const { code, timeoutSeconds } = options.input;
    const invoker = this.deps.invokeTool ?? invokeToolText;
    return invokeSideEffect(RUN_CODE_TOOL, this.deps, options, token, {
      without: 'running code',
      validate: () => validateInput(code, timeoutSeconds),
      headerBytes: HEADER_BYTES,
      progressTitle: `$(code) ${RUN_CODE_TOOL}`,
      run: async ({ store, signal, previewBytes }) => {
        // runCode itself refuses nested run_code, so a program cannot start another program.
        const callTool = async (name: string, input: object, ended: AbortSignal): Promise<string> => {
          // The nested tool stops when the model's request is cancelled or when this program ends.
          const source = new vscode.CancellationTokenSource();
          const cancel = () => source.cancel();
          const linked = token.onCancellationRequested(cancel);
          ended.addEventListener('abort', cancel, { once: true });
          try {
            return await invoker(name, input, options.toolInvocationToken, source.token);
          } finally {
            ended.removeEventListener('abort', cancel);
            linked.dispose();
            source.dispose();
          }
        };
        const result = await runCode(
          { code, timeoutMs: (timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000, signal },
          { callTool, store, previewBytes },
        );
        const retained = result.nested.filter((record) => record.outputId).length + (result.valueOutputId ? 1 : 0);
        this.deps.log.info(
          `${RUN_CODE_TOOL}: ${result.error ? `${result.error.kind}: ${result.error.message}` : `${result.valueKind}, ${result.valueBytes} bytes`}; ${result.calls} calls; ${retained} retained; ${result.durationMs} ms`,
        );
        if (retained > 0) this.deps.onRetained();
        return renderCodeRun(result, previewBytes);
      },
    });
  }
}

function validateInput(code: unknown, timeoutSeconds: unknown): void {
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
 * Invokes a language-model tool and joins its text parts (tool results are split into ≤ 8 KiB
 * parts, so joining restores the text). Parts that are not text cannot reach the program; a marker
 * says so instead of dropping them silently.
 */
export async function invokeToolText(
  name: string,
  input: object,
  toolInvocationToken: vscode.LanguageModelToolInvocationOptions<object>['toolInvocationToken'],
  token: vscode.CancellationToken,
): Promise<string> {
  if (!vscode.lm.tools.some((tool) => tool.name === name)) {
    const names = vscode.lm.tools.map((tool) => tool.name).filter((n) => n !== RunCodeTool.toolName);
    const listed = names.slice(0, 60).join(', ') + (names.length > 60 ? `, … (${names.length - 60} more)` : '');
    throw new Error(`There is no tool named ${JSON.stringify(name)}. Available tools: ${listed || 'none'}.`);
  }
  const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken }, token);
  return result.content
    .map((part) =>
      part instanceof vscode.LanguageModelTextPart
        ? part.value
        : `[${name} returned a non-text part that ${RUN_CODE_TOOL} cannot pass to the program]`,
    )
    .join('');
}
