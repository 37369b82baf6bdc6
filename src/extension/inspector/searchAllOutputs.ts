/**
 * Search All Outputs: one search over every retained output of the workspace (this window's current
 * and earlier sessions, other agents' sessions), as VS Code's Search view searches files. The
 * catalog searches on the search worker a page at a time (a page ends after its hits or its time);
 * the pages are asked for one after another until every output is searched or MAX_HITS are shown,
 * each added to the Search Results tree as it comes. The view shows progress while it runs; Cancel
 * (the view's title, or a new search) aborts the page being searched.
 */
import * as vscode from 'vscode';
import { describeError, isRecallError } from '../../core/errors';
import type { SearchAcrossResult } from '../../core/types';
import { logText, personMessage } from '../personMessages';
import { askQuery, lastQuery, queryArgument, rememberQuery, type SearchAllQuery } from './searchQuery';
import { originsOf, outputNode } from './searchOrigins';
import { SearchResultsTree, type MessageNode, type ResultItemSnapshot } from './searchResultsTree';
import type { InspectorServices } from './services';

export const SEARCH_RESULTS_VIEW_ID = 'toolOutputRecall.searchResults';
/** Context keys: the view shows once there are results; Cancel shows while a search runs. */
const HAS_RESULTS = 'toolOutputRecall.searchResults.visible';
const RUNNING = 'toolOutputRecall.searchResults.running';

/** A search stops adding pages once it shows this many hits (the last page may pass it). */
export const MAX_HITS = 1000;
/** Hits a page brings at most, and hits of one output. */
const PAGE_MATCHES = 200;
const PER_OUTPUT = 50;
/** A page ends after this long with a cursor: progress and Cancel between pages come at least this often. */
const PAGE_MS = 1000;
/** The first page ends sooner: what the newest outputs hold shows at once, as VS Code's Search view streams its results. */
const FIRST_PAGE_MS = 150;

/** Where a search stands (the command's result, and the `_toolOutputRecall.searchResultsItems` command's `state`). */
export interface SearchState {
  query: SearchAllQuery;
  running: boolean;
  pages: number;
  hits: number;
  /** Outputs with hits shown. */
  outputs: number;
  searchedOutputs: number;
  outputsInScope: number;
  incompleteSearched: number;
  /** Every output in scope was searched. */
  complete: boolean;
  /** It stopped at MAX_HITS with outputs left. */
  limitReached: boolean;
  cancelled: boolean;
  unreadable: { sessionId: string; reason: string }[];
  /** What went wrong, as a person reads it. */
  error?: string;
}

export interface SearchResultsSnapshot {
  state?: SearchState;
  /** The line above the tree. */
  message?: string;
  items: ResultItemSnapshot[];
}

