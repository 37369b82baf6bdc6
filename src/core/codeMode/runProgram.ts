/**
 * Code Mode's bridge: runs a program in the sandbox and answers its `tools.call`s. A nested result
 * larger than the preview threshold is retained BEFORE the program sees it, and its recovery record
 * is kept here, outside the program, so whatever the program slices away stays readable. The
 * program's return value gets the usual head+tail preview and is retained when larger.
 */
import { DEFAULT_LIMITS } from '../limits';
import { retainOrExplain } from '../retention';
import { previewHeadTail } from '../preview';
import type { PreviewFacts } from '../previewFacts';
import type { LineFacts, RecallStore } from '../types';
import { runSandbox, type SandboxFailureKind } from './sandbox';
import { RUN_CODE_TOOL } from '../toolNames';

export interface RunCodeOptions {
  code: string;
  timeoutMs: number;
  signal?: AbortSignal;
  memoryMb?: number;
}

/** A nested tool's result: the text the program gets, and the copies the call retained, as data. */
export interface NestedResult {
  text: string;
  /** The outputIds of the copies the tool retained (run_command's of its full output); absent when none. */
  outputIds?: readonly string[];
}

export interface RunCodeDeps {
  /** Runs a tool for the program; resolves to its result. `signal` aborts when the run ends. */
  callTool(name: string, input: Record<string, unknown>, signal: AbortSignal): Promise<NestedResult>;
  store: RecallStore | undefined;
  /** Threshold for retaining nested results, and the budget of the return value's preview. */
  previewBytes?: number;
  /** The lines the return value's preview may take (a client that cuts by lines); default: none. */
  previewLines?: number;
  /** Most tools.call a program may make. */
  maxCalls?: number;
}

/** A copy a nested call retained (run_command's of its full output), as the store knows it. */
export interface NestedOutputRef {
  outputId: string;
  /** Whether this session holds it readable; the facts below come from the store. */
  found: boolean;
  /** Held once, but evicted for the session quota. */
  evicted?: boolean;
  tool?: string;
  title?: string;
  totalBytes?: number;
  complete?: boolean;
}

export interface RecoveryRecord {
  /** 1-based order of the call in the program. */
  call: number;
  tool: string;
  /** The input as JSON, clipped. */
  input: string;
  /** UTF-8 bytes of the result text the program received. */
  bytes: number;
  /** 'retained': that text is kept under outputId; 'small': at or below the threshold, the program
   *  saw it whole and it was not kept (recorded only because the call retained copies of its own). */
  status: 'retained' | 'small' | 'unavailable';
  outputId?: string;
  totalBytes?: number;
  complete?: boolean;
  unavailableReason?: string;
  nestedOutputIds: NestedOutputRef[];
}

export interface CodeRunResult {
  /** What the model sees of the return value (whole, or head+tail with a marker). */
  valuePreview: string;
  valueKind: 'string' | 'json' | 'undefined' | 'none';
  valueBytes: number;
  valueTruncated: boolean;
  /** What a cut preview of the value omitted and listed, as data. */
  valueFacts?: PreviewFacts;
  /** The line facts of the value's copy, when it holds the value whole (recorded with it for the inspector). */
  valueLines?: LineFacts;
  valueOutputId?: string;
  valueUnavailableReason?: string;
  nested: RecoveryRecord[];
  calls: number;
  failedCalls: number;
  logs: string;
  droppedLogLines: number;
  durationMs: number;
  error?: { kind: SandboxFailureKind; message: string };
}

export const DEFAULT_MAX_CALLS = 64;

