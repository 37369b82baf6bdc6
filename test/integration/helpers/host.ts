// Shared by the real-host suites: the extension's API, tool invocation through vscode.lm, the test
// workspace, process checks and an event-loop gap monitor. Nothing here asserts; the suites do.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ToolOutputRecallApi } from '../../../src/extension/api';
import { scaled } from '../../unit/helpers/timeScale';

// TEST_TIME_SCALE (scripts/test-all.mjs measures the machine; code-server's environment brings it here):
// scaled() stretches a deadline, skipBecause() skips and says why. See test/unit/helpers/mochaRun.ts.
export { scaled, skipBecause, TIME_SCALE } from '../../unit/helpers/mochaRun';

const pkg = require('../../../package.json') as { publisher: string; name: string };
export const EXTENSION_ID = `${pkg.publisher}.${pkg.name}`;

/** out_ followed by 24 hex digits (src/core/ids.ts). */
export const OUTPUT_ID = /out_[0-9a-f]{24}/;

/**
 * Activates the extension (if needed) and returns what activate() returned. The first call that
 * activates it records how long ext.activate() took (loading the bundle included): activateCallMs().
 */
export async function recallApi(): Promise<ToolOutputRecallApi> {
  const ext = vscode.extensions.getExtension<ToolOutputRecallApi>(EXTENSION_ID);
  assert.ok(ext, `${EXTENSION_ID} is not loaded`);
  const wasActive = ext.isActive;
  const started = performance.now();
  const api = await ext.activate();
  // Suites are separate bundles: share the first measurement through a global.
  if (!wasActive) (globalThis as { torActivateCallMs?: number }).torActivateCallMs ??= performance.now() - started;
  assert.ok(api, 'activate() returned no API (activation failed: see the "Tool Output Recall" log)');
  return api;
}

export function activateCallMs(): number | undefined {
  return (globalThis as { torActivateCallMs?: number }).torActivateCallMs;
}

export interface Invoked {
  result: vscode.LanguageModelToolResult;
  /** The text parts joined (tool results are split into parts of at most 8000 bytes). */
  text: string;
}

/**
 * As the Local harness calls a tool: with a token budget (Copilot Chat's, ample here), its counter one
 * per call (a run_code call's nested calls are known by it). A call with neither a chat's token nor a
 * budget is sized for the Copilot harness's 8 KiB cut (harness.ts): pass null for that.
 */
const localHarnessBudget = (): vscode.LanguageModelToolTokenizationOptions => ({
  tokenBudget: 100_000,
  countTokens: async (text) => Math.ceil((typeof text === 'string' ? text.length : 0) / 4),
});

export async function invoke(
  name: string,
  input: object,
  token?: vscode.CancellationToken,
  tokenizationOptions: vscode.LanguageModelToolTokenizationOptions | null = localHarnessBudget(),
): Promise<Invoked> {
  const result = await vscode.lm.invokeTool(
    name,
    { input, toolInvocationToken: undefined, tokenizationOptions: tokenizationOptions ?? undefined },
    token,
  );
  const text = result.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join('');
  return { result, text };
}

/** Invokes a tool that must fail; returns the error's message. */
export async function invokeError(name: string, input: object): Promise<string> {
  try {
    const { text } = await invoke(name, input);
    assert.fail(`${name} ${JSON.stringify(input)} should have failed, but returned:\n${text.slice(0, 500)}`);
  } catch (error) {
    if (error instanceof assert.AssertionError) throw error;
    return error instanceof Error ? error.message : String(error);
  }
}

/** The JSON object on the first line of a read_tool_output / search_tool_output / read_file_page result. */
export function firstLineJson<T = Record<string, unknown>>(text: string): T {
  return JSON.parse(text.slice(0, text.indexOf('\n') === -1 ? undefined : text.indexOf('\n'))) as T;
}

/** The outputId run_command names as its retained copy. */
export function commandOutputId(text: string): string {
  const m = /retained as outputId "(out_[0-9a-f]{24})"/.exec(text);
  assert.ok(m, `no retained outputId in the run_command result:\n${text.slice(0, 800)}`);
  return m[1];
}

export interface ReadPage {
  text: string;
  nextOffset: number;
  totalBytes: number;
  hasMore: boolean;
  complete: boolean;
}

