import type * as vscode from 'vscode';
import type { RecallStore } from '../../core/types';
import { textResult, toolError } from './toolResult';
import { READ_TOOL_OUTPUT_TOOL, SEARCH_TOOL_OUTPUT_TOOL } from '../../core/toolNames';

export interface SearchToolOutputInput {
  outputId: string;
  pattern: string;
  regex?: boolean;
  caseSensitive?: boolean;
  maxMatches?: number;
}

/** `search_tool_output`: find text in a retained copy; matches carry `read_tool_output` offsets. */
export class SearchToolOutputTool implements vscode.LanguageModelTool<SearchToolOutputInput> {
  static readonly toolName = SEARCH_TOOL_OUTPUT_TOOL;

  constructor(private readonly store: () => Promise<RecallStore>) {}

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<SearchToolOutputInput>): vscode.PreparedToolInvocation {
    return { invocationMessage: `Searching retained output ${options.input.outputId} for ${JSON.stringify(options.input.pattern)}` };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<SearchToolOutputInput>): Promise<vscode.LanguageModelToolResult> {
    const { outputId, pattern, regex, caseSensitive, maxMatches } = options.input;
    try {
      const store = await this.store();
      const found = await store.search(outputId, pattern, { regex, caseSensitive, maxMatches });
      const summary = {
        outputId,
        matches: found.matches.length,
        truncated: found.truncated,
        totalBytes: found.totalBytes,
        complete: found.complete,
      };
      // One match per line (JSON Lines): readable, and long results split cleanly between parts.
      const lines = found.matches.map((match) => JSON.stringify(match));
      const first = found.matches[0];
      const advice =
        found.matches.length === 0
          ? found.complete
            ? 'No match in the whole retained output.'
            : 'No match in what was retained, but the copy is incomplete (complete=false): the text may have been in the dropped part. Say so rather than claiming it is absent.'
          : `Read around a match with ${READ_TOOL_OUTPUT_TOOL} {"outputId":"${outputId}","offset":${first.lineOffset}} (use a match's lineOffset or offset).${found.truncated ? ' More matches exist: refine the pattern or raise maxMatches (up to 1000).' : ''}`;
      return textResult([JSON.stringify(summary), ...lines, advice].join('\n'));
    } catch (error) {
      throw toolError(SearchToolOutputTool.toolName, error);
    }
  }
}
