import * as vscode from 'vscode';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCommand, type CommandResult } from '../../core/capture/runCommand';
import { RecallError } from '../../core/errors';
import { READ_TOOL_OUTPUT_TOOL, SEARCH_TOOL_OUTPUT_TOOL, RUN_COMMAND_TOOL } from '../../core/toolNames';
import { confirmRun, invokeSideEffect, type SideEffectDeps } from './sideEffectTool';

export interface RunCommandInput {
  command: string;
  cwd?: string;
  timeoutSeconds?: number;
}

/** Header and guidance around the preview take about this much of a token budget. */
const HEADER_BYTES = 1200;

/**
 * `run_command`: runs a shell command where the workspace is, with bounded capture; the model gets
 * the status, a preview, and the outputId of the whole output.
 */
export class RunCommandTool implements vscode.LanguageModelTool<RunCommandInput> {
  static readonly toolName = RUN_COMMAND_TOOL;

  constructor(private readonly deps: SideEffectDeps) {}

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<RunCommandInput>): vscode.PreparedToolInvocation {
    const { command } = options.input;
    return confirmRun(
      `Running \`${command.length > 80 ? `${command.slice(0, 77)}…` : command}\``,
      'Run command',
      'Run this command in a shell?',
      command,
      'sh',
      `in \`${resolveCwd(options.input.cwd)}\``,
    );
  }

  async invoke(
    options: vscode.LanguageModelToolInvocationOptions<RunCommandInput>,
    token: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelToolResult> {
    const { command, timeoutSeconds } = options.input;
    return invokeSideEffect(RUN_COMMAND_TOOL, this.deps, options, token, {
      without: 'running commands',
      validate: () => {
        if (timeoutSeconds !== undefined && !(Number.isFinite(timeoutSeconds) && timeoutSeconds > 0)) {
          throw new RecallError(
            'INVALID_ARGUMENT',
            `timeoutSeconds must be a positive number of seconds; got ${JSON.stringify(timeoutSeconds)}. Omit it to use the default.`,
          );
        }
      },
      headerBytes: HEADER_BYTES,
      progressTitle: `$(terminal) ${command.slice(0, 60)}`,
      run: async ({ store, settings, signal, previewBytes }) => {
        const result = await runCommand(
          {
            command,
            cwd: resolveCwd(options.input.cwd),
            timeoutMs: (timeoutSeconds ?? settings.defaultTimeoutSeconds) * 1000,
            signal,
          },
          store,
          { previewBytes, streamBytes: settings.streamBytes },
        );
        this.deps.log.info(
          `${RUN_COMMAND_TOOL} ${JSON.stringify(command)}: exit ${result.exitCode ?? result.signal}, ${result.merged.totalBytes} bytes, ${result.outputId ?? result.recovery}`,
        );
        if (result.outputId) this.deps.onRetained();
        return render(result);
      },
    });
  }
}

/** Relative folders are taken from the first workspace folder, like a terminal opened there. */
export function resolveCwd(cwd: string | undefined): string {
  const base = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? os.homedir();
  return cwd ? path.resolve(base, cwd) : base;
}

function render(result: CommandResult): string {
  const status = result.cancelled
    ? 'cancelled (the process tree was stopped)'
    : result.timedOut
      ? 'timed out (the process tree was stopped)'
      : result.signal
        ? `killed by ${result.signal}`
        : `exit code ${result.exitCode}`;
  const stream = (name: string, s: CommandResult['stdout']) =>
    `${name}: ${s.totalBytes} bytes${s.complete ? '' : `, ${s.capturedBytes} kept, ${s.droppedBytes} dropped (complete: false)`}`;
  const lines = [
    `$ ${result.command}`,
    `${status}; ${(result.durationMs / 1000).toFixed(1)} s; cwd ${result.cwd}`,
    `${stream('stdout', result.stdout)}; ${stream('stderr', result.stderr)}`,
  ];
  if (result.outputId) {
    lines.push(
      `The preview below is NOT the whole output. The merged output is retained as outputId "${result.outputId}" (${result.merged.capturedBytes} of ${result.merged.totalBytes} bytes kept, complete: ${result.merged.complete}). ` +
        `Before saying something is absent, use ${SEARCH_TOOL_OUTPUT_TOOL} {"outputId":"${result.outputId}","pattern":"…"} or ${READ_TOOL_OUTPUT_TOOL} {"outputId":"${result.outputId}","offset":0}. Do not re-run the command to see more.`,
    );
  } else if (result.recovery === 'unavailable') {
    lines.push(
      `The preview below is NOT the whole output, and the rest could not be retained (${result.recoveryReason}). Say that the output was cut off rather than concluding something is absent.`,
    );
  }
  lines.push(
    result.previewTruncated ? '--- output (head and tail; the marker shows what was omitted) ---' : '--- output ---',
    result.preview,
  );
  return lines.join('\n');
}
