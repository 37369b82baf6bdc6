import * as vscode from 'vscode';
import * as os from 'node:os';
import {
  RUN_COMMAND_HEADER_BYTES,
  describeCommandRun,
  resolveCwd,
  runCommandTool,
  validateRunCommandInput,
  type RunCommandInput,
} from '../../core/tools/runCommand';
import { RUN_COMMAND_TOOL } from '../../core/toolNames';
import { confirmRun, invokeSideEffect, type SideEffectDeps } from './sideEffectTool';

export type { RunCommandInput };

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
      vscode.l10n.t('Running {0}', `\`${command.length > 80 ? `${command.slice(0, 77)}…` : command}\``),
      vscode.l10n.t('Run command'),
      vscode.l10n.t('Run this command in a shell?'),
      command,
      'sh',
      vscode.l10n.t('in {0}', `\`${resolveCwd(workspaceBase(), options.input.cwd)}\``),
    );
  }

  async invoke(
    options: vscode.LanguageModelToolInvocationOptions<RunCommandInput>,
    token: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelToolResult> {
    return invokeSideEffect(RUN_COMMAND_TOOL, this.deps, options, token, {
      without: 'running commands',
      validate: () => validateRunCommandInput(options.input),
      headerBytes: RUN_COMMAND_HEADER_BYTES,
      progressTitle: `$(terminal) ${options.input.command.slice(0, 60)}`,
      run: async ({ store, settings, signal, previewBytes }) => {
        const { text, result } = await runCommandTool(options.input, {
          store,
          baseDir: workspaceBase(),
          defaultTimeoutSeconds: settings.defaultTimeoutSeconds,
          previewBytes,
          streamBytes: settings.streamBytes,
          maxConcurrent: settings.commandsMaxConcurrent,
          signal,
          onPreviewNotRecorded: (message) => this.deps.log.warn(`${RUN_COMMAND_TOOL}: ${message}`),
          onQueued: (reason) => this.deps.log.info(`${RUN_COMMAND_TOOL} queued: ${reason}`),
        });
        this.deps.log.info(describeCommandRun(result));
        if (result.outputId) this.deps.onRetained();
        return text;
      },
    });
  }
}

/** The first workspace folder, where a terminal would open (the home folder in an empty window). */
function workspaceBase(): string {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? os.homedir();
}
