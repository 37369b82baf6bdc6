/**
 * Every tool of the registry (src/core/tools/registry.ts) as a VS Code language-model tool, through
 * this one adapter: the spec's effect decides the confirmation, the workspace-trust refusal, the
 * token-budgeted preview size and the progress; the run is `invokeTool`, the same as over MCP; run_code's
 * nested calls go through vscode.lm.invokeTool, so each asks for its own confirmation and lands
 * here, in `invokeTool` (schema check included), again.
 */
import { VSCODE_COPILOT_HARNESS, fromAgentHost } from '../../core/agents/harness';
import * as vscode from 'vscode';
import { RecallError } from '../../core/errors';
import type { RecallSettings } from '../../core/settings';
import { RUN_CODE_TOOL, RUN_COMMAND_TOOL } from '../../core/toolNames';
import { estimateChars } from '../../core/history/estimate';
import { invokeTool, isToolName, nestedToolNames, toolSpec, type ToolInput, type ToolName } from '../../core/tools/registry';
import { toolErrorText, unknownToolText } from '../../core/tools/parts';
import type { OutputCatalog } from '../../core/catalog/outputCatalog';
import type { Confirmation, NestedCall, ToolContext } from '../../core/tools/toolSpec';
import type { RecallStore } from '../../core/types';
import type { SpillRoots } from '../../core/files/vscodeSpillFiles';
import { bytesForTokenBudget, textResult } from './toolResult';
import { RUNNING_COMMANDS, type RunningCommands } from '../running/runningCommands';

/**
 * The preview's size for one call: what the model's token budget leaves (Local harness), and at most
 * what VS Code's Copilot harness keeps of a result (8 KiB; harness.ts) for a call that may come from it.
 */
function previewBytesOf(options: vscode.LanguageModelToolInvocationOptions<object>, configured: number, headerBytes: number): number {
  const bytes = bytesForTokenBudget(options.tokenizationOptions?.tokenBudget, configured, headerBytes);
  return fromAgentHost(options.toolInvocationToken, options.tokenizationOptions?.tokenBudget)
    ? Math.min(bytes, VSCODE_COPILOT_HARNESS.previewBytes)
    : bytes;
}

type InvocationToken = vscode.LanguageModelToolInvocationOptions<object>['toolInvocationToken'];

/** Runs a language-model tool for a program and gives back its result as text. */
export type ToolInvoker = (
  name: string,
  input: object,
  toolInvocationToken: InvocationToken,
  token: vscode.CancellationToken,
  tokenizationOptions?: vscode.LanguageModelToolTokenizationOptions,
) => Promise<string>;

/**
 * How a program's nested call to one of these tools hears which copies the run retained, keyed by the
 * call's `countTokens`. A tool result crosses vscode.lm.invokeTool as text alone (the stable API has
 * no other part), but VS Code hands a tool registered in the caller's own extension host the very
 * `countTokens` function its caller passed: the one object of the call both ends hold. Where it does
 * not, the call reports no copies: the recovery section then lists the result text's own copy, and
 * the text still names the tool's.
 */
const NESTED_CALLS = new WeakMap<object, (outputIds: readonly string[]) => void>();

export interface RecallToolDeps {
  store: () => Promise<RecallStore>;
  /** Every session's outputs in this workspace (this window's, earlier ones, the agents'): listing and searching across them. */
  catalog?: OutputCatalog;
  settings: () => RecallSettings;
  /** Workspace trust, injectable so the refusal can be tested in a trusted test host. */
  isTrusted: () => boolean;
  onRetained: () => void;
  log: vscode.LogOutputChannel;
  /** Where VS Code writes oversized results in this window (spillRoots.ts): read outside the workspace. */
  spillRoots?: SpillRoots;
  /** run_code's nested calls; defaults to `invokeToolText` (vscode.lm.invokeTool), injectable for tests. */
  invokeTool?: ToolInvoker;
  /** Where a run_command call shows while it runs (the Retained Outputs tree, with Cancel); default: this window's RUNNING_COMMANDS. */
  running?: RunningCommands;
}

