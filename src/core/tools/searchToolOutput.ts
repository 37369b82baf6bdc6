import * as l10n from '@vscode/l10n';
import { RecallError } from '../errors';
import type { ReadPolicy } from '../files/readablePath';
import { describeDropped, droppedMatches } from '../notable/dropped';
import { READ_TOOL_OUTPUT_TOOL, SEARCH_TOOL_OUTPUT_TOOL } from '../toolNames';
import type { SearchOptions, StoreReads } from '../types';
import { searchAcrossText } from './searchAcross';
import { searchFileText } from './searchFile';
import { catalogOf, readPolicyOf, type ReadingToolSpec } from './toolSpec';

export interface SearchToolOutputInput {
  /** A retained output; or `path`, a file (see searchFile.ts); neither: every output in `session` (searchAcross.ts). */
  outputId?: string;
  path?: string;
  pattern: string;
  regex?: boolean;
  caseSensitive?: boolean;
  maxMatches?: number;
  /** With outputId: the session that holds it; with neither: `all`, or one session, whose outputs are searched. */
  session?: string;
  /** Searching every output: matches per output, and where the previous page stopped. */
  maxPerOutput?: number;
  cursor?: string;
}

/**
 * `search_tool_output`: find text in a retained copy (matches carry `read_tool_output` offsets) or
 * in a file the read policy allows (`read_file_page` byte offsets). Cancelling the call stops the
 * search. A search of a file needs no session store.
 */
export const searchToolOutputSpec: ReadingToolSpec<SearchToolOutputInput, typeof SEARCH_TOOL_OUTPUT_TOOL> = {
  name: SEARCH_TOOL_OUTPUT_TOOL,
  effect: 'reads',
  invocation: ({ outputId, path, pattern }) =>
    path !== undefined
      ? l10n.t('Searching {path} for {pattern}', { path, pattern: JSON.stringify(pattern) })
      : outputId !== undefined
        ? l10n.t('Searching retained output {outputId} for {pattern}', { outputId, pattern: JSON.stringify(pattern) })
        : l10n.t('Searching every retained output for {pattern}', { pattern: JSON.stringify(pattern) }),
  validate: checkCombination,
  run: async (input, context) => {
    if (input.path !== undefined) return searchFileText({ ...input, path: input.path }, readPolicyOf(context), context.signal);
    const catalog = catalogOf(context);
    const current = await context.store();
    if (input.outputId === undefined) return searchAcrossText(catalog, input, current.sessionId, context.signal);
    const store = input.session === undefined ? current : await catalog.reads(input.session, SEARCH_TOOL_OUTPUT_TOOL);
    return searchToolOutputText(store, input, context.signal, readPolicyOf(context));
  },
};

/** What the schema cannot say: which fields go together. */
function checkCombination(input: SearchToolOutputInput): void {
  if (input.outputId !== undefined && input.path !== undefined) {
    throw new RecallError(
      'INVALID_ARGUMENT',
      `${SEARCH_TOOL_OUTPUT_TOOL} takes "outputId" (a retained output) or "path" (a file), not both; give neither to search every retained output.`,
    );
  }
  if (input.path !== undefined && input.session !== undefined) {
    throw new RecallError(
      'INVALID_ARGUMENT',
      `"session" names whose outputs to search; a "path" is a file, searched as it is: drop "session".`,
    );
  }
  const across = input.outputId === undefined && input.path === undefined;
  if (!across && (input.cursor !== undefined || input.maxPerOutput !== undefined)) {
    throw new RecallError(
      'INVALID_ARGUMENT',
      `"cursor" and "maxPerOutput" belong to a search of every output (no outputId, no path); for one ${input.outputId === undefined ? 'file' : 'output'}, raise maxMatches instead.`,
    );
  }
}

/**
 * `search_tool_output`'s result text: a summary line, one match per line (JSON Lines: readable, and
 * long results split cleanly between parts), then how to read around a match or what no match means.
 * `signal`: the tool call's cancellation (the client went away), which stops the search.
 */
export async function searchToolOutputText(
  /** Needed for an `outputId` only. */
  store: StoreReads | undefined,
  input: SearchToolOutputInput,
  signal?: AbortSignal,
  /** Where a `path` may point (as for read_file_page); undefined: files are refused. */
  files?: ReadPolicy,
): Promise<string> {
  if ((input.outputId === undefined) === (input.path === undefined)) {
    throw new RecallError(
      'INVALID_ARGUMENT',
      `${SEARCH_TOOL_OUTPUT_TOOL} takes either "outputId" (a retained output) or "path" (a file, e.g. a saved oversized tool result) here, ${input.outputId === undefined ? 'and got neither' : 'not both'}.`,
    );
  }
  if (input.path !== undefined) return searchFileText({ ...input, path: input.path }, files, signal);
  const { pattern, regex, caseSensitive, maxMatches } = input;
  const outputId = input.outputId as string;
  // Not a check of the input: a caller that gave no store for an outputId.
  if (!store) throw new RecallError('STORE_UNAVAILABLE', 'No session store was given to search a retained output in.');
  // The worker store stops a search whose signal aborts (CANCELLED); the in-process store ignores it.
  const options: SearchOptions & { signal?: AbortSignal } = { regex, caseSensitive, maxMatches, ...(signal ? { signal } : {}) };
  const found = await store.search(outputId, pattern, options);
  const summary = {
    outputId,
    matches: found.matches.length,
    truncated: found.truncated,
    totalBytes: found.totalBytes,
    complete: found.complete,
  };
  const lines = found.matches.map((match) => JSON.stringify(match));
  const first = found.matches[0];
  // On an incomplete copy, what the capture saw in the part it dropped (its notable lines) can say more.
  const dropped =
    found.matches.length === 0 && !found.complete
      ? await store.info(outputId).then(
          (info) => droppedMatches(info, pattern, { regex, caseSensitive }),
          () => undefined,
        )
      : undefined;
  const clipped = found.matches.some((match) => match.window)
    ? ' A match with "window" shows only that byte range [from, to) of a long line: read from its window.from for more.'
    : '';
  const advice =
    found.matches.length === 0
      ? found.complete
        ? 'No match in the whole retained output.'
        : dropped
          ? `No match in what was retained (complete=false). ${describeDropped(dropped)}`
          : 'No match in what was retained, but the copy is incomplete (complete=false): the text may have been in the dropped part. Say so rather than claiming it is absent.'
      : `Read around a match with ${READ_TOOL_OUTPUT_TOOL} {"outputId":"${outputId}"${input.session === undefined ? '' : `,"session":"${input.session}"`},"offset":${first.lineOffset}} (use a match's lineOffset or offset).${clipped}${found.truncated ? ' More matches exist: refine the pattern or raise maxMatches (up to 1000).' : ''}`;
  return [JSON.stringify(summary), ...lines, advice].join('\n');
}

declare module './registry' {
  interface ToolSpecs {
    search_tool_output: typeof searchToolOutputSpec;
  }
}
