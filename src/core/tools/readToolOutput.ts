import * as l10n from '@vscode/l10n';
import { clampPageBytes, readFittingPage } from '../pager';
import { READ_TOOL_OUTPUT_TOOL, SEARCH_TOOL_OUTPUT_TOOL } from '../toolNames';
import type { ReadResult, StoreReads } from '../types';
import { MAX_PART_BYTES } from './parts';
import { catalogOf, type ReadingToolSpec } from './toolSpec';

export interface ReadToolOutputInput {
  outputId: string;
  offset?: number;
  maxBytes?: number;
  /** Another session's output, named explicitly (as a listing or a search across outputs gave it); read-only. */
  session?: string;
}

/** `read_tool_output`: one page of a retained copy, by UTF-8 byte offset. */
export const readToolOutputSpec: ReadingToolSpec<ReadToolOutputInput, typeof READ_TOOL_OUTPUT_TOOL> = {
  name: READ_TOOL_OUTPUT_TOOL,
  effect: 'reads',
  invocation: (input) =>
    l10n.t('Reading retained output {outputId} from byte {offset}', { outputId: String(input.outputId), offset: input.offset ?? 0 }),
  run: async (input, context) =>
    readToolOutputText(
      input.session === undefined ? await context.store() : await catalogOf(context).reads(input.session, READ_TOOL_OUTPUT_TOOL),
      input,
      context.settings.pageBytes,
    ),
};

/**
 * `read_tool_output`'s result text: one page of a retained copy as JSON, then what to do next. The
 * page shrinks until the whole text fits one result part. `pageBytes` is the user's page limit.
 */
export async function readToolOutputText(store: StoreReads, input: ReadToolOutputInput, pageBytes: number): Promise<string> {
  const { outputId, offset = 0 } = input;
  const { text } = await readFittingPage(
    (maxBytes) => store.read(outputId, offset, maxBytes),
    (page) => render(outputId, page, input.session),
    clampPageBytes(input.maxBytes, pageBytes),
    MAX_PART_BYTES,
  );
  return text;
}

function render(outputId: string, page: ReadResult, session: string | undefined): string {
  return `${JSON.stringify(page)}\n${guidance(outputId, page, session)}`;
}

function guidance(outputId: string, page: ReadResult, session: string | undefined): string {
  const next = `${READ_TOOL_OUTPUT_TOOL} {"outputId":"${outputId}"${session === undefined ? '' : `,"session":"${session}"`},"offset":${page.nextOffset}}`;
  if (page.hasMore) return `More follows: call ${next} for the next page, or ${SEARCH_TOOL_OUTPUT_TOOL} to jump to a field.`;
  return page.complete
    ? 'This is the end of the output: the copy is complete.'
    : 'This is the end of what was saved, but the copy is NOT complete (complete=false): bytes were dropped at capture (see the gap marker in the text). Something absent here may still have been in the original output; say so rather than claiming it is absent.';
}

declare module './registry' {
  interface ToolSpecs {
    read_tool_output: typeof readToolOutputSpec;
  }
}