export function registerSearchAllOutputs(context: vscode.ExtensionContext, services: InspectorServices): void {
  const tree = new SearchResultsTree();
  const view = vscode.window.createTreeView(SEARCH_RESULTS_VIEW_ID, { treeDataProvider: tree, showCollapseAll: true });
  let current: { controller: AbortController; state: SearchState } | undefined;
  let runs = 0;

  const setContext = (key: string, value: boolean) => vscode.commands.executeCommand('setContext', key, value);

  const run = async (query: SearchAllQuery, pageMatches = PAGE_MATCHES): Promise<SearchState> => {
    const catalog = services.catalog;
    if (!catalog) throw new Error(vscode.l10n.t('Searching all outputs is not available here.'));
    current?.controller.abort();
    const controller = new AbortController();
    const state: SearchState = {
      query,
      running: true,
      pages: 0,
      hits: 0,
      outputs: 0,
      searchedOutputs: 0,
      outputsInScope: 0,
      incompleteSearched: 0,
      complete: false,
      limitReached: false,
      cancelled: false,
      unreadable: [],
    };
    const mine = { controller, state };
    current = mine;
    const runId = ++runs;
    const live = () => current === mine;
    tree.reset(query);
    view.message = vscode.l10n.t('Searching…');
    view.description = describeQuery(query);
    await setContext(HAS_RESULTS, true);
    await setContext(RUNNING, true);
    // Shown as soon as the view is contributed (its `when` just became true).
    void vscode.commands.executeCommand(`${SEARCH_RESULTS_VIEW_ID}.focus`).then(undefined, () => undefined);
    await vscode.window.withProgress({ location: { viewId: SEARCH_RESULTS_VIEW_ID } }, async () => {
      try {
        const origins = originsOf(services, await catalog.sessions());
        let cursor: string | undefined;
        do {
          const page: SearchAcrossResult = await catalog.searchAcross(query.pattern, {
            regex: query.regex,
            caseSensitive: query.caseSensitive,
            maxMatches: Math.min(pageMatches, MAX_HITS - state.hits),
            perOutput: PER_OUTPUT,
            session: 'all',
            cursor,
            pageMs: state.pages === 0 ? FIRST_PAGE_MS : PAGE_MS,
            tool: 'Search All Outputs',
            signal: controller.signal,
          });
          if (!live()) return;
          cursor = page.cursor;
          state.pages++;
          state.searchedOutputs += page.searchedOutputs;
          state.incompleteSearched += page.incompleteSearched;
          state.outputsInScope = page.outputsInScope;
          for (const gone of page.unreadable)
            if (!state.unreadable.some((known) => known.sessionId === gone.sessionId)) state.unreadable.push(gone);
          const nodes = await Promise.all(page.groups.map((hits) => outputNode(runId, hits, origins)));
          state.hits += page.groups.reduce((sum, group) => sum + group.matches.length, 0);
          state.outputs += page.groups.length;
          tree.add(nodes);
          view.message = progressText(state);
        } while (cursor !== undefined && state.hits < MAX_HITS && !controller.signal.aborted);
        state.complete = cursor === undefined;
        state.limitReached = cursor !== undefined && state.hits >= MAX_HITS;
      } catch (error) {
        if (controller.signal.aborted || isRecallError(error, 'CANCELLED')) return;
        services.log.warn(`Search All Outputs ${JSON.stringify(query.pattern)}: ${logText(error)}`);
        state.error = personMessage(error, { search: { regex: query.regex } }).text;
      }
    });
    state.running = false;
    state.cancelled = controller.signal.aborted && !state.complete;
    if (!live()) return state;
    await setContext(RUNNING, false);
    view.message = summaryText(state);
    tree.setMessages(messagesOf(runId, state));
    return state;
  };

  const command = (id: string, handler: (...args: unknown[]) => Promise<unknown>) =>
    vscode.commands.registerCommand(id, async (...args: unknown[]) => {
      try {
        return await handler(...args);
      } catch (error) {
        services.log.warn(`${id}: ${describeError(error)}`);
        void vscode.window.showErrorMessage(vscode.l10n.t('Tool Output Recall: {0}', describeError(error)));
        return undefined;
      }
    });

  context.subscriptions.push(
    tree,
    view,
    // `{ pattern, regex?, caseSensitive? }` as the argument skips the input box (scripts and tests).
    command('toolOutputRecall.searchAllOutputs', async (arg) => {
      const given = queryArgument(arg);
      if (given) return run({ pattern: given.pattern, regex: given.regex, caseSensitive: given.caseSensitive }, given.pageMatches);
      // What a person typed is offered again next time (a script's query is not theirs).
      // The search worker gets ready while the person types.
      void services.catalog?.warm();
      const asked = await askQuery(context.extensionUri, lastQuery(context.workspaceState));
      if (!asked) return undefined;
      await rememberQuery(context.workspaceState, asked);
      return run(asked);
    }),
    // True when a search was running.
    command('toolOutputRecall.cancelSearchAllOutputs', async () => {
      const running = current?.state.running === true;
      current?.controller.abort();
      return running;
    }),
    command('toolOutputRecall.clearSearchResults', async () => {
      current?.controller.abort();
      current = undefined;
      tree.reset({ pattern: '', regex: false, caseSensitive: false });
      view.message = undefined;
      view.description = undefined;
      await setContext(RUNNING, false);
      await setContext(HAS_RESULTS, false);
    }),
    // For diagnostics and the real-host test: what the Search Results view shows, groups expanded.
    vscode.commands.registerCommand('_toolOutputRecall.searchResultsItems', (): SearchResultsSnapshot => ({
      ...(current ? { state: { ...current.state } } : {}),
      ...(view.message ? { message: view.message } : {}),
      items: tree.snapshot(),
    })),
  );
}

