import * as vscode from 'vscode';
import type { RecallStore } from '../../core/types';
import type { RecallSettings } from '../config';
import { readPolicy } from './readFilePageTool';
import { textResult, toolError } from './toolResult';
import { SEARCH_TOOL_OUTPUT_TOOL } from '../../core/toolNames';
import { searchToolOutputText, type SearchToolOutputInput } from '../../core/tools/searchToolOutput';

export type { SearchToolOutputInput };

/**
 * `search_tool_output`: find text in a retained copy (matches carry `read_tool_output` offsets) or
 * in a file the read policy allows (`read_file_page` byte offsets). Cancelling the call stops the search.
 */
export class SearchToolOutputTool implements vscode.LanguageModelTool<SearchToolOutputInput> {
  static readonly toolName = SEARCH_TOOL_OUTPUT_TOOL;

  constructor(
    private readonly store: () => Promise<RecallStore>,
    private readonly settings: () => RecallSettings,
  ) {}

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<SearchToolOutputInput>): vscode.PreparedToolInvocation {
    const { outputId, path } = options.input;
    const pattern = JSON.stringify(options.input.pattern);
    return {
      invocationMessage:
        path !== undefined
          ? vscode.l10n.t('Searching {path} for {pattern}', { path, pattern })
          : vscode.l10n.t('Searching retained output {outputId} for {pattern}', { outputId: outputId ?? '', pattern }),
    };
  }

  async invoke(
    options: vscode.LanguageModelToolInvocationOptions<SearchToolOutputInput>,
    token: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelToolResult> {
    const abort = new AbortController();
    const subscription = token.onCancellationRequested(() => abort.abort());
    try {
      const store = options.input.path !== undefined ? undefined : await this.store();
      const text = await searchToolOutputText(store as RecallStore, options.input, abort.signal, readPolicy(this.settings()));
      return textResult(text);
    } catch (error) {
      throw toolError(SearchToolOutputTool.toolName, token.isCancellationRequested ? new vscode.CancellationError() : error);
    } finally {
      subscription.dispose();
    }
  }
}
