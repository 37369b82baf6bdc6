/**
 * What a tool is, for every front end: its name, whether it only reads or runs things (`effect`,
 * which drives MCP annotations and, in VS Code, the confirmation, the workspace-trust check and the
 * progress), what VS Code shows a person about a call, an optional check of the input beyond its
 * JSON Schema, and its run. The front ends build a `ToolContext` per call and go through
 * `invokeTool` (registry.ts); no tool is wired twice, and a tool's whole definition is its spec.
 */
import * as os from 'node:os';
import type { ReadPolicy } from '../files/readablePath';
import type { SpillRoots } from '../files/vscodeSpillFiles';
import type { RecallSettings } from '../settings';
import { OutputCatalog } from '../catalog/outputCatalog';
import type { RecallStore } from '../types';
import type { ProgressListener } from '../capture/progress';
import type { NestedResult } from '../codeMode/runProgram';

/** Where a front end logs (the VS Code log channel and the MCP server's stderr log both fit). */
export interface ToolLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/**
 * run_code's `tools.call`: resolves to the nested tool's text and the copies it retained, rejects with
 * the text of its failure. `ended` aborts when the program ends.
 */
export type NestedCall = (name: string, input: Record<string, unknown>, ended: AbortSignal) => Promise<NestedResult>;

export interface ToolContext {
  /**
   * The session store, opened on first use (a front end can list tools and answer before it is
   * open). A reading tool fails when it rejects; a running tool logs that and runs without it.
   */
  store: () => Promise<RecallStore>;
  settings: RecallSettings;
  /** The workspace folders on disk; relative paths and a command's `cwd` start from the first (the home folder without one). */
  folders: readonly string[];
  /**
   * Every session's outputs this front end can find (its own folder, the other agents'); without
   * one, the current session alone.
   */
  catalog?: OutputCatalog;
  /** Where VS Code writes oversized results, which the file tools read outside the workspace (the extension computes them; none over MCP). */
  spillRoots?: SpillRoots;
  /** Aborts when the call is cancelled (the model's request, the client, the server's shutdown). */
  signal: AbortSignal;
  log: ToolLog;
  /** The preview size for this call (a token budget, a client's result limit); default: the setting previewBytes. */
  previewBytes?: number;
  /** The lines each preview may take (a client that cuts results by lines); default: none. */
  previewLines?: number;
  /** run_code's nested calls; default: `invokeTool` on this registry (registry.ts `nestedCall`). */
  callTool?: NestedCall;
  /** Told the copies a run retained (VS Code refreshes its views; `invokeTool` hands them to a nested caller). */
  onRetained?: (outputIds: readonly string[]) => void;
  /** Told what a running command printed so far (bytes, a bounded tail), a few times a second: VS Code shows it in its tree. */
  onCommandProgress?: ProgressListener;
}

/** The context a spec runs with: invokeTool fills in the nested caller. */
export type RunContext = ToolContext & { callTool: NestedCall };

export type ToolEffect = 'reads' | 'runs';

/**
 * What VS Code asks before a running tool starts: a question, the code itself, and a note under it.
 * Person-facing, so its texts go through `l10n.t` of @vscode/l10n, which the extension configures
 * with VS Code's bundle at activation (the MCP server never shows these).
 */
export interface Confirmation {
  title: string;
  question: string;
  code: string;
  /** The code block's language (`sh`, `javascript`). */
  language: string;
  note: string;
}

/**
 * Describes a call for a person, from the input VS Code hands over (which is not schema-checked
 * yet: describe defensively) and the workspace folders on disk.
 */
type Describe<I, T> = (input: I, folders: readonly string[]) => T;

interface SpecBase<I, N extends string> {
  /** The tool's name, as package.json declares it (`contributes.languageModelTools`); test/unit/toolNames.test.ts keeps them equal. */
  name: N;
  /** The line VS Code shows while the call runs (person-facing: `l10n.t`). */
  invocation: Describe<I, string>;
  /**
   * Throws RecallError INVALID_ARGUMENT for what the input's JSON Schema cannot say (a blank program);
   * runs after the schema check and before anything starts: the one validation of a tool's input.
   */
  validate?: (input: I) => void;
  /** Does the work; resolves to the text the model gets (a failure rejects, and invokeTool renders it). */
  run: (input: I, context: RunContext) => Promise<string>;
}

/** A tool that only reads (retained copies, files): no confirmation, allowed in an untrusted workspace. */
export interface ReadingToolSpec<I, N extends string = string> extends SpecBase<I, N> {
  effect: 'reads';
}

/** A tool that runs something on the machine: the user confirms it, and it is refused in an untrusted workspace. */
export interface RunningToolSpec<I, N extends string = string> extends SpecBase<I, N> {
  effect: 'runs';
  /** What VS Code asks before the call starts. */
  confirmation: Describe<I, Confirmation>;
  /** The status bar line while it runs (a codicon and the command; not translated). */
  progress: Describe<I, string>;
  /** What the model can do without it, for the untrusted-workspace refusal ("running commands"). */
  without: string;
  /** Bytes of the result besides the preview (header, guidance), taken out of a token budget. */
  headerBytes: number;
}

export type ToolSpec<I, N extends string = string> = ReadingToolSpec<I, N> | RunningToolSpec<I, N>;

/** Which files the tools read: the context's folders and the user's settings. */
export function readPolicyOf(context: ToolContext): ReadPolicy {
  return {
    folders: [...context.folders],
    allowOutsideWorkspace: context.settings.allowOutsideWorkspace,
    sensitivePatterns: context.settings.sensitivePatterns,
    spillRoots: context.spillRoots,
  };
}

/** Where a relative `cwd` starts: the first workspace folder, like a terminal opened there (the home folder in an empty window). */
export function baseDirOf(folders: readonly string[]): string {
  return folders[0] ?? os.homedir();
}

/** The store, or undefined (logged) when it cannot open: a run still runs, and says its output was not retained. */
export async function storeOrNothing(context: ToolContext, tool: string): Promise<RecallStore | undefined> {
  return context.store().catch((error: unknown) => {
    context.log.error(`no session store for ${tool}: ${String(error)}`);
    return undefined;
  });
}

/** `text` cut to `max` characters with an ellipsis, for a one-line description of a call (a person reads it; no count). */
export function clipLine(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 3)}…` : text;
}

/** The context's catalog, or one of the current session alone. */
export function catalogOf(context: ToolContext): OutputCatalog {
  return context.catalog ?? new OutputCatalog({ folders: async () => [], current: context.store });
}
