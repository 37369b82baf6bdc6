/**
 * Bounded capture of a shell command: each stream and the merged copy are capped (head and tail
 * kept, the rest counted), the merged copy is retained in the session when it does not fit the
 * preview, and the preview names it. Memory stays bounded by the caps whatever the command prints.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { RecallError, describeError } from '../errors';
import { DEFAULT_LIMITS } from '../limits';
import { previewHeadTail } from '../preview';
import { retainOrExplain } from '../retention';
import type { NotableDigest, RecallStore } from '../types';
import { HeadTailBuffer, type CappedBytes } from './headTailBuffer';
import { killTree, signalGroup, spawnShell } from './processTree';
import { splitFailureBudget, stderrExcerpt } from './stderrExcerpt';
import { RUN_COMMAND_TOOL } from '../toolNames';

export interface RunCommandOptions {
  command: string;
  /** Working folder (default: the current process's). */
  cwd?: string;
  /** Extra environment variables, merged over the current environment. */
  env?: Record<string, string>;
  /** Stop the command (and everything it started) after this long. */
  timeoutMs?: number;
  /** Aborting stops the whole process tree. */
  signal?: AbortSignal;
}

export interface CaptureLimits {
  previewBytes: number;
  streamBytes: number;
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
}

/** After the shell exits, how long to wait for pipes still held open by its background children. */
const PIPE_DRAIN_MS = 1000;

export async function runCommand(
  options: RunCommandOptions,
  store: RecallStore | undefined,
  limits: Partial<CaptureLimits> = {},
): Promise<CommandResult> {
  const { command } = options;
  if (typeof command !== 'string' || command.trim().length === 0)
    throw new RecallError('INVALID_ARGUMENT', 'command must be a non-empty shell command line.');
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const stat = await fs.stat(cwd).catch(() => undefined);
  if (!stat?.isDirectory())
    throw new RecallError(
      'INVALID_ARGUMENT',
      `The working folder "${cwd}" does not exist or is not a folder. Pass an existing cwd, or omit it.`,
    );
  if (options.timeoutMs !== undefined && (!Number.isFinite(options.timeoutMs) || options.timeoutMs <= 0)) {
    throw new RecallError('INVALID_ARGUMENT', `timeoutMs must be a positive number; got ${options.timeoutMs}.`);
  }
  const previewBytes = limits.previewBytes ?? DEFAULT_LIMITS.previewBytes;
  const streamBytes = limits.streamBytes ?? DEFAULT_LIMITS.streamBytes;
  // The merged copy is what gets retained, so it must also fit the store's copy cap unchanged:
  // then the preview's offsets are the copy's offsets.
  const mergedCap = Math.min(streamBytes, store?.copyBytes ?? streamBytes);

  const started = Date.now();
  const captured = await capture(command, cwd, { ...process.env, ...options.env }, streamBytes, mergedCap, options);
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
  };

  const copy = captured.merged;
  const failed = captured.timedOut || captured.signal !== null || (captured.exitCode !== null && captured.exitCode !== 0);
  if (copy.complete && copy.bytes.length <= previewBytes) {
    const whole = copy.bytes.toString('utf8');
    // Invalid bytes decode to U+FFFD (3 bytes each): binary output can outgrow the preview budget.
    if (Buffer.byteLength(whole) <= previewBytes) return { ...base, preview: whole, previewTruncated: false, recovery: 'not-needed' };
  }
  const { retained, unavailableReason: recoveryReason } = await retainOrExplain(store, copy.bytes, {
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
    },
  });
  const outputId = retained?.outputId;
  const split = failed && !captured.cancelled ? splitFailureBudget(previewBytes, stderr.totalBytes) : { merged: previewBytes, stderr: 0 };
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
}

/** How a failed command ended, in the words of the result's status line. */
function failure(captured: Captured): string {
  if (captured.timedOut) return 'timed out';
  if (captured.signal) return `killed by ${captured.signal}`;
  return `exit code ${captured.exitCode}`;
}

type StreamCount = Pick<CappedBytes, 'totalBytes' | 'droppedBytes' | 'complete'>;

interface Captured {
  /** The streams are capped like the merged copy, but only counted: the merged copy is what is kept. */
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
  const out = new HeadTailBuffer(streamCap);
  const err = new HeadTailBuffer(streamCap);
  // What the copy drops past its cap is scanned on its way out, so the preview can still name it.
  const merged = new HeadTailBuffer(mergedCap, { notable: 'command' });
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
    const child = spawnShell(command, cwd, env);
    child.stdout!.on('data', (chunk: Buffer) => {
      out.write(chunk);
      merged.write(chunk);
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      err.write(chunk);
      merged.write(chunk);
    });

    const stop = (reason: 'timedOut' | 'cancelled') => {
      flags[reason] = true;
      killTree(child);
    };
    const timer = options.timeoutMs ? setTimeout(() => stop('timedOut'), options.timeoutMs) : undefined;
    const onAbort = () => stop('cancelled');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    let drainTimer: NodeJS.Timeout | undefined;

    const cleanup = () => {
      if (timer) clearTimeout(timer);
      if (drainTimer) clearTimeout(drainTimer);
      options.signal?.removeEventListener('abort', onAbort);
    };
    child.on('error', (error) => {
      cleanup();
      reject(new RecallError('COMMAND_FAILED', `The command could not be started (${describeError(error)}).`));
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

function report(bytes: StreamCount): StreamReport {
  return {
    totalBytes: bytes.totalBytes,
    capturedBytes: bytes.totalBytes - bytes.droppedBytes,
    droppedBytes: bytes.droppedBytes,
    complete: bytes.complete,
  };
}
