/**
 * Bounded capture of a shell command: each stream and the merged copy are capped (head and tail
 * kept, the rest counted), the merged copy is retained in the session when it does not fit the
 * preview, and the preview names it. Memory stays bounded by the caps whatever the command prints.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { RecallError, clipEcho, describeError } from '../errors';
import { DEFAULT_LIMITS } from '../limits';
import { previewHeadTail } from '../preview';
import { NO_STORE_REASON, retainOrExplain } from '../retention';
import { newOutputId } from '../ids';
import type { NotableDigest, RecallStore } from '../types';
import { commandEnv } from './commandEnv';
import { HeadTailBuffer, StreamCounter, type CappedBytes } from './headTailBuffer';
import { killTree, signalGroup, spawnShell, type ShellTree } from './processTree';
import { splitFailureBudget, stderrExcerpt } from './stderrExcerpt';
import { RUN_COMMAND_TOOL } from '../toolNames';
import { COMMAND_GATE } from './workGate';
import { ProgressTracker, type ProgressListener } from './progress';

export interface RunCommandOptions {
  command: string;
  /** Working folder (default: the current process's). */
  cwd?: string;
  /** Extra environment variables, merged over the current environment (less its SERVER_ONLY_ENV, see commandEnv). */
  env?: Record<string, string>;
  /** Stop the command (and everything it started) after this long. */
  timeoutMs?: number;
  /** Aborting stops the whole process tree (or, while it waits for a slot, starts nothing). */
  signal?: AbortSignal;
  /** Told why, when the command has to wait for a slot before it starts (for a log). */
  onQueued?: (reason: string) => void;
  /**
   * The text a model will get for the result, recorded with the retained copy as its preview
   * (`extra.preview`) in the copy's one journal record, and returned as the result's `text`. Called
   * once per result: again only when the copy its first text names cannot be kept (the result then
   * says so instead, and nothing is recorded).
   */
  render?: (result: CommandResult) => string;
  /**
   * Told, at most a few times a second, the bytes so far and a bounded tail of the merged output, and
   * once more (`done`) when the streams close (progress.ts). It only observes: the result is the same.
   */
  onProgress?: ProgressListener;
}

export interface CaptureLimits {
  previewBytes: number;
  streamBytes: number;
  /** Most commands this process runs at once (COMMAND_GATE; 0: sized to the machine). */
  maxConcurrent: number;
}

export interface StreamReport {
  totalBytes: number;
  capturedBytes: number;
  droppedBytes: number;
  complete: boolean;
}

export interface CommandResult {
  command: string;
  cwd: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
  stdout: StreamReport;
  stderr: StreamReport;
  /** The merged copy (stdout and stderr in arrival order). */
  merged: StreamReport;
  /** What the model sees: the merged output, or its head+tail with an omission marker. */
  preview: string;
  previewTruncated: boolean;
  /** The retained merged copy, when the output did not fit the preview and saving worked. */
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
  /** Set when the command waited for a slot before it started (durationMs counts from the start). */
  queued?: { waitedMs: number; reason: string };
}

/** After the shell exits, how long to wait for pipes still held open by its background children. */
const PIPE_DRAIN_MS = 1000;

/** A result and the text `options.render` made of it. */
export type RenderedCommandResult = CommandResult & { text: string };

export function captureCommand(
  options: RunCommandOptions & { render: NonNullable<RunCommandOptions['render']> },
  store: RecallStore | undefined,
  limits?: Partial<CaptureLimits>,
): Promise<RenderedCommandResult>;
export function captureCommand(
  options: RunCommandOptions,
  store: RecallStore | undefined,
  limits?: Partial<CaptureLimits>,
): Promise<CommandResult>;
export async function captureCommand(
  options: RunCommandOptions,
  store: RecallStore | undefined,
  limits: Partial<CaptureLimits> = {},
): Promise<CommandResult> {
  // The command and its time limit were checked at the tool edge (run_command's schema and validate);
  // the working folder is checked here, when the command is about to start in it.
  const { command } = options;
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const stat = await fs.stat(cwd).catch(() => undefined);
  if (!stat?.isDirectory())
    throw new RecallError(
      'INVALID_ARGUMENT',
      `The working folder "${clipEcho(cwd)}" does not exist or is not a folder. Pass an existing cwd, or omit it.`,
    );
  const previewBytes = limits.previewBytes ?? DEFAULT_LIMITS.previewBytes;
  const streamBytes = limits.streamBytes ?? DEFAULT_LIMITS.streamBytes;
  // The merged copy is what gets retained, so it must also fit the store's copy cap unchanged:
  // then the preview's offsets are the copy's offsets.
  const mergedCap = Math.min(streamBytes, store?.copyBytes ?? streamBytes);

  if (limits.maxConcurrent !== undefined) COMMAND_GATE.configure({ maxConcurrent: limits.maxConcurrent });
  // stderr's sink, stdout's count (a bit per tail byte), the merged sink and the finished copy built from it.
  const admission = await COMMAND_GATE.enter(streamBytes + Math.ceil(streamBytes / 16) + 2 * mergedCap, options.signal, options.onQueued);
  try {
    const queued = admission.waitedFor ? { waitedMs: admission.waitedMs, reason: admission.waitedFor } : undefined;
    return await captureAndPreview(command, cwd, options, store, { previewBytes, streamBytes, mergedCap, queued });
  } finally {
    admission.release();
  }
}

