/**
 * Runs a model-written JavaScript program in a separate, short-lived Node process, inside a fresh
 * vm context with nothing of Node in it (no require, process, file system, network or timers), with a
 * time limit and a heap limit. The program reaches the outside only through `tools.call(name, input)`,
 * which this module forwards to `onCall`.
 *
 * Why a child process and not a worker thread: V8 enforces a worker's `resourceLimits` only on the
 * usual allocation path. Some allocations (`JSON.stringify` of a large array, `Array.prototype.fill`
 * into a dictionary) hit "FATAL ERROR: ... heap out of memory" and abort the WHOLE process, which
 * for a worker is the extension host. A child process dies alone and we report it.
 *
 * The memory limit is V8's heap limit: a loop that keeps allocating is stopped, but one single
 * large allocation (e.g. a 256 MiB string) can pass it briefly. Binary buffers, which live outside
 * the heap, are removed from the program's globals for that reason.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as os from 'node:os';
import { CHILD_SOURCE } from './childSource';
import { RUN_CODE_TOOL } from '../toolNames';

export const DEFAULT_TIMEOUT_SECONDS = 60;
export const MAX_TIMEOUT_SECONDS = 600;
export const DEFAULT_MEMORY_MB = 64;
const DEFAULT_MAX_LOG_CHARS = 16 * 1024;
/** Keep the start of stderr: V8's "FATAL ERROR ... out of memory" line comes before the native stack. */
const STDERR_KEEP = 16 * 1024;
const WATCHDOG_GRACE_MS = 5000;
const SANDBOX_NICE = 10;

export interface SandboxOptions {
  /** The body of an async function: statements, `await`, and `return value`. */
  code: string;
  timeoutMs: number;
  /** Aborting stops the program at once. */
  signal?: AbortSignal;
  /** Heap limit of the sandbox (old generation), in MiB. */
  memoryMb?: number;
  /** console.* output kept, in characters. */
  maxLogChars?: number;
  /** Told the sandbox process id once it is started (for logs and tests). */
  onStart?: (pid: number) => void;
}

export type SandboxFailureKind = 'syntax' | 'thrown' | 'return' | 'timeout' | 'memory' | 'cancelled' | 'crashed' | 'isolation';

export type SandboxOutcome =
  { ok: true; kind: 'string' | 'json' | 'undefined'; value: string } | { ok: false; kind: SandboxFailureKind; message: string };

export interface SandboxRun {
  outcome: SandboxOutcome;
  logs: string;
  droppedLogLines: number;
  durationMs: number;
}

/** Answers one `tools.call`; a rejection becomes an Error the program can catch. */
export type ToolCallHandler = (name: string, inputJson: string) => Promise<string>;

