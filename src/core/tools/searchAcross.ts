/**
 * `search_tool_output` without an outputId or a path: every retained output in scope, newest first,
 * matches grouped by output (OutputCatalog.searchAcross), as text for the model: a summary line,
 * then each output's row and its matches as JSON Lines, then what to do next.
 */
import type { OutputCatalog } from '../catalog/outputCatalog';
import { READ_TOOL_OUTPUT_TOOL, SEARCH_TOOL_OUTPUT_TOOL, LIST_TOOL_OUTPUTS_TOOL } from '../toolNames';
import type { SearchAcrossResult } from '../types';
import { listedRow, sessionField } from './listedText';
import type { SearchToolOutputInput } from './searchToolOutput';

const DEFAULT_PER_OUTPUT = 5;

export async function searchAcrossText(
  catalog: OutputCatalog,
  input: SearchToolOutputInput,
  currentSessionId: string,
  signal?: AbortSignal,
): Promise<string> {
  const { pattern, regex, caseSensitive, maxMatches, session, cursor } = input;
  const found = await catalog.searchAcross(pattern, {
    regex,
    caseSensitive,
    maxMatches,
    session,
    cursor,
    perOutput: input.maxPerOutput ?? DEFAULT_PER_OUTPUT,
    tool: SEARCH_TOOL_OUTPUT_TOOL,
    ...(signal ? { signal } : {}),
  });
  return acrossText(found, input, currentSessionId);
}

export function acrossText(found: SearchAcrossResult, input: SearchToolOutputInput, currentSessionId: string, now = Date.now()): string {
  const scope = input.session ?? 'current';
  const matches = found.groups.reduce((sum, group) => sum + group.matches.length, 0);
  const summary = {
    pattern: input.pattern,
    session: scope,
    outputsSearched: found.searchedOutputs,
    outputsInScope: found.outputsInScope,
    outputsWithMatches: found.groups.length,
    matches,
    ...(found.cursor ? { nextCursor: found.cursor } : {}),
    ...(found.unreadable.length ? { unreadable: found.unreadable } : {}),
  };
  const lines = found.groups.flatMap((group) => [
    JSON.stringify({ ...listedRow(group.output, currentSessionId, now), matches: group.matches.length, moreInOutput: group.truncated }),
    ...group.matches.map((match) => `  ${JSON.stringify(match)}`),
  ]);
  return [JSON.stringify(summary), ...lines, advice(found, scope, currentSessionId)].join('\n');
}

function advice(found: SearchAcrossResult, scope: string, currentSessionId: string): string {
  const more = found.cursor
    ? ` Not every output was searched yet: continue with ${SEARCH_TOOL_OUTPUT_TOOL} and "cursor":"${found.cursor}".`
    : '';
  const first = found.groups[0];
  if (first) {
    const match = first.matches[0];
    const read = `${READ_TOOL_OUTPUT_TOOL} {"outputId":"${first.output.outputId}"${sessionField(first.output, currentSessionId)},"offset":${match.lineOffset}}`;
    return `Each output's row is followed by its matches (indented). Read around a match with ${read} (a row with a "session" is another session's: pass it). An output with "moreInOutput": true has more matches: search it alone with its outputId.${more}`;
  }
  const incomplete = found.incompleteSearched
    ? ` ${found.incompleteSearched} of the outputs searched are incomplete (complete=false: bytes were dropped at capture), so the text may have been in a dropped part.`
    : '';
  const wider =
    scope === 'current'
      ? ` Earlier sessions and other agents' sessions were not searched: add "session":"all". ${LIST_TOOL_OUTPUTS_TOOL} lists outputs by command.`
      : '';
  return `No match in the ${found.searchedOutputs} outputs searched.${incomplete}${more}${wider}`;
}
