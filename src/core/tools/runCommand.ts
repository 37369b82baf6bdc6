import * as path from 'node:path';
import * as l10n from '@vscode/l10n';
import {
  captureCommand,
  type CaptureLimits,
  type CommandCapture,
  type CommandResult,
  type RunCommandOptions,
} from '../capture/captureCommand';
import { firstNotableText } from '../notable/first';
import { queuedLine } from '../capture/workGate';
import type { ProgressListener } from '../capture/progress';
import { RecallError, clipEcho } from '../errors';
import { newOutputId } from '../ids';
import { DEFAULT_LIMITS } from '../limits';
import { READ_TOOL_OUTPUT_TOOL, RUN_COMMAND_TOOL, SEARCH_TOOL_OUTPUT_TOOL } from '../toolNames';
import type { NotableDigest, RecallStore, RetainMeta } from '../types';
import { previewHeadTail } from '../preview';
import { markerAt, retentionLines, type PreviewFacts, type RenderedText } from '../previewFacts';
import { NO_STORE_REASON, retainOrExplain } from '../retention';
import { splitFailureBudget, stderrExcerpt } from './stderrExcerpt';
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
  /** The lines each preview may take, for a client that cuts results by lines; default: none. */
  previewLines?: number;
  streamBytes: number;
  /** Most commands running at once in this process (the setting commands.maxConcurrent; 0: sized to the machine). */
  maxConcurrent?: number;
  signal?: AbortSignal;
  /** Told why, when the command has to wait for a slot before it starts (for the log). */
  onQueued?: (reason: string) => void;
  /** Told the bytes so far and a bounded tail while the command runs (captureCommand's onProgress). */
  onProgress?: ProgressListener;
}

/** A command's result as the tool makes it: how it ended, its preview and where its copy is. */
export interface RunCommandResult extends CommandResult {
  /** What the model sees: the merged output, or its head+tail with an omission marker. */
  preview: string;
  previewTruncated: boolean;
  /** What a cut preview omitted and listed, as data (the lines around the result repeat it). */
  previewFacts?: PreviewFacts;
  /** The output's first notable line, recorded with a retained copy for listings (`extra.firstNotable`). */
  firstNotable?: string;
  /** The retained merged copy, when the output did not fit the preview (or the command was cancelled) and saving worked. */
  outputId?: string;
  /** 'not-needed': the preview is the whole output. */
  recovery: 'retained' | 'not-needed' | 'unavailable';
  recoveryReason?: string;
  /**
   * When the command failed (non-zero exit, a signal, a timeout) and the preview is not the whole
   * output: stderr alone, head and tail, as a titled section to show beside the preview. The
   * preview and this section share the preview budget.
   */
  stderrExcerpt?: string;
  /** The notable lines the capture saw in the bytes it dropped (also retained with the copy). */
  droppedNotable?: NotableDigest;
}

/** A result and the text the model gets for it. */
export type RenderedCommandResult = RunCommandResult & RenderedText;

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
      previewLines: context.previewLines,
      streamBytes: settings.streamBytes,
      maxConcurrent: settings.commandsMaxConcurrent,
      signal: context.signal,
      onQueued: (reason) => log.info(`${RUN_COMMAND_TOOL} queued: ${reason}`),
      onProgress: context.onCommandProgress,
    });
    log.info(describeCommandRun(result));
    if (result.outputId) context.onRetained?.([result.outputId]);
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
export async function runCommandTool(
  input: RunCommandInput,
  context: RunCommandContext,
): Promise<{ text: string; result: RunCommandResult }> {
  const { command, timeoutSeconds } = input;
  const { text, ...result } = await runCommand(
    {
      command,
      cwd: resolveCwd(context.baseDir, input.cwd),
      timeoutMs: (timeoutSeconds ?? context.defaultTimeoutSeconds) * 1000,
      signal: context.signal,
      onQueued: context.onQueued,
      onProgress: context.onProgress,
    },
    context.store,
    {
      previewBytes: context.previewBytes,
      previewLines: context.previewLines,
      streamBytes: context.streamBytes,
      maxConcurrent: context.maxConcurrent,
    },
  );
  return { text, result };
}

/**
 * Runs a command and makes its result: the capture's merged copy is previewed and, when the
 * preview is not all of it, retained with the result text that names it (`extra.preview`: the
 * copy and what the model was shown are one journal record). A copy that cannot be kept is said so
 * in the result, rendered again without its id. Rendered once otherwise.
 */
