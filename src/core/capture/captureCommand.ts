/**
 * Bounded capture of a shell command: each stream is counted and the merged copy (both streams in
 * arrival order) is capped, head and tail kept and the rest counted. Memory stays bounded by the
 * caps whatever the command prints. What the copy becomes (a preview, a retained copy) is the
 * caller's: the capture hands it the bytes and how the command ended.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { RecallError, clipEcho } from '../errors';
import { DEFAULT_LIMITS } from '../limits';
import type { LineFacts } from '../types';
import { commandEnv } from './commandEnv';
import type { CappedBytes } from '../bytes';
import { HeadTailBuffer, StreamCounter } from './headTailBuffer';
import { killTree, signalGroup, spawnShell, startError, type ShellTree } from './processTree';
import { StderrCopy } from './stderrCopy';
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
  /** Told the bytes so far and a bounded tail, a few times a second and when the streams close (progress.ts); only observes. */
  onProgress?: ProgressListener;
}

export interface CaptureLimits {
  streamBytes: number;
  /** The store's cap on a copy: the merged copy is capped at it too, so the store keeps it unchanged. */
  copyBytes: number;
  /** Most commands this process runs at once (COMMAND_GATE; 0: sized to the machine). */
  maxConcurrent: number;
}

export interface StreamReport {
  totalBytes: number;
  capturedBytes: number;
  droppedBytes: number;
  complete: boolean;
}

/** How a command ended, and what each stream and the merged copy held. */
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
  /** Set when the command waited for a slot before it started (durationMs counts from the start). */
  queued?: { waitedMs: number; reason: string };
}

/** A finished capture, valid while the caller's `use` runs (its memory is admitted by COMMAND_GATE until then). */
export interface CommandCapture {
  result: CommandResult;
  /** The merged copy's facts: its gap, its line breaks, the notable lines of what it dropped. */
  copy: Omit<CappedBytes, 'bytes'> & { lines: LineFacts };
  /**
   * The merged copy's bytes: head, gap marker and tail. Built once, and again only when the last
   * ones were transferred to a store worker (detached here), so a caller may hand them over.
   */
  copyBytes(): Buffer;
  /** stderr's captured bytes (head, gap marker and tail when capped), built when asked. */
  stderrBytes(): Buffer;
}

/** After the shell exits, how long to wait for pipes still held open by its background children. */
const PIPE_DRAIN_MS = 1000;

/**
 * Runs `options.command` with bounded capture and hands the capture to `use`; resolves to what
 * `use` does. Throws INVALID_ARGUMENT for a working folder that is not one, and for a command the
 * system refuses to start.
 */
export async function captureCommand<T>(
  options: RunCommandOptions,
  limits: Partial<CaptureLimits>,
  use: (capture: CommandCapture) => Promise<T> | T,
): Promise<T> {
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
  const streamBytes = limits.streamBytes ?? DEFAULT_LIMITS.streamBytes;
  const mergedCap = Math.min(streamBytes, limits.copyBytes ?? streamBytes);

  if (limits.maxConcurrent !== undefined) COMMAND_GATE.configure({ maxConcurrent: limits.maxConcurrent });
  // stderr's own sink, stdout's count (a bit per tail byte), the merged sink and the finished copy built from it.
  const admission = await COMMAND_GATE.enter(streamBytes + Math.ceil(streamBytes / 16) + 2 * mergedCap, options.signal, options.onQueued);
  try {
    const queued = admission.waitedFor ? { waitedMs: admission.waitedMs, reason: admission.waitedFor } : undefined;
    const started = Date.now();
    // Never the running process's own secrets (the MCP server's token): see SERVER_ONLY_ENV.
    const captured = await capture(command, cwd, commandEnv(process.env, options.env), streamBytes, mergedCap, options);
    const { bytes, ...copy } = captured.merged.finish();
    const size = bytes.length;
    let built = bytes;
    const result: CommandResult = {
      command,
      cwd,
      exitCode: captured.exitCode,
      signal: captured.signal,
      timedOut: captured.timedOut,
      cancelled: captured.cancelled,
      durationMs: Date.now() - started,
      stdout: report(captured.stdout),
      stderr: report(captured.stderr),
      merged: report(copy),
      ...(queued ? { queued } : {}),
    };
    return await use({
      result,
      copy: { ...copy, lines: copy.lines! },
      copyBytes: () => (built.length === size ? built : (built = captured.merged.finish().bytes)),
      stderrBytes: () => captured.err.bytes(),
    });
  } finally {
    admission.release();
  }
}

type StreamCount = Pick<CappedBytes, 'totalBytes' | 'droppedBytes' | 'complete'>;

interface Captured {
  /** stdout is only counted, capped like the merged copy: the merged copy is what is kept. */
  stdout: StreamCount;
  stderr: StreamCount;
  /** stderr's bytes, and the merged sink, finished by the caller (its bytes can be built again). */
  err: StderrCopy;
  merged: HeadTailBuffer;
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
  // What the copy drops past its cap is scanned on its way out, so a preview can still name it;
  // its line breaks are counted as they arrive, so a preview need not count them again.
  const merged = new HeadTailBuffer(mergedCap, { notable: 'command', lines: true });
  // stderr's bytes, for the excerpt a failed command shows beside its preview: in the merged copy while it keeps them.
  const err = new StderrCopy(streamCap, merged);
  const progress = options.onProgress ? new ProgressTracker(options.onProgress) : undefined;
  const finish = (exitCode: number | null, signal: NodeJS.Signals | null, flags: { timedOut: boolean; cancelled: boolean }): Captured => ({
    stdout: out.summary(),
    stderr: err.summary(),
    err,
    merged,
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
      err.beforeMerged(chunk.length);
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

function report(bytes: StreamCount): StreamReport {
  return {
    totalBytes: bytes.totalBytes,
    capturedBytes: bytes.totalBytes - bytes.droppedBytes,
    droppedBytes: bytes.droppedBytes,
    complete: bytes.complete,
  };
}