export class RecallTool<N extends ToolName> implements vscode.LanguageModelTool<ToolInput<N>> {
  constructor(
    readonly name: N,
    private readonly deps: RecallToolDeps,
  ) {}

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<ToolInput<N>>): vscode.PreparedToolInvocation {
    const spec = toolSpec(this.name);
    const folders = workspaceFolders();
    const invocationMessage = spec.invocation(options.input, folders);
    // Only a running tool asks first (its spec must say how: RunningToolSpec requires the confirmation).
    return spec.effect === 'runs'
      ? { invocationMessage, confirmationMessages: confirmationMessages(spec.confirmation(options.input, folders)) }
      : { invocationMessage };
  }

  async invoke(
    options: vscode.LanguageModelToolInvocationOptions<ToolInput<N>>,
    token: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelToolResult> {
    const spec = toolSpec(this.name);
    const abort = new AbortController();
    const subscription = token.onCancellationRequested(() => abort.abort());
    let running: ReturnType<RunningCommands['start']> | undefined;
    let retained: string | undefined;
    try {
      if (spec.effect === 'runs' && !this.deps.isTrusted()) {
        throw new Error(
          toolErrorText(
            this.name,
            new RecallError(
              'REFUSED',
              `${this.name} does not run in an untrusted workspace. Ask the user to trust this workspace (command "Workspaces: Manage Workspace Trust") or complete the task without ${spec.without}.`,
            ),
          ),
        );
      }
      const settings = this.deps.settings();
      // Shown in the tree while it runs; its Cancel aborts the same signal as the request's cancellation.
      const command = (options.input as { command?: unknown }).command;
      if (this.name === RUN_COMMAND_TOOL && typeof command === 'string')
        running = (this.deps.running ?? RUNNING_COMMANDS).start(command, abort);
      const context: ToolContext = {
        store: this.deps.store,
        catalog: this.deps.catalog,
        settings,
        folders: workspaceFolders(),
        spillRoots: this.deps.spillRoots,
        signal: abort.signal,
        log: this.deps.log,
        previewBytes: spec.effect === 'runs' ? previewBytesOf(options, settings.previewBytes, spec.headerBytes) : undefined,
        callTool: this.nestedCall(options.toolInvocationToken, token),
        onRetained: this.deps.onRetained,
        onCommandProgress: running?.progress,
      };
      const work = () => invokeTool(this.name, options.input, context);
      const run =
        spec.effect === 'runs'
          ? await vscode.window.withProgress(
              {
                location: vscode.ProgressLocation.Window,
                title: spec.progress(options.input, context.folders),
              },
              work,
            )
          : await work();
      retained = run.outputIds?.[0];
      // Errors go back to the model as thrown errors with the text it reads; a cancellation stays a cancellation.
      if (run.isError) throw token.isCancellationRequested ? new vscode.CancellationError() : new Error(run.text);
      // eslint-disable-next-line @typescript-eslint/unbound-method -- never called: its identity names the nested call
      const nested = options.tokenizationOptions && NESTED_CALLS.get(options.tokenizationOptions.countTokens);
      if (nested && run.outputIds) nested(run.outputIds);
      return textResult(run.text);
    } finally {
      // The running item's document then names the copy (Open in Inspector).
      running?.end(retained);
      subscription.dispose();
    }
  }

  /**
   * A program's `tools.call`: stops when the model's request is cancelled or when the program ends.
   * A call to one of these tools gets the copies its run retained (`NESTED_CALLS`); another
   * extension's tool is called as before, without tokenization options.
   */
  private nestedCall(toolInvocationToken: InvocationToken, token: vscode.CancellationToken): NestedCall {
    const invoker = this.deps.invokeTool ?? invokeToolText;
    return async (name, input, ended) => {
      const source = new vscode.CancellationTokenSource();
      const cancel = () => source.cancel();
      const linked = token.onCancellationRequested(cancel);
      ended.addEventListener('abort', cancel, { once: true });
      const outputIds: string[] = [];
      // A real estimate, should anything count with it; the nested run finds this call by its identity.
      const countTokens = async (text: string) => estimateChars(text, 'toolResult');
      const ours = isToolName(name);
      if (ours) NESTED_CALLS.set(countTokens, (retained) => outputIds.push(...retained));
      // No budget of its own: bytesForTokenBudget gives the setting's preview size, as a nested run gets over MCP.
      const tokenization = ours ? { tokenBudget: Number.MAX_SAFE_INTEGER, countTokens } : undefined;
      try {
        const text = await invoker(name, input, toolInvocationToken, source.token, tokenization);
        return { text, outputIds };
      } finally {
        ended.removeEventListener('abort', cancel);
        linked.dispose();
        source.dispose();
      }
    };
  }
}

/** The workspace folders on disk (where files may be read and commands start). */
function workspaceFolders(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
}

function confirmationMessages({
  title,
  question,
  code,
  language,
  note,
}: Confirmation): vscode.PreparedToolInvocation['confirmationMessages'] {
  // The code block comes last. Invoked outside a chat (vscode.lm.invokeTool without a chat's token),
  // VS Code asks in a dialog showing this message as plain text, where a code block ends without a
  // line break: a note after it ran on into the command ("sh build-log.shin /home/me/app").
  const message = new vscode.MarkdownString();
  message.appendMarkdown(`${question}\n\n${note}\n\n`);
  message.appendCodeblock(code, language);
  return { title, message };
}

/**
 * Invokes a language-model tool and joins its text parts (tool results are split into ≤ 8 KiB
 * parts, so joining restores the text). Parts that are not text cannot reach the program; a marker
 * says so instead of dropping them silently. A failure rejects with the text the model would read.
 */
export async function invokeToolText(
  name: string,
  input: object,
  toolInvocationToken: InvocationToken,
  token: vscode.CancellationToken,
  tokenizationOptions?: vscode.LanguageModelToolTokenizationOptions,
): Promise<string> {
  const available = nestedToolNames(vscode.lm.tools.map((tool) => tool.name));
  if (!vscode.lm.tools.some((tool) => tool.name === name)) throw new Error(unknownToolText(name, available));
  const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken, tokenizationOptions }, token);
  return result.content
    .map((part) =>
      part instanceof vscode.LanguageModelTextPart
        ? part.value
        : `[${name} returned a non-text part that ${RUN_CODE_TOOL} cannot pass to the program]`,
    )
    .join('');
}
