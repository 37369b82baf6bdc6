import * as vscode from 'vscode';
import { RecallError } from '../../core/errors';
import type { RecallStore } from '../../core/types';
import type { RecallSettings } from '../config';
import { bytesForTokenBudget, textResult, toolError } from './toolResult';

/** What the tools that act on the machine (run_command, run_code) take from the extension. */
export interface SideEffectDeps {
  store: () => Promise<RecallStore>;
  settings: () => RecallSettings;
  /** Workspace trust, injectable so the refusal can be tested in a trusted test host. */
  isTrusted: () => boolean;
  onRetained: () => void;
  log: vscode.LogOutputChannel;
}

/** What a run gets once it may start. */
export interface SideEffectContext {
  /** Undefined when the session store cannot open: the tool still runs, and says its output was not retained. */
  store: RecallStore | undefined;
  settings: RecallSettings;
  /** Aborts when the model's request is cancelled. */
  signal: AbortSignal;
  /** The preview size that fits the call's token budget. */
  previewBytes: number;
}

export interface SideEffectRun {
  /** What the model can do without the tool, for the untrusted-workspace refusal ("running commands"). */
  without: string;
  /** Throws RecallError INVALID_ARGUMENT for a bad input; runs after the trust check and before anything starts. */
  validate: () => void;
  /** Bytes of the result besides the preview (header, guidance), taken out of the token budget. */
  headerBytes: number;
  /** Status bar text while it runs. */
  progressTitle: string;
  /** Does the work; resolves to the text the model gets. */
  run: (context: SideEffectContext) => Promise<string>;
}

/**
 * The invocation run_command and run_code share: the refusal in an untrusted workspace, input checks
 * before anything runs, cancellation as an AbortSignal, the session store (failing to open it is
 * logged, not fatal, so the work is not lost with it), the preview budget, a status bar progress,
 * and errors in the form the model reads.
 */
export async function invokeSideEffect(
  tool: string,
  deps: SideEffectDeps,
  options: vscode.LanguageModelToolInvocationOptions<unknown>,
  token: vscode.CancellationToken,
  spec: SideEffectRun,
): Promise<vscode.LanguageModelToolResult> {
  const abort = new AbortController();
  const subscription = token.onCancellationRequested(() => abort.abort());
  try {
    if (!deps.isTrusted()) {
      throw new RecallError(
        'REFUSED',
        `${tool} does not run in an untrusted workspace. Ask the user to trust this workspace (command "Workspaces: Manage Workspace Trust") or complete the task without ${spec.without}.`,
      );
    }
    spec.validate();
    const store = await deps.store().catch((error) => {
      deps.log.error(`no session store for ${tool}: ${error}`);
      return undefined;
    });
    const settings = deps.settings();
    const previewBytes = bytesForTokenBudget(options.tokenizationOptions?.tokenBudget, settings.previewBytes, spec.headerBytes);
    const text = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: spec.progressTitle }, () =>
      spec.run({ store, settings, signal: abort.signal, previewBytes }),
    );
    return textResult(text);
  } catch (error) {
    throw toolError(tool, error);
  } finally {
    subscription.dispose();
  }
}

/** The confirmation VS Code shows before the tool runs: a question, the code itself and a note under it. */
export function confirmRun(
  invocationMessage: string,
  title: string,
  question: string,
  code: string,
  language: string,
  note: string,
): vscode.PreparedToolInvocation {
  const message = new vscode.MarkdownString();
  message.appendMarkdown(`${question}\n\n`);
  message.appendCodeblock(code, language);
  message.appendMarkdown(`\n${note}`);
  return { invocationMessage, confirmationMessages: { title, message } };
}