/** Runs the admitted command and builds its result: the preview, and the retained copy when it is needed. */
async function captureAndPreview(
  command: string,
  cwd: string,
  options: RunCommandOptions,
  store: RecallStore | undefined,
  {
    previewBytes,
    streamBytes,
    mergedCap,
    queued,
  }: { previewBytes: number; streamBytes: number; mergedCap: number; queued: CommandResult['queued'] },
): Promise<CommandResult> {
  const started = Date.now();
  // Never the running process's own secrets (the MCP server's token): see SERVER_ONLY_ENV.
  const captured = await capture(command, cwd, commandEnv(process.env, options.env), streamBytes, mergedCap, options);
  const stdout = report(captured.stdout);
  const stderr = report(captured.stderr);
  const merged = report(captured.merged);
  const base = {
    command,
    cwd,
    exitCode: captured.exitCode,
    signal: captured.signal,
    timedOut: captured.timedOut,
    cancelled: captured.cancelled,
    durationMs: Date.now() - started,
    stdout,
    stderr,
    merged,
    ...(queued ? { queued } : {}),
  };

  const copy = captured.merged;
  const rendered = (result: CommandResult, text = options.render?.(result)): CommandResult | RenderedCommandResult =>
    text === undefined ? result : { ...result, text };
  const failed = captured.timedOut || captured.signal !== null || (captured.exitCode !== null && captured.exitCode !== 0);
  if (copy.complete && copy.bytes.length <= previewBytes) {
    const whole = copy.bytes.toString('utf8');
    // Invalid bytes decode to U+FFFD (3 bytes each): binary output can outgrow the preview budget.
    if (Buffer.byteLength(whole) <= previewBytes)
      return rendered({ ...base, preview: whole, previewTruncated: false, recovery: 'not-needed' });
  }
  const split = failed && !captured.cancelled ? splitFailureBudget(previewBytes, stderr.totalBytes) : { merged: previewBytes, stderr: 0 };
  const withCopy = (outputId: string | undefined, recoveryReason?: string): CommandResult => {
    const preview = previewHeadTail(copy.bytes, {
      budgetBytes: split.merged,
      kind: 'command',
      outputId,
      copyComplete: copy.complete,
      unavailableReason: recoveryReason,
      dropped: copy.dropped,
      droppedBytes: copy.droppedBytes,
      gapOffset: copy.gapOffset,
    });
    const excerpt =
      split.stderr > 0
        ? stderrExcerpt(captured.stderrBytes(), split.stderr, { status: failure(captured), totalBytes: stderr.totalBytes, outputId })
        : '';
    const result: CommandResult = {
      ...base,
      preview: preview.text,
      previewTruncated: preview.truncated,
      outputId,
      recovery: outputId ? 'retained' : 'unavailable',
      recoveryReason,
    };
    if (excerpt) result.stderrExcerpt = excerpt;
    if (copy.dropped) result.droppedNotable = copy.dropped;
    return result;
  };
  // No copy can be kept: one preview, which says so.
  if (!store) return rendered(withCopy(undefined, NO_STORE_REASON));
  // The id is made first, so the text that names it is recorded with the copy in one journal record.
  const outputId = newOutputId();
  const hoped = withCopy(outputId);
  const text = options.render?.(hoped);
  const { retained, unavailableReason } = await retainOrExplain(store, copy.bytes, {
    outputId,
    tool: RUN_COMMAND_TOOL,
    title: command,
    complete: copy.complete,
    droppedBytes: copy.droppedBytes,
    gapOffset: copy.gapOffset,
    notable: copy.dropped,
    extra: {
      previewBytes,
      exitCode: captured.exitCode,
      signal: captured.signal,
      timedOut: captured.timedOut,
      cancelled: captured.cancelled,
      stdout,
      stderr,
      cwd,
      ...(text === undefined ? {} : { preview: text }),
    },
  });
  return retained ? rendered(hoped, text) : rendered(withCopy(undefined, unavailableReason));
}