/** The view's description: the query and its options. */
function describeQuery(query: SearchAllQuery): string {
  const options = [query.regex ? '.*' : undefined, query.caseSensitive ? 'Aa' : undefined].filter(Boolean).join(' ');
  const shown = query.pattern.length > 40 ? `${query.pattern.slice(0, 39)}…` : query.pattern;
  return options ? `"${shown}" ${options}` : `"${shown}"`;
}

function progressText(state: SearchState): string {
  return vscode.l10n.t('Searching… {searched} of {total} outputs, {hits} matches so far', {
    searched: state.searchedOutputs,
    total: state.outputsInScope,
    hits: state.hits,
  });
}

function summaryText(state: SearchState): string | undefined {
  if (state.error) return undefined;
  if (state.cancelled)
    return vscode.l10n.t('Cancelled: {searched} of {total} outputs searched, {hits} matches.', {
      searched: state.searchedOutputs,
      total: state.outputsInScope,
      hits: state.hits,
    });
  if (state.hits === 0) return undefined;
  if (state.limitReached)
    return vscode.l10n.t(
      'The first {hits} matches, in {outputs} outputs: {searched} of {total} outputs searched. Search for something more precise to see the rest.',
      {
        hits: state.hits,
        outputs: state.outputs,
        searched: state.searchedOutputs,
        total: state.outputsInScope,
      },
    );
  return state.hits === 1
    ? vscode.l10n.t('1 match in {total} outputs searched.', { total: state.searchedOutputs })
    : vscode.l10n.t('{hits} matches in {outputs} of {total} outputs searched.', {
        hits: state.hits,
        outputs: state.outputs,
        total: state.searchedOutputs,
      });
}

/** The rows after the outputs: nothing matched, incomplete copies, unreadable sessions, an error. */
function messagesOf(runId: number, state: SearchState): MessageNode[] {
  const rows: MessageNode[] = [];
  const row = (text: string, severity: MessageNode['severity'], tooltip?: string) =>
    rows.push({ kind: 'message', id: `search:${runId}:message:${rows.length}`, text, severity, ...(tooltip ? { tooltip } : {}) });
  if (state.error) row(state.error, 'warning');
  else if (state.hits === 0 && !state.cancelled)
    row(
      state.searchedOutputs === 1
        ? vscode.l10n.t('No match in the 1 output searched.')
        : vscode.l10n.t('No match in {0} outputs.', state.searchedOutputs),
      'info',
    );
  if (state.incompleteSearched > 0)
    row(
      state.incompleteSearched === 1
        ? vscode.l10n.t('1 output searched is an incomplete copy: a match in the bytes it dropped cannot be found.')
        : vscode.l10n.t(
            '{0} outputs searched are incomplete copies: a match in the bytes they dropped cannot be found.',
            state.incompleteSearched,
          ),
      'info',
    );
  if (state.unreadable.length > 0)
    row(
      vscode.l10n.t('Sessions that could not be read, not searched: {0}', state.unreadable.map((gone) => gone.sessionId).join(', ')),
      'warning',
      state.unreadable.map((gone) => `${gone.sessionId}: ${gone.reason}`).join('\n'),
    );
  return rows;
}