export function runCommand(
  options: RunCommandOptions,
  store: RecallStore | undefined,
  limits: Partial<Omit<CaptureLimits, 'copyBytes'> & { previewBytes: number; previewLines: number }> = {},
): Promise<RenderedCommandResult> {
  const previewBytes = limits.previewBytes ?? DEFAULT_LIMITS.previewBytes;
  // The copy fits the store's cap unchanged: the preview's offsets are the copy's offsets.
  return captureCommand(options, { ...limits, copyBytes: store?.copyBytes }, (capture) =>
    commandResult(capture, store, { bytes: previewBytes, lines: limits.previewLines }),
  );
}

async function commandResult(
  capture: CommandCapture,
  store: RecallStore | undefined,
  budget: { bytes: number; lines: number | undefined },
): Promise<RenderedCommandResult> {
  const { bytes: previewBytes, lines: previewLines } = budget;
  const { result, copy } = capture;
  const rendered = (run: RunCommandResult): RenderedCommandResult => ({ ...run, ...renderCommandResult(run) });
  // Whole when it fits the bytes and, for a client that cuts by lines, the lines too.
  if (copy.complete && copy.totalBytes <= previewBytes && (previewLines === undefined || copy.lines.breaks < previewLines)) {
    const whole = capture.copyBytes().toString('utf8');
    // Invalid bytes decode to U+FFFD (3 bytes each): binary output can outgrow the preview budget.
    if (Buffer.byteLength(whole) <= previewBytes) {
      const shown = rendered({ ...result, preview: whole, previewTruncated: false, recovery: 'not-needed' });
      return result.cancelled ? keepCancelled(capture, store, shown, previewBytes) : shown;
    }
  }
  const failed = result.timedOut || result.signal !== null || (result.exitCode !== null && result.exitCode !== 0);
  const split =
    failed && !result.cancelled ? splitFailureBudget(previewBytes, result.stderr.totalBytes) : { merged: previewBytes, stderr: 0 };
  const withCopy = (outputId: string | undefined, recoveryReason?: string): RenderedCommandResult => {
    const preview = previewHeadTail(capture.copyBytes(), {
      budgetBytes: split.merged,
      kind: 'command',
      outputId,
      copyComplete: copy.complete,
      unavailableReason: recoveryReason,
      dropped: copy.dropped,
      droppedBytes: copy.droppedBytes,
      gapOffset: copy.gapOffset,
      lines: copy.lines,
      budgetLines: previewLines,
    });
    const run: RunCommandResult = {
      ...result,
      preview: preview.text,
      previewTruncated: preview.truncated,
      outputId,
      recovery: outputId ? 'retained' : 'unavailable',
      recoveryReason,
    };
    if (preview.omitted)
      run.previewFacts = { totalBytes: preview.totalBytes, omitted: preview.omitted, notable: preview.notable, marker: preview.marker };
    const status = failureStatus(result);
    const excerpt =
      split.stderr > 0
        ? stderrExcerpt(capture.stderrBytes(), split.stderr, { status, totalBytes: result.stderr.totalBytes, outputId }, previewLines)
        : '';
    if (excerpt) run.stderrExcerpt = excerpt;
    if (copy.dropped) run.droppedNotable = copy.dropped;
    // For listings of retained outputs; the shown head and tail are scanned, the omitted part's line is the preview's.
    const notable =
      outputId && firstNotableText(capture.copyBytes(), preview.omitted && { ...preview.omitted, first: preview.notable?.first });
    if (notable) run.firstNotable = notable;
    return rendered(run);
  };
  // No copy can be kept: one preview, which says so.
  if (!store) return withCopy(undefined, NO_STORE_REASON);
  // The id is made first, so the text that names it is recorded with the copy in one journal record.
  const hoped = withCopy(newOutputId());
  const { retained, unavailableReason } = await retainOrExplain(
    store,
    capture.copyBytes(),
    copyMeta(capture, hoped, hoped.outputId, previewBytes),
    // Not read again here: a copy that could not be kept is built again from the capture.
    { transfer: true },
  );
  return retained ? hoped : withCopy(undefined, unavailableReason);
}

/**
 * A cancelled command whose whole output is its preview is kept all the same, flagged cancelled, so
 * the person who stopped it finds it among the retained outputs. The model's text stays as it was
 * (the whole output, no outputId to read): only the result's `outputId` says a copy exists.
 */
