import * as vscode from 'vscode';
import type { RecallStore } from '../../core/types';
import { textResult, toolError } from './toolResult';
import { SEARCH_TOOL_OUTPUT_TOOL } from '../../core/toolNames';
import { searchToolOutputText, type SearchToolOutputInput } from '../../core/tools/searchToolOutput';

export type { SearchToolOutputInput };

/** `search_tool_output`: find text in a retained copy; matches carry `read_tool_output` offsets. */
export class SearchToolOutputTool implements vscode.LanguageModelTool<SearchToolOutputInput> {
  static readonly toolName = SEARCH_TOOL_OUTPUT_TOOL;

  constructor(private readonly store: () => Promise<RecallStore>) {}

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<SearchToolOutputInput>): vscode.PreparedToolInvocation {
    return {
      invocationMessage: vscode.l10n.t('Searching retained output {outputId} for {pattern}', {
        outputId: options.input.outputId,
        pattern: JSON.stringify(options.input.pattern),
      }),
    };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<SearchToolOutputInput>): Promise<vscode.LanguageModelToolResult> {
    try {
      return textResult(await searchToolOutputText(await this.store(), options.input));
    } catch (error) {
      throw toolError(SearchToolOutputTool.toolName, error);
    }
  }
}
