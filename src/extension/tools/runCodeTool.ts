import * as vscode from 'vscode';
import { DEFAULT_TIMEOUT_SECONDS } from '../../core/codeMode/sandbox';
import { RUN_CODE_TOOL } from '../../core/toolNames';
import { unknownToolText } from '../../core/tools/parts';
import {
  RUN_CODE_HEADER_BYTES,
  describeCodeRun,
  retainedByCodeRun,
  runCodeTool,
  validateRunCodeInput,
  type RunCodeInput,
} from '../../core/tools/runCode';
import { confirmRun, invokeSideEffect, type SideEffectDeps } from './sideEffectTool';

export type { RunCodeInput };

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
      vscode.l10n.t('Running program {0}', `\`${firstLine.length > 60 ? `${firstLine.slice(0, 57)}…` : firstLine}\``),
      vscode.l10n.t('Run code'),
      vscode.l10n.t(
        'Run this JavaScript program? It runs isolated (no files, network or processes) and can only act through the tools it calls, which ask for their own confirmation as usual.',
      ),
      code.length > 20_000 ? `${code.slice(0, 20_000)}\n// ${vscode.l10n.t('… {0} more characters', code.length - 20_000)}` : code,
      'javascript',
      vscode.l10n.t('Time limit: {0} s.', seconds),
    );
  }

  async invoke(
    options: vscode.LanguageModelToolInvocationOptions<RunCodeInput>,
    token: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelToolResult> {
    const invoker = this.deps.invokeTool ?? invokeToolText;
    return invokeSideEffect(RUN_CODE_TOOL, this.deps, options, token, {
      without: 'running code',
      validate: () => validateRunCodeInput(options.input),
      headerBytes: RUN_CODE_HEADER_BYTES,
      progressTitle: `$(code) ${RUN_CODE_TOOL}`,
      run: async ({ store, settings, signal, previewBytes }) => {
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
        const { text, result } = await runCodeTool(options.input, {
          callTool,
          store,
          previewBytes,
          maxConcurrent: settings.commandsMaxConcurrent,
          signal,
          onPreviewNotRecorded: (message) => this.deps.log.warn(`${RUN_CODE_TOOL}: ${message}`),
          onQueued: (reason) => this.deps.log.info(`${RUN_CODE_TOOL} queued: ${reason}`),
        });
        this.deps.log.info(describeCodeRun(result));
        if (retainedByCodeRun(result) > 0) this.deps.onRetained();
        return text;
      },
    });
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
    throw new Error(
      unknownToolText(
        name,
        vscode.lm.tools.map((tool) => tool.name).filter((n) => n !== RunCodeTool.toolName),
      ),
    );
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