export async function runProgram(options: RunCodeOptions, deps: RunCodeDeps): Promise<CodeRunResult> {
  const previewBytes = deps.previewBytes ?? DEFAULT_LIMITS.previewBytes;
  const maxCalls = deps.maxCalls ?? DEFAULT_MAX_CALLS;
  const { store } = deps;
  const nested: RecoveryRecord[] = [];
  let calls = 0;
  let failedCalls = 0;
  // Aborted when the run ends for any reason, so nested tools still running are stopped too.
  const ended = new AbortController();

  const onCall = async (name: string, inputJson: string): Promise<string> => {
    const call = ++calls;
    try {
      if (name === RUN_CODE_TOOL)
        throw new Error(
          `${RUN_CODE_TOOL} cannot call ${RUN_CODE_TOOL}: a program may not start another program. Do the work in this program, or return and call ${RUN_CODE_TOOL} again.`,
        );
      if (call > maxCalls)
        throw new Error(
          `${RUN_CODE_TOOL} allows at most ${maxCalls} tools.call per program; this was call ${call}. Do the rest in another ${RUN_CODE_TOOL} call.`,
        );
      const input = parseInput(name, inputJson);
      const { text, outputIds = [] } = await deps.callTool(name, input, ended.signal);
      if (typeof text !== 'string') throw new Error(`${name} returned no text.`);
      const record = await recordResult(call, name, inputJson, text, outputIds);
      if (record) nested.push(record);
      return text; // only now, with the way back recorded, does the program get it
    } catch (error) {
      failedCalls++;
      throw error instanceof Error ? error : new Error(String(error));
    }
  };

  const recordResult = async (
    call: number,
    tool: string,
    inputJson: string,
    text: string,
    outputIds: readonly string[],
  ): Promise<RecoveryRecord | undefined> => {
    const bytes = Buffer.byteLength(text, 'utf8');
    const refs = await nestedRefs(store, outputIds);
    const base = { call, tool, input: clip(inputJson, 200), bytes, nestedOutputIds: refs };
    if (bytes <= previewBytes) return refs.length > 0 ? { ...base, status: 'small' } : undefined;
    const { retained: kept, unavailableReason } = await retainOrExplain(store, text, {
      tool,
      title: `${tool} ${clip(inputJson, 160)} (called from ${RUN_CODE_TOOL})`,
      extra: { via: RUN_CODE_TOOL, call },
    });
    return kept
      ? { ...base, status: 'retained', outputId: kept.outputId, totalBytes: kept.totalBytes, complete: kept.complete }
      : { ...base, status: 'unavailable', unavailableReason };
  };

  const run = await runSandbox(
    { code: options.code, timeoutMs: options.timeoutMs, signal: options.signal, memoryMb: options.memoryMb },
    onCall,
  ).finally(() => ended.abort());
  nested.sort((a, b) => a.call - b.call);
  const common = { nested, calls, failedCalls, logs: run.logs, droppedLogLines: run.droppedLogLines, durationMs: run.durationMs };
  if (!run.outcome.ok) {
    const message = run.outcome.message.replace(/\s*\n\s*/g, ' ');
    return {
      ...common,
      valuePreview: '',
      valueKind: 'none',
      valueBytes: 0,
      valueTruncated: false,
      error: { kind: run.outcome.kind, message },
    };
  }

  const { kind, value } = run.outcome;
  const valueBytes = Buffer.byteLength(value, 'utf8');
  const fitsLines = deps.previewLines === undefined || (value.match(/\n/g)?.length ?? 0) < deps.previewLines;
  if (valueBytes <= previewBytes && fitsLines)
    return { ...common, valuePreview: value, valueKind: kind, valueBytes, valueTruncated: false };
  const { retained: kept, unavailableReason: valueUnavailableReason } = await retainOrExplain(store, value, {
    tool: RUN_CODE_TOOL,
    title: `${RUN_CODE_TOOL} return value: ${clip(options.code.trim().split('\n')[0] ?? '', 100)}`,
    extra: { via: RUN_CODE_TOOL, kind },
  });
  const valueOutputId = kept?.outputId;
  const copyComplete = kept?.complete;
  const preview = previewHeadTail(value, {
    budgetBytes: previewBytes,
    budgetLines: deps.previewLines,
    kind: 'generic',
    outputId: valueOutputId,
    copyComplete,
    unavailableReason: valueUnavailableReason,
  });
  return {
    ...common,
    valuePreview: preview.text,
    valueKind: kind,
    valueBytes,
    valueTruncated: preview.truncated,
    ...(preview.omitted
      ? { valueFacts: { totalBytes: preview.totalBytes, omitted: preview.omitted, notable: preview.notable, marker: preview.marker } }
      : {}),
    ...(kept?.complete && kept.totalBytes === preview.totalBytes ? { valueLines: preview.lines } : {}),
    valueOutputId,
    valueUnavailableReason,
  };
}

function parseInput(name: string, inputJson: string): Record<string, unknown> {
  let input: unknown;
  try {
    input = JSON.parse(inputJson);
  } catch {
    throw new Error(`tools.call(${JSON.stringify(name)}, input): input is not valid JSON.`);
  }
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new Error(
      `tools.call(${JSON.stringify(name)}, input): input must be an object such as {"command": "ls"}; got ${clip(inputJson, 60)}.`,
    );
  }
  return input as Record<string, unknown>;
}

/** The copies a nested call retained, with what the store knows of each (so the model can tell them apart). */
async function nestedRefs(store: RecallStore | undefined, outputIds: readonly string[]): Promise<NestedOutputRef[]> {
  return Promise.all(
    outputIds.map(async (outputId): Promise<NestedOutputRef> => {
      if (!store) return { outputId, found: false };
      try {
        const info = await store.info(outputId);
        return {
          outputId,
          found: !info.evicted,
          evicted: info.evicted || undefined,
          tool: info.tool,
          title: info.title,
          totalBytes: info.totalBytes,
          complete: info.complete,
        };
      } catch {
        return { outputId, found: false };
      }
    }),
  );
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
