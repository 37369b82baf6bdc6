import type * as vscode from 'vscode';
import type { RecallStore, ReadResult } from '../../core/types';
import { clampPageBytes, readFittingPage } from '../../core/pager';
import { MAX_PART_BYTES, textResult, toolError } from './toolResult';
import { READ_TOOL_OUTPUT_TOOL, SEARCH_TOOL_OUTPUT_TOOL } from '../../core/toolNames';

export interface ReadToolOutputInput {
  outputId: string;
  offset?: number;
  maxBytes?: number;
}

/** `read_tool_output`: one page of a retained copy, by UTF-8 byte offset. */
export class ReadToolOutputTool implements vscode.LanguageModelTool<ReadToolOutputInput> {
  static readonly toolName = READ_TOOL_OUTPUT_TOOL;

  constructor(
    private readonly store: () => Promise<RecallStore>,
    private readonly pageBytes: () => number,
  ) {}

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<ReadToolOutputInput>): vscode.PreparedToolInvocation {
    return { invocationMessage: `Reading retained output ${options.input.outputId} from byte ${options.input.offset ?? 0}` };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<ReadToolOutputInput>): Promise<vscode.LanguageModelToolResult> {
    const { outputId, offset = 0 } = options.input;
    try {
      const store = await this.store();
      const { text } = await readFittingPage(
        (maxBytes) => store.read(outputId, offset, maxBytes),
        (page) => render(outputId, page),
        clampPageBytes(options.input.maxBytes, this.pageBytes()),
        MAX_PART_BYTES,
      );
      return textResult(text);
    } catch (error) {
      throw toolError(ReadToolOutputTool.toolName, error);
    }
  }
}

function render(outputId: string, page: ReadResult): string {
  return `${JSON.stringify(page)}\n${guidance(outputId, page)}`;
}

function guidance(outputId: string, page: ReadResult): string {
  const next = `${READ_TOOL_OUTPUT_TOOL} {"outputId":"${outputId}","offset":${page.nextOffset}}`;
  if (page.hasMore) return `More follows: call ${next} for the next page, or ${SEARCH_TOOL_OUTPUT_TOOL} to jump to a field.`;
  return page.complete
    ? 'This is the end of the output: the copy is complete.'
    : 'This is the end of what was saved, but the copy is NOT complete (complete=false): bytes were dropped at capture (see the gap marker in the text). Something absent here may still have been in the original output; say so rather than claiming it is absent.';
}