async function keepCancelled(
  capture: CommandCapture,
  store: RecallStore | undefined,
  shown: RenderedCommandResult,
  previewBytes: number,
): Promise<RenderedCommandResult> {
  const outputId = newOutputId();
  const notable = firstNotableText(capture.copyBytes());
  const facts = notable ? { ...shown, firstNotable: notable } : shown;
  const { retained } = await retainOrExplain(store, capture.copyBytes(), copyMeta(capture, facts, outputId, previewBytes));
  return retained ? { ...facts, outputId } : shown;
}

/** What a copy is retained with: how the command ended, and the text the model got for it (`extra.preview`). */
function copyMeta(capture: CommandCapture, shown: RenderedCommandResult, outputId: string | undefined, previewBytes: number): RetainMeta {
  const { result, copy } = capture;
  return {
    outputId,
    tool: RUN_COMMAND_TOOL,
    title: result.command,
    complete: copy.complete,
    droppedBytes: copy.droppedBytes,
    gapOffset: copy.gapOffset,
    notable: copy.dropped,
    extra: {
      previewBytes,
      exitCode: result.exitCode,
      signal: result.signal,
      timedOut: result.timedOut,
      cancelled: result.cancelled,
      stdout: result.stdout,
      stderr: result.stderr,
      cwd: result.cwd,
      preview: shown.text,
      ...(shown.firstNotable ? { firstNotable: shown.firstNotable } : {}),
      // Where its marker is, so the inspector never reads the text back to find it.
      ...(shown.previewMarker && { previewMarker: shown.previewMarker }),
      // The inspector numbers lines from these, and never counts the copy again.
      lines: copy.lines,
    },
  };
}

/** How a failed command ended, in the words of the result's status line. */
function failureStatus(result: CommandResult): string {
  if (result.timedOut) return 'timed out';
  if (result.signal) return `killed by ${result.signal}`;
  return `exit code ${result.exitCode}`;
}

/** One log line about a finished command. */
export function describeCommandRun(result: RunCommandResult): string {
  return `${RUN_COMMAND_TOOL} ${JSON.stringify(clipEcho(result.command))}: exit ${result.exitCode ?? result.signal}, ${result.merged.totalBytes} bytes, ${result.outputId ?? result.recovery}`;
}

/** Characters of the command line the result's first line repeats; a longer one is clipped, and its length said. */
export const HEADER_COMMAND_CHARS = 100;

/**
 * The text the model gets, and where the preview's marker sits in it. A client may keep only part of
 * a large result (Copilot CLI: its first 500 characters; Codex: head and tail; others: the tail), so
 * when the preview is cut, the line right after the status line and the last line each say where the
 * whole output is, what the preview omitted, the exact read call and the notable lines omitted:
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
export function renderCommandResult(result: RunCommandResult): RenderedText {
  const status = result.cancelled
    ? 'cancelled (the process tree was stopped)'
    : result.timedOut
      ? 'timed out (the process tree was stopped)'
      : result.signal
        ? `killed by ${result.signal}`
        : `exit code ${result.exitCode}`;
  const stream = (name: string, s: CommandResult['stdout']) =>
    `${name}: ${s.totalBytes} bytes${s.complete ? '' : `, ${s.capturedBytes} kept, ${s.droppedBytes} dropped (complete: false)`}`;
  const kept = `The copy keeps ${result.merged.capturedBytes} of ${result.merged.totalBytes} output bytes (complete: ${result.merged.complete}).`;
  const guidance = `Check the copy before saying something is absent; do not re-run the command to see more.`;
  const retention =
    result.outputId && result.previewFacts
      ? retentionLines(
          result.previewFacts,
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
  lines.push(result.previewTruncated ? '--- output (head and tail; the marker shows what was omitted) ---' : '--- output ---');
  const previewAt = lines.reduce((at, line) => at + line.length + 1, 0);
  lines.push(result.preview);
  // A failure's cause is usually at the start of stderr, drowned by stdout in the merged preview.
  if (result.stderrExcerpt) lines.push(result.stderrExcerpt.replace(/\n$/, ''));
  const text = lines.join('\n');
  const previewMarker = markerAt(result.previewFacts, previewAt);
  return {
    text: retention ? `${text}${text.endsWith('\n') ? '' : '\n'}${retention.last}` : text,
    ...(previewMarker && { previewMarker }),
  };
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
