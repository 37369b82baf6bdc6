import * as l10n from '@vscode/l10n';
import { LIST_TOOL_OUTPUTS_TOOL, READ_TOOL_OUTPUT_TOOL, SEARCH_TOOL_OUTPUT_TOOL } from '../toolNames';
import type { ListPage } from '../catalog/outputCatalog';
import { listedRow, sessionField } from './listedText';
import { catalogOf, type ReadingToolSpec } from './toolSpec';

export interface ListToolOutputsInput {
  session?: string;
  command?: string;
  tool?: string;
  agent?: string;
  exit?: 'failed' | 'ok';
  sinceMinutes?: number;
  limit?: number;
  cursor?: string;
}

const DEFAULT_ROWS = 20;

/**
 * `list_tool_outputs`: the retained outputs in scope, newest first, a page of rows from the
 * sessions' indexes (no copy is read): how an agent finds an output whose outputId it lost.
 */
export const listToolOutputsSpec: ReadingToolSpec<ListToolOutputsInput, typeof LIST_TOOL_OUTPUTS_TOOL> = {
  name: LIST_TOOL_OUTPUTS_TOOL,
  effect: 'reads',
  invocation: (input) =>
    input.session === 'all' ? l10n.t('Listing the retained outputs of every session') : l10n.t('Listing retained outputs'),
  run: async (input, context) => {
    const page = await catalogOf(context).list(
      {
        session: input.session,
        tool: input.tool,
        agent: input.agent,
        exit: input.exit,
        text: input.command,
        since: input.sinceMinutes === undefined ? undefined : Date.now() - input.sinceMinutes * 60_000,
        cursor: input.cursor,
        limit: input.limit ?? DEFAULT_ROWS,
      },
      LIST_TOOL_OUTPUTS_TOOL,
    );
    return listText(page, input, (await context.store()).sessionId);
  },
};

/** The result: a summary line, one JSON row per output, then what to do with them. */
export function listText(page: ListPage, input: ListToolOutputsInput, currentSessionId: string, now = Date.now()): string {
  const summary = {
    outputs: page.rows.length,
    matching: page.matching,
    session: input.session ?? 'current',
    sessions: page.sessions,
    ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
    ...(page.unreadable.length ? { unreadable: page.unreadable } : {}),
  };
  const rows = page.rows.map((row) => JSON.stringify(listedRow(row, currentSessionId, now)));
  const first = page.rows.find((row) => !row.evicted);
  const more = page.nextCursor ? ` More rows: call ${LIST_TOOL_OUTPUTS_TOOL} again with "cursor":"${page.nextCursor}".` : '';
  const advice = first
    ? `Read a row's output with ${READ_TOOL_OUTPUT_TOOL} {"outputId":"${first.outputId}"${sessionField(first, currentSessionId)},"offset":0} (give "session" when a row names one), or find text in it with ${SEARCH_TOOL_OUTPUT_TOOL}. Do not re-run a listed command to see its output.${more}`
    : page.rows.length > 0
      ? `Every listed output was evicted for its session's quota: their content is gone.${more}`
      : (input.session ?? 'current') === 'current'
        ? `No retained output in this session matches. Earlier sessions and other agents' sessions: ${LIST_TOOL_OUTPUTS_TOOL} {"session":"all"}.`
        : 'No retained output matches in the sessions listed.';
  return [JSON.stringify(summary), ...rows, advice].join('\n');
}

declare module './registry' {
  interface ToolSpecs {
    list_tool_outputs: typeof listToolOutputsSpec;
  }
}
