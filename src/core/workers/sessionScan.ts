/**
 * A search across outputs, as the search worker runs it: the sessions in scope are read here,
 * read-only (readOnlySession.ts: no lock, no byte written, the owner's journal included), their
 * readable outputs taken newest first, and each copy searched whole until the page has its matches
 * or its time. One copy is held at a time; nothing crosses threads but the page.
 */
import { RecallError, describeError } from '../errors';
import { MatchCollector, searchWindow, wholeWindow, type CompiledSearch } from '../search';
import type { OutputKey, SearchOutcome, SessionsSource } from '../search/protocol';
import { checkStopped, runSliced, type StepControl } from '../search/sliced';
import { openReadOnlySession, type ReadOnlySession } from '../store/readOnlySession';
import type { ListedOutput, OutputHits } from '../types';
import { collectGarbageInWorker } from '../worker/collectGarbage';
import { compareNewestFirst, isAfter, keyOf, listedOutput } from './listedOutput';
import { STORE_ENGINES } from './stores';

/** Views kept open between searches (a view's index is a few hundred KiB; a session file, an open descriptor). */
const MAX_VIEWS = 32;
const views = new Map<string, Promise<ReadOnlySession>>();

/** The view of `file`, read again if its files changed since. */
async function viewOf(file: string): Promise<ReadOnlySession> {
  let opening = views.get(file);
  if (!opening) {
    if (views.size >= MAX_VIEWS) {
      const [oldest, view] = views.entries().next().value as [string, Promise<ReadOnlySession>];
      views.delete(oldest);
      void view.then((v) => v.close()).catch(() => undefined);
    }
    opening = openReadOnlySession(file, STORE_ENGINES);
    views.set(file, opening);
    opening.catch(() => views.delete(file));
    return opening;
  }
  const view = await opening;
  await view.refresh();
  return view;
}

interface Candidate {
  output: ListedOutput;
  view: ReadOnlySession;
}

export async function scanSessions(source: SessionsSource, search: CompiledSearch, control: StepControl): Promise<SearchOutcome> {
  const unreadable: { sessionId: string; reason: string }[] = [];
  const candidates: Candidate[] = [];
  for (const { sessionId, file } of source.sessions) {
    try {
      const view = await viewOf(file);
      for (const info of await view.list()) {
        if (!info.evicted) candidates.push({ output: listedOutput(info, sessionId), view });
      }
    } catch (error) {
      unreadable.push({ sessionId, reason: describeError(error) });
    }
  }
  candidates.sort((a, b) => compareNewestFirst(keyOf(a.output), keyOf(b.output)));
  const pageEnd = performance.now() + source.pageMs;
  const groups: OutputHits[] = [];
  let matches = 0;
  let searchedOutputs = 0;
  let searchedBytes = 0;
  let incompleteSearched = 0;
  let next: OutputKey | undefined;
  const todo = candidates.filter((candidate) => isAfter(keyOf(candidate.output), source.after));
  for (const [index, { output, view }] of todo.entries()) {
    // A page ends when it has its matches, or its time (the first page comes back fast); a cursor
    // continues after the last output searched.
    if (index > 0 && (matches >= search.maxMatches || performance.now() > pageEnd)) {
      next = keyOf(todo[index - 1].output);
      break;
    }
    checkStopped(control);
    let bytes: Buffer;
    try {
      bytes = await view.readAll(output.outputId);
    } catch (error) {
      // Removed or evicted by its owner since the listing: not an error of the search.
      if (error instanceof RecallError && (error.code === 'NOT_FOUND' || error.code === 'EVICTED')) continue;
      throw error;
    }
    const found = new MatchCollector(Math.min(source.perOutput, search.maxMatches - matches));
    await runSliced(searchWindow(search, wholeWindow(bytes), found), control);
    searchedOutputs++;
    searchedBytes += bytes.length;
    if (!output.complete) incompleteSearched++;
    collectGarbageInWorker(bytes.length);
    if (found.matches.length > 0) {
      groups.push({ output, matches: found.matches, truncated: found.truncated });
      matches += found.matches.length;
    }
  }
  return {
    matches: [],
    truncated: next !== undefined,
    totalBytes: searchedBytes,
    across: {
      groups,
      searchedOutputs,
      searchedBytes,
      incompleteSearched,
      outputsInScope: candidates.length,
      unreadable,
      ...(next ? { next } : {}),
    },
  };
}
