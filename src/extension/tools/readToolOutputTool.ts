import * as vscode from 'vscode';
import type { RecallStore } from '../../core/types';
import { readToolOutputText, type ReadToolOutputInput } from '../../core/tools/readToolOutput';
import { textResult, toolError } from './toolResult';
import { READ_TOOL_OUTPUT_TOOL } from '../../core/toolNames';

export type { ReadToolOutputInput };

/** `read_tool_output`: one page of a retained copy, by UTF-8 byte offset. */
export class ReadToolOutputTool implements vscode.LanguageModelTool<ReadToolOutputInput> {
  static readonly toolName = READ_TOOL_OUTPUT_TOOL;

  constructor(
    private readonly store: () => Promise<RecallStore>,
    private readonly pageBytes: () => number,
  ) {}

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<ReadToolOutputInput>): vscode.PreparedToolInvocation {
    return {
      invocationMessage: vscode.l10n.t('Reading retained output {outputId} from byte {offset}', {
        outputId: options.input.outputId,
        offset: options.input.offset ?? 0,
      }),
    };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<ReadToolOutputInput>): Promise<vscode.LanguageModelToolResult> {
    try {
      return textResult(await readToolOutputText(await this.store(), options.input, this.pageBytes()));
    } catch (error) {
      throw toolError(ReadToolOutputTool.toolName, error);
    }
  }
}
