import * as path from 'node:path';
import * as l10n from '@vscode/l10n';
import { captureCommand, type CommandResult } from '../capture/captureCommand';
import { queuedLine } from '../capture/workGate';
import { RecallError, clipEcho } from '../errors';
import { READ_TOOL_OUTPUT_TOOL, RUN_COMMAND_TOOL, SEARCH_TOOL_OUTPUT_TOOL } from '../toolNames';
import type { RecallStore } from '../types';
import { baseDirOf, clipLine, storeOrNothing, type RunningToolSpec } from './toolSpec';

export interface RunCommandInput {
  command: string;
  cwd?: string;
  timeoutSeconds?: number;
}

export interface RunCommandContext {
  /** Undefined when the session store cannot open: the command still runs, and says its output was not retained. */
  store: RecallStore | undefined;
  /** The folder relative `cwd`s start from (the first workspace folder). */
  baseDir: string;
  defaultTimeoutSeconds: number;
  previewBytes: number;
  streamBytes: number;
  /** Most commands running at once in this process (the setting commands.maxConcurrent; 0: sized to the machine). */
  maxConcurrent?: number;
  signal?: AbortSignal;
  /** Told why, when the command has to wait for a slot before it starts (for the log). */
  onQueued?: (reason: string) => void;
}

/**
 * `run_command`: runs a shell command where the workspace is, with bounded capture; the model gets
 * the status, a preview, and the outputId of the whole output. Its input schema bounds
 * `timeoutSeconds`, so there is nothing more to validate.
 */
export const runCommandSpec: RunningToolSpec<RunCommandInput, typeof RUN_COMMAND_TOOL> = {
  name: RUN_COMMAND_TOOL,
  effect: 'runs',
  without: 'running commands',
  // Header and guidance around the preview take about this much of a token budget.
  headerBytes: 1200,
  validate: validateRunCommandInput,
  invocation: ({ command }) => l10n.t('Running {0}', `\`${clipLine(String(command), 80)}\``),
  confirmation: ({ command, cwd }, folders) => ({
    title: l10n.t('Run command'),
    question: l10n.t('Run this command in a shell?'),
    code: String(command),
    language: 'sh',
    note: l10n.t('in {0}', `\`${resolveCwd(baseDirOf(folders), typeof cwd === 'string' ? cwd : undefined)}\``),
  }),
  progress: ({ command }) => `$(terminal) ${String(command).slice(0, 60)}`,
  async run(input, context) {
    const { settings, log } = context;
    const { text, result } = await runCommandTool(input, {
      store: await storeOrNothing(context, RUN_COMMAND_TOOL),
      baseDir: baseDirOf(context.folders),
      defaultTimeoutSeconds: settings.defaultTimeoutSeconds,
      previewBytes: context.previewBytes ?? settings.previewBytes,
      streamBytes: settings.streamBytes,
      maxConcurrent: settings.commandsMaxConcurrent,
      signal: context.signal,
      onQueued: (reason) => log.info(`${RUN_COMMAND_TOOL} queued: ${reason}`),
    });
    log.info(describeCommandRun(result));
    if (result.outputId) context.onRetained?.();
    return text;
  },
};

/** Relative folders are taken from the first workspace folder, like a terminal opened there. */
/** Throws RecallError INVALID_ARGUMENT for a command line no shell can start (its schema bounds timeoutSeconds). */
export function validateRunCommandInput({ command }: RunCommandInput): void {
  if (command.trim().length === 0) throw new RecallError('INVALID_ARGUMENT', 'command must be a non-empty shell command line.');
  const nul = command.indexOf('\0');
  if (nul >= 0)
    throw new RecallError(
      'INVALID_ARGUMENT',
      `command holds a NUL character (at index ${nul}), which no command line can carry. Remove it; to write one, use printf '\\0' in the command.`,
    );
}

export function resolveCwd(baseDir: string, cwd: string | undefined): string {
  return cwd ? path.resolve(baseDir, cwd) : baseDir;
}

/**
 * Runs the command with bounded capture; the text is what the model gets, the result is for logs.
 * The text is recorded as the retained copy's `extra.preview`, exactly, for the inspector: callers
 * hand it to the model unchanged (only split into parts of at most 8,000 bytes).
 */
export async function runCommandTool(input: RunCommandInput, context: RunCommandContext): Promise<{ text: string; result: CommandResult }> {
  const { command, timeoutSeconds } = input;
  const result = await captureCommand(
    {
      command,
      cwd: resolveCwd(context.baseDir, input.cwd),
      timeoutMs: (timeoutSeconds ?? context.defaultTimeoutSeconds) * 1000,
      signal: context.signal,
      onQueued: context.onQueued,
      render: renderCommandResult,
    },
    context.store,
    { previewBytes: context.previewBytes, streamBytes: context.streamBytes, maxConcurrent: context.maxConcurrent },
  );
  // The same rendering the copy recorded as its preview, in its one journal record.
  return { text: renderCommandResult(result), result };
}

/** One log line about a finished command. */
export function describeCommandRun(result: CommandResult): string {
  return `${RUN_COMMAND_TOOL} ${JSON.stringify(clipEcho(result.command))}: exit ${result.exitCode ?? result.signal}, ${result.merged.totalBytes} bytes, ${result.outputId ?? result.recovery}`;
}

function renderCommandResult(result: CommandResult): string {
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
    ...(result.queued ? [queuedLine(result.queued)] : []),
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
  // A failure's cause is usually at the start of stderr, drowned by stdout in the merged preview.
  if (result.stderrExcerpt) lines.push(result.stderrExcerpt.replace(/\n$/, ''));
  return lines.join('\n');
}

declare module './registry' {
  interface ToolSpecs {
    run_command: typeof runCommandSpec;
  }
}
