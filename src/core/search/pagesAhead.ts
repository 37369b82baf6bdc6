/**
 * The next page of a search across outputs, computed while its caller reads this one, for a caller that
 * pages without pause: a loop over the cursor, as the inspector's Search All Outputs runs and a client
 * reading every page does. Between two such pages the worker waited for the caller's thread to take the
 * reply and ask again, a millisecond or more a page.
 *
 * A page computed ahead is the one the next request asks for only if it asks for exactly it (the same
 * search, sessions and cursor) and comes within `freshMs` of its end: it is then a page computed that
 * much earlier, as a search racing a change of the sessions is. Anything else is computed anew, and a
 * page ahead still running is stopped first, so that one scan of the sessions runs at a time.
 * A caller that pauses (a model reading a page) gets nothing ahead: the work would likely be wasted.
 * One that stops paging (Cancel between pages, the last hits it wanted) leaves at most one page's time
 * (its `pageMs`) of work on this thread, which runs below the readers' priority (service.ts).
 */
import type { SearchOutcome, SearchRequest, SessionsSource } from './protocol';

export interface PagingTiming {
  /** A request this soon after the reply whose cursor it continues comes from a caller paging without pause. */
  pauseMs: number;
  /** A page computed ahead is served until this long after it was done. */
  freshMs: number;
}

export const PAGING: PagingTiming = { pauseMs: 50, freshMs: 1000 };

export type SessionsRequest = SearchRequest & { source: SessionsSource };

interface Ahead {
  key: string;
  id: number;
  /** Undefined when it failed or was stopped: the page is then computed on request. */
  outcome: Promise<SearchOutcome | undefined>;
  doneAt?: number;
}

export class PagesAhead {
  private ahead: Ahead | undefined;
  /** The last reply that had a cursor: the key of the page it continues to, and when it went. */
  private last: { nextKey: string; at: number } | undefined;
  /** A request waiting on a page computed ahead: a cancel of it stops that page. */
  private adopted: { requestId: number; aheadId: number } | undefined;
  private ids = 0;

  constructor(
    private readonly run: (request: SessionsRequest) => Promise<SearchOutcome>,
    private readonly stop: (id: number, stopped: boolean) => void,
    private readonly timing: PagingTiming = PAGING,
  ) {}

  /** The page `request` asks for, which arrived at `arrivedAt` (performance.now()). */
  async page(request: SessionsRequest, arrivedAt: number): Promise<SearchOutcome> {
    const ahead = this.ahead;
    this.ahead = undefined;
    if (ahead) {
      const fresh = ahead.key === pageKey(request) && (ahead.doneAt === undefined || arrivedAt - ahead.doneAt <= this.timing.freshMs);
      if (fresh) this.adopted = { requestId: request.id, aheadId: ahead.id };
      else this.stop(ahead.id, true);
      const outcome = await ahead.outcome;
      this.adopted = undefined;
      this.stop(ahead.id, false);
      if (fresh && outcome) return outcome;
    }
    return this.run(request);
  }

  /** Called once `outcome`, the page `request` asked for, has gone back: may start the page after it. */
  replied(request: SessionsRequest, outcome: SearchOutcome, arrivedAt: number): void {
    const unpaused = this.last?.nextKey === pageKey(request) && arrivedAt - this.last.at < this.timing.pauseMs;
    const next = outcome.across?.next;
    const following: SessionsRequest | undefined = next && { ...request, id: -++this.ids, source: { ...request.source, after: next } };
    this.last = following && { nextKey: pageKey(following), at: performance.now() };
    if (!following || !unpaused) return;
    const ahead: Ahead = {
      key: pageKey(following),
      id: following.id,
      outcome: this.run(following).then(
        (page) => page,
        () => undefined,
      ),
    };
    void ahead.outcome.then(() => (ahead.doneAt = performance.now()));
    this.ahead = ahead;
  }

  /** The caller cancelled request `id`: a page computed ahead that it waits on is stopped too. */
  cancelled(id: number): void {
    if (this.adopted?.requestId === id) this.stop(this.adopted.aheadId, true);
  }
}

/** What makes two requests ask for the same page (their ids aside). */
function pageKey({ pattern, options, timeoutMs, source }: SessionsRequest): string {
  const { sessions, perOutput, pageMs, after, warmOnly } = source;
  const cursor = after ? [after.createdAt, after.sessionId, after.outputId, after.from ?? null] : null;
  return JSON.stringify([pattern, options, timeoutMs, sessions, perOutput, pageMs, cursor, warmOnly ?? false]);
}