export function runSandbox(options: SandboxOptions, onCall: ToolCallHandler): Promise<SandboxRun> {
  const { code, timeoutMs, signal } = options;
  const memoryMb = options.memoryMb ?? DEFAULT_MEMORY_MB;
  const maxLogChars = options.maxLogChars ?? DEFAULT_MAX_LOG_CHARS;
  // The program and its time limit were checked at the tool edge (run_code's schema and validate).

  const started = performance.now();
  let logs = '';
  let droppedLogLines = 0;
  const inflight = new Map<number, string>();
  const seconds = Math.round(timeoutMs / 100) / 10;

  return new Promise<SandboxRun>((resolve) => {
    let finished = false;
    let stderr = '';
    let child: ChildProcess | undefined;
    const finish = (outcome: SandboxOutcome): void => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      child?.kill('SIGKILL');
      resolve({ outcome, logs, droppedLogLines, durationMs: Math.round(performance.now() - started) });
    };
    const waitingFor = (): string => {
      const names = [...new Set(inflight.values())];
      return names.length ? ` It was still waiting for tools.call(${names.map((n) => JSON.stringify(n)).join(', ')}).` : '';
    };
    const onAbort = (): void =>
      finish({ ok: false, kind: 'cancelled', message: `${RUN_CODE_TOOL} was cancelled; the program was stopped.${waitingFor()}` });
    const timer = setTimeout(
      () =>
        finish({
          ok: false,
          kind: 'timeout',
          message: `${RUN_CODE_TOOL} stopped the program after ${seconds} s (time limit).${waitingFor()} Make the program shorter or raise timeoutSeconds (max ${MAX_TIMEOUT_SECONDS}).`,
        }),
      timeoutMs,
    );
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });

    try {
      child = spawn(
        process.execPath,
        [
          `--max-old-space-size=${memoryMb}`,
          `--max-semi-space-size=${Math.max(1, Math.min(16, Math.floor(memoryMb / 8)))}`,
          // Even the child's own realm may not compile strings: a leaked outer object is then no lever.
          '--disallow-code-generation-from-strings',
          // Lets import() reject with a context-realm error (see childSource.ts).
          '--experimental-vm-modules',
          // One GC thread, so a program near its heap limit does not take every core from the host.
          '--single-threaded-gc',
          '--no-warnings',
          '-e',
          CHILD_SOURCE,
        ],
        {
          // Nothing of ours reaches the child; ELECTRON_RUN_AS_NODE makes VS Code's binary act as node.
          env: sandboxEnv(),
          cwd: os.tmpdir(),
          stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
          windowsHide: true,
        },
      );
    } catch (error) {
      return finish({ ok: false, kind: 'crashed', message: `${RUN_CODE_TOOL} could not start its sandbox process (${String(error)}).` });
    }
    const proc = child;
    if (proc.pid !== undefined) {
      // Below the extension host, so a busy program yields the CPU to the editor.
      try {
        os.setPriority(proc.pid, SANDBOX_NICE);
      } catch {
        /* not permitted here: run at normal priority */
      }
      options.onStart?.(proc.pid);
    }
    proc.stderr?.setEncoding('utf8');
    proc.stderr?.on('data', (chunk: string) => {
      if (stderr.length < STDERR_KEEP) stderr += chunk.slice(0, STDERR_KEEP - stderr.length);
    });
    proc.on('error', (error) =>
      finish({ ok: false, kind: 'crashed', message: `${RUN_CODE_TOOL}'s sandbox process failed (${error.message}).` }),
    );
    proc.on('exit', (exitCode, exitSignal) => {
      if (finished) return;
      if (/heap out of memory|Allocation failed|invalid (array|table) size|Fatal JavaScript/i.test(stderr)) {
        finish({
          ok: false,
          kind: 'memory',
          message: `${RUN_CODE_TOOL} stopped the program: it exceeded the ${memoryMb} MiB memory limit. Keep less data at once (slice or filter tool results before storing them; avoid building huge strings or arrays) and return a smaller value.`,
        });
      } else {
        const tail = stderr.trim().split('\n').slice(-3).join(' | ').slice(0, 300);
        finish({
          ok: false,
          kind: 'crashed',
          message: `${RUN_CODE_TOOL}'s sandbox process ended unexpectedly (${exitSignal ?? `exit code ${exitCode}`})${tail ? `: ${tail}` : ''}.`,
        });
      }
    });
    proc.on('message', (message: unknown) => {
      if (finished || !message || typeof message !== 'object') return;
      const m = message as Record<string, unknown>;
      switch (m.t) {
        case 'log':
          if (typeof m.text === 'string' && logs.length < maxLogChars * 2) logs += m.text;
          return;
        case 'droppedLogs':
          droppedLogLines = typeof m.count === 'number' ? m.count : 0;
          return;
        case 'done':
          return finish({
            ok: true,
            kind: m.kind === 'json' || m.kind === 'undefined' ? m.kind : 'string',
            value: typeof m.value === 'string' ? m.value : '',
          });
        case 'error':
          return finish({
            ok: false,
            kind: failureKind(m.kind),
            message: failureMessage(m.kind, typeof m.message === 'string' ? m.message : ''),
          });
        case 'call': {
          const id = Number(m.id);
          const name = String(m.name);
          inflight.set(id, name);
          const reply = (ok: boolean, text: string): void => {
            inflight.delete(id);
            if (!finished && proc.connected)
              proc.send({ t: 'result', id, ok, text }, () => {
                /* if the child is gone, its exit is what gets reported */
              });
          };
          onCall(name, String(m.input)).then(
            (text) => reply(true, text),
            (error: unknown) => reply(false, error instanceof Error ? error.message : String(error)),
          );
          return;
        }
      }
    });
    // The child's own watchdog is a backstop for a parent that dies before it can kill the child.
    proc.send({ t: 'run', code, maxLogChars, watchdogMs: timeoutMs + WATCHDOG_GRACE_MS });
  });
}

function sandboxEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ELECTRON_RUN_AS_NODE: '1' };
  // Windows processes need SystemRoot to initialise (e.g. the random source); it holds no secret.
  if (process.platform === 'win32' && process.env.SystemRoot) env.SystemRoot = process.env.SystemRoot;
  return env;
}

function failureKind(kind: unknown): SandboxFailureKind {
  switch (kind) {
    case 'syntax':
    case 'thrown':
    case 'isolation':
      return kind;
    case 'return':
      return 'return';
    default:
      return 'crashed';
  }
}

function failureMessage(kind: unknown, message: string): string {
  switch (kind) {
    case 'syntax':
      return `${RUN_CODE_TOOL} could not compile the program: ${message}. The program is the body of an async function: write statements, use await tools.call(name, input), and end with return value.`;
    case 'thrown':
      return `The program threw ${message}. Fix the program, or catch the error inside it.`;
    default:
      return message;
  }
}