export async function readPage(outputId: string, offset = 0, maxBytes?: number): Promise<ReadPage> {
  return firstLineJson<ReadPage>((await invoke('read_tool_output', { outputId, offset, ...(maxBytes ? { maxBytes } : {}) })).text);
}

export function workspaceDir(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'the tests need an open folder');
  return folder.uri.fsPath;
}

/** A fresh folder for a suite's files, outside the workspace (the runner's scratch dir, else tmp). */
export function scratchDir(name: string): string {
  return fs.mkdtempSync(path.join(process.env.TOR_TEST_SCRATCH ?? os.tmpdir(), `${name}-`));
}

/** Shell-quotes one argument. */
export const sh = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** Whether a process exists and is not a zombie (a container's pid 1 may never reap orphans). */
export function isAlive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/**
 * Polls `check` until it holds. The deadline is only there so that a condition that never comes fails
 * naming `what` (before mocha's timeout fails without saying what was awaited): `timeoutMs` is
 * generous for an idle machine and is stretched by TEST_TIME_SCALE. Under heavy load a panel took
 * more than the 5 s this once allowed to close.
 */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000, stepMs = 50): Promise<void> {
  const limitMs = scaled(timeoutMs);
  const end = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > end) assert.fail(`timed out after ${limitMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Nanoseconds this process's main thread has run on a CPU (Linux), or undefined elsewhere. */
function mainThreadCpuNs(): number | undefined {
  try {
    return Number(fs.readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return undefined;
  }
}

export interface GapReport {
  /** The longest gap between ticks beyond the 1 ms asked for: what a user of the host feels. */
  maxGapMs: number;
  /**
   * The most CPU time the host's main thread used within one gap: the part of a block that is the
   * host's own work (code, GC), not time it waited for a CPU on a busy machine. Undefined off Linux.
   */
  maxGapCpuMs: number | undefined;
  ticks: number;
  /** The three longest gaps: wall ms (CPU ms) at +ms from the start. */
  top: string;
}

/**
 * Measures how long the extension host's event loop is blocked: a 1 ms interval, and the longest
 * gaps between its ticks, with the main thread's CPU time in each (these machines are shared, so
 * wall-clock gaps include time spent waiting for a core).
 */
export function gapMonitor(): { stop(): GapReport } {
  const start = performance.now();
  let last = start;
  let lastCpu = mainThreadCpuNs();
  let ticks = 0;
  let maxGapCpuMs = lastCpu === undefined ? undefined : 0;
  const gaps: { ms: number; cpuMs?: number; at: number }[] = [];
  const tick = () => {
    const now = performance.now();
    const cpu = lastCpu === undefined ? undefined : mainThreadCpuNs();
    const ms = now - last - 1;
    const cpuMs = cpu === undefined || lastCpu === undefined ? undefined : (cpu - lastCpu) / 1e6;
    if (cpuMs !== undefined) maxGapCpuMs = Math.max(maxGapCpuMs ?? 0, cpuMs);
    if (ms > 10) gaps.push({ ms, cpuMs, at: now - start });
    last = now;
    lastCpu = cpu;
  };
  const timer = setInterval(() => {
    tick();
    ticks++;
  }, 1);
  return {
    stop() {
      clearInterval(timer);
      tick();
      gaps.sort((a, b) => b.ms - a.ms);
      const round = (n: number) => Math.round(n * 10) / 10;
      return {
        maxGapMs: round(Math.max(0, gaps[0]?.ms ?? 0)),
        maxGapCpuMs: maxGapCpuMs === undefined ? undefined : round(maxGapCpuMs),
        ticks,
        top:
          gaps
            .slice(0, 3)
            .map((g) => `${round(g.ms)} ms${g.cpuMs === undefined ? '' : ` (${round(g.cpuMs)} on CPU)`} at +${Math.round(g.at)} ms`)
            .join(', ') || 'none over 10 ms',
      };
    },
  };
}

/** A log channel for tools constructed directly in a test. */
let channel: vscode.LogOutputChannel | undefined;
export function testChannel(): vscode.LogOutputChannel {
  channel ??= vscode.window.createOutputChannel('Tool Output Recall (tests)', { log: true });
  return channel;
}