/** How a failed command ended, in the words of the result's status line. */
function failure(captured: Captured): string {
  if (captured.timedOut) return 'timed out';
  if (captured.signal) return `killed by ${captured.signal}`;
  return `exit code ${captured.exitCode}`;
}

type StreamCount = Pick<CappedBytes, 'totalBytes' | 'droppedBytes' | 'complete'>;

interface Captured {
  /** The streams are capped like the merged copy, but only counted: the merged copy is what is kept. stdout's bytes are not held. */
  stdout: StreamCount;
  stderr: StreamCount;
  /** stderr's captured bytes (head, gap marker and tail when capped), built only when asked for. */
  stderrBytes: () => Buffer;
  merged: CappedBytes;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  cancelled: boolean;
}

function capture(
  command: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  streamCap: number,
  mergedCap: number,
  options: RunCommandOptions,
): Promise<Captured> {
  const out = new StreamCounter(streamCap);
  // stderr's bytes are held for the excerpt a failed command shows beside its preview.
  const err = new HeadTailBuffer(streamCap);
  // What the copy drops past its cap is scanned on its way out, so the preview can still name it.
  const merged = new HeadTailBuffer(mergedCap, { notable: 'command' });
  const progress = options.onProgress ? new ProgressTracker(options.onProgress) : undefined;
  const finish = (exitCode: number | null, signal: NodeJS.Signals | null, flags: { timedOut: boolean; cancelled: boolean }): Captured => ({
    stdout: out.summary(),
    stderr: err.summary(),
    stderrBytes: () => err.finish().bytes,
    merged: merged.finish(),
    exitCode,
    signal,
    ...flags,
  });
  if (options.signal?.aborted) return Promise.resolve(finish(null, null, { timedOut: false, cancelled: true }));

  return new Promise<Captured>((resolve, reject) => {
    const flags = { timedOut: false, cancelled: false };
    let tree: ShellTree;
    try {
      tree = spawnShell(command, cwd, env);
    } catch (error) {
      // Node throws at once for what the system refuses outright (E2BIG, a NUL in the environment).
      return reject(startError(command, error));
    }
    const { child } = tree;
    child.stdout!.on('data', (chunk: Buffer) => {
      out.write(chunk);
      merged.write(chunk);
      progress?.write('stdout', chunk);
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      err.write(chunk);
      merged.write(chunk);
      progress?.write('stderr', chunk);
    });

    const stop = (reason: 'timedOut' | 'cancelled') => {
      flags[reason] = true;
      killTree(tree);
    };
    const timer = options.timeoutMs ? setTimeout(() => stop('timedOut'), options.timeoutMs) : undefined;
    const onAbort = () => stop('cancelled');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    let drainTimer: NodeJS.Timeout | undefined;

    const cleanup = () => {
      progress?.finish();
      if (timer) clearTimeout(timer);
      if (drainTimer) clearTimeout(drainTimer);
      options.signal?.removeEventListener('abort', onAbort);
    };
    child.on('error', (error) => {
      cleanup();
      reject(startError(command, error));
    });
    // Background children may keep the pipes open after the shell exits: give them a moment, then
    // stop reading (and stop them) so the result does not wait forever.
    child.on('exit', () => {
      drainTimer = setTimeout(() => {
        if (child.pid !== undefined && process.platform !== 'win32') signalGroup(child.pid, 'SIGKILL');
        child.stdout?.destroy();
        child.stderr?.destroy();
      }, PIPE_DRAIN_MS);
    });
    child.on('close', (code, signal) => {
      cleanup();
      resolve(finish(code, signal, flags));
    });
  });
}

/** Why a command could not start, as the error the model reads. */
function startError(command: string, error: unknown): RecallError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'E2BIG') {
    return new RecallError(
      'INVALID_ARGUMENT',
      `The command is ${Buffer.byteLength(command)} bytes: with the environment, more than the system passes to a new process (E2BIG). Write the long part to a file (a script or a data file) and run or read that.`,
    );
  }
  if (code === 'ERR_INVALID_ARG_VALUE' || code === 'ERR_INVALID_ARG_TYPE') {
    return new RecallError('INVALID_ARGUMENT', `The command could not be started: ${describeError(error)}. Remove the NUL character.`);
  }
  return new RecallError('COMMAND_FAILED', `The command could not be started (${describeError(error)}).`);
}

function report(bytes: StreamCount): StreamReport {
  return {
    totalBytes: bytes.totalBytes,
    capturedBytes: bytes.totalBytes - bytes.droppedBytes,
    droppedBytes: bytes.droppedBytes,
    complete: bytes.complete,
  };
}
