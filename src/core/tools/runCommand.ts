import * as path from 'node:path';
import * as l10n from '@vscode/l10n';
import { captureCommand, type CommandResult } from '../capture/captureCommand';
import { queuedLine } from '../capture/workGate';
import type { ProgressListener } from '../capture/progress';
import { RecallError, clipEcho } from '../errors';
import { READ_TOOL_OUTPUT_TOOL, RUN_COMMAND_TOOL, SEARCH_TOOL_OUTPUT_TOOL } from '../toolNames';
import type { RecallStore } from '../types';
import { retentionLines, statedOmission } from '../preview';
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
  /** Told the bytes so far and a bounded tail while the command runs (captureCommand's onProgress). */
  onProgress?: ProgressListener;
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
  // Header, guidance and last line around the preview take about this much of a token budget (1,276
  // bytes for a failed npm test whose omitted part has every class of notable line).
  headerBytes: 1600,
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
      onProgress: context.onCommandProgress,
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
  // Rendered once, by the capture: the same text the copy recorded as its preview, in its one journal record.
  const { text, ...result } = await captureCommand(
    {
      command,
      cwd: resolveCwd(context.baseDir, input.cwd),
      timeoutMs: (timeoutSeconds ?? context.defaultTimeoutSeconds) * 1000,
      signal: context.signal,
      onQueued: context.onQueued,
      onProgress: context.onProgress,
      render: renderCommandResult,
    },
    context.store,
    { previewBytes: context.previewBytes, streamBytes: context.streamBytes, maxConcurrent: context.maxConcurrent },
  );
  return { text, result };
}

/** One log line about a finished command. */
export function describeCommandRun(result: CommandResult): string {
  return `${RUN_COMMAND_TOOL} ${JSON.stringify(clipEcho(result.command))}: exit ${result.exitCode ?? result.signal}, ${result.merged.totalBytes} bytes, ${result.outputId ?? result.recovery}`;
}

/** Characters of the command line the result's first line repeats; a longer one is clipped, and its length said. */
export const HEADER_COMMAND_CHARS = 100;

/**
 * The text the model gets. A client may keep only part of a large result (Copilot CLI: its first
 * 500 characters; Codex: head and tail; others: the tail), so when the preview is cut, the line
 * right after the status line and the last line each say where the whole output is, what the
 * preview omitted, the exact read call and the notable lines omitted:
 *
 *   $ <command, clipped>
 *   <status>; <seconds> s
 *   NOT the whole output: retained as outputId "…". Omitted here: bytes [a, b) of N; read on with …
 *   stdout: …; stderr: …; cwd …
 *   [queued … s before it started: …]
 *   --- output (head and tail; the marker shows what was omitted) ---
 *   <head> [... marker ...] [notable lines …] <tail>
 *   [<stderr alone, for a failure>]
 *   [end of preview. outputId "…": bytes [a, b) of N omitted; read on with …]
 */
export function renderCommandResult(result: CommandResult): string {
  const status = result.cancelled
    ? 'cancelled (the process tree was stopped)'
    : result.timedOut
      ? 'timed out (the process tree was stopped)'
      : result.signal
        ? `killed by ${result.signal}`
        : `exit code ${result.exitCode}`;
  const stream = (name: string, s: CommandResult['stdout']) =>
    `${name}: ${s.totalBytes} bytes${s.complete ? '' : `, ${s.capturedBytes} kept, ${s.droppedBytes} dropped (complete: false)`}`;
  const stated = result.outputId && result.previewTruncated ? statedOmission(result.preview, result.outputId) : undefined;
  const kept = `The copy keeps ${result.merged.capturedBytes} of ${result.merged.totalBytes} output bytes (complete: ${result.merged.complete}).`;
  const guidance = `Check the copy before saying something is absent; do not re-run the command to see more.`;
  const retention =
    result.outputId && stated
      ? retentionLines(
          stated,
          result.outputId,
          'output',
          `${kept} To find a field: ${SEARCH_TOOL_OUTPUT_TOOL} {"outputId":"${result.outputId}","pattern":"…"}. ${guidance}`,
        )
      : undefined;
  const lines = [`$ ${headerCommand(result.command)}`, `${status}; ${(result.durationMs / 1000).toFixed(1)} s`];
  if (retention) {
    lines.push(retention.first);
  } else if (result.outputId) {
    // Retained while the preview is whole (a capture that dropped bytes, its copy within the preview): no range to name.
    lines.push(
      `NOT the whole output: retained as outputId "${result.outputId}". ${kept} Use ${SEARCH_TOOL_OUTPUT_TOOL} {"outputId":"${result.outputId}","pattern":"…"} or ${READ_TOOL_OUTPUT_TOOL} {"outputId":"${result.outputId}","offset":0}. ${guidance}`,
    );
  } else if (result.recovery === 'unavailable') {
    lines.push(
      `The preview below is NOT the whole output, and the rest could not be retained (${result.recoveryReason}). Say that the output was cut off rather than concluding something is absent.`,
    );
  }
  lines.push(`${stream('stdout', result.stdout)}; ${stream('stderr', result.stderr)}; cwd ${headerCwd(result.cwd)}`);
  if (result.queued) lines.push(queuedLine(result.queued));
  lines.push(
    result.previewTruncated ? '--- output (head and tail; the marker shows what was omitted) ---' : '--- output ---',
    result.preview,
  );
  // A failure's cause is usually at the start of stderr, drowned by stdout in the merged preview.
  if (result.stderrExcerpt) lines.push(result.stderrExcerpt.replace(/\n$/, ''));
  const text = lines.join('\n');
  return retention ? `${text}${text.endsWith('\n') ? '' : '\n'}${retention.last}` : text;
}

/** Characters of the working folder the sizes line shows; a longer one keeps its start and its end (the folders nearest the command). */
export const HEADER_CWD_CHARS = 300;

function headerCwd(cwd: string): string {
  if (cwd.length <= HEADER_CWD_CHARS) return cwd;
  const start = Math.floor(HEADER_CWD_CHARS / 3);
  return `${cwd.slice(0, pairStart(cwd, start))}…${cwd.slice(pairStart(cwd, cwd.length - (HEADER_CWD_CHARS - start)))} (${cwd.length} characters)`;
}

/** `at`, or one less when it would split a surrogate pair. */
const pairStart = (text: string, at: number): number => (/[\uDC00-\uDFFF]/.test(text[at] ?? '') ? at - 1 : at);

/** The command as the first line repeats it: whole, or its first HEADER_COMMAND_CHARS characters and its length. */
function headerCommand(command: string): string {
  if (command.length <= HEADER_COMMAND_CHARS) return command;
  const end = /[\uD800-\uDBFF]/.test(command[HEADER_COMMAND_CHARS - 1]) ? HEADER_COMMAND_CHARS - 1 : HEADER_COMMAND_CHARS;
  return `${command.slice(0, end)}… (${command.length} characters)`;
}

declare module './registry' {
  interface ToolSpecs {
    run_command: typeof runCommandSpec;
  }
}
