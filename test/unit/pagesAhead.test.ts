// Issue 38 §3: the search worker computes a search's next page while a caller that pages without pause
// reads this one (src/core/search/pagesAhead.ts). What a caller receives must be what it would have
// received without: the same pages, whatever it asks in between, and a cancel still stops its page.
import assert from 'node:assert/strict';
import { MessageChannel } from 'node:worker_threads';
import { scanFile } from '../../src/core/files/fileSearch';
import type { PagingTiming } from '../../src/core/search/pagesAhead';
import type { OutputKey, SearchOutcome, SearchRequest, SessionsSource } from '../../src/core/search/protocol';
import { serveSearches } from '../../src/core/search/service';
import { CHUNK_BYTES } from '../../src/core/store/chunks';
import { scanSessions } from '../../src/core/workers/sessionScan';
import { openStore } from '../../src/core/workers/stores';
import type { WorkerReply } from '../../src/core/worker/reply';
import { useTempDirs } from './helpers/tempDirs';

/** A copy of `chunks` chunks with `timeout` in most lines: pages of 300 matches end inside it. */
const text = (chunks: number, tag: string): Buffer =>
  Buffer.from(
    Array.from({ length: Math.ceil((chunks * CHUNK_BYTES) / 30) }, (_, n) => `${tag} ${n} ${n % 3 ? 'timeout' : 'ok'}\n`).join(''),
  );

/** A search worker's service on this thread, whose scans are logged (when each started, and from which cursor). */
function serve(paging: PagingTiming, gate?: (scan: number) => Promise<void> | undefined) {
  const { port1, port2 } = new MessageChannel();
  const scans: { at: number; after?: OutputKey }[] = [];
  let finished = 0;
  serveSearches(
    port1,
    scanFile,
    async (source, search, control) => {
      scans.push({ at: performance.now(), ...(source.after ? { after: source.after } : {}) });
      try {
        await gate?.(scans.length);
        return await scanSessions(source, search, control);
      } finally {
        finished++;
      }
    },
    paging,
  );
  const replies = new Map<number, (reply: WorkerReply) => void>();
  port2.on('message', (reply: WorkerReply) => replies.get(reply.id)?.(reply));
  let ids = 0;
  const ask = (pattern: string, source: SessionsSource, onSent?: (id: number) => void): Promise<SearchOutcome> => {
    const id = ++ids;
    const request: SearchRequest = {
      id,
      op: 'search',
      pattern,
      options: { caseSensitive: true, maxMatches: 300 },
      subject: 's',
      source,
      timeoutMs: 0,
    };
    return new Promise((resolve, reject) => {
      replies.set(id, (reply) =>
        reply.ok ? resolve(reply.result as SearchOutcome) : reject(Object.assign(new Error(reply.error.message), reply.error)),
      );
      sent.push(performance.now());
      port2.postMessage(request);
      onSent?.(id);
    });
  };
  const sent: number[] = [];
  const close = (): void => {
    port1.close();
    port2.close();
  };
  /** Resolves once every scan begun (a page ahead too) has ended. */
  const idle = async (): Promise<void> => {
    while (finished < scans.length) await new Promise((resolve) => setImmediate(resolve));
  };
  return { ask, scans, sent, idle, port: port2, close };
}

describe('a search across outputs computes its next page ahead for a caller that pages without pause (issue 38 §3)', function () {
  const dirs = useTempDirs('ahead');
  let sessions: SessionsSource['sessions'];

  before(async () => {
    const store = await openStore({ dir: dirs.make() });
    for (const t of [text(3, 'older'), text(2, 'newer')]) await store.retain(t);
    sessions = [{ sessionId: store.sessionId, file: store.file }];
    await store.close();
  });

  const source = (after?: OutputKey): SessionsSource => ({
    kind: 'sessions',
    sessions,
    perOutput: 300,
    pageMs: 1e9,
    ...(after ? { after } : {}),
  });

  /** Every page, each asked for as soon as the last came back (`settled`: once the page begun ahead of it, if any, ended). */
  async function everyPage(service: ReturnType<typeof serve>, settled = false): Promise<SearchOutcome[]> {
    const pages: SearchOutcome[] = [];
    let after: OutputKey | undefined;
    do {
      if (settled) await service.idle();
      const page = await service.ask('timeout', source(after));
      pages.push(page);
      after = page.across?.next;
    } while (after);
    return pages;
  }

  it('from the third page on, each page was begun before it was asked for, and the pages are those computed on request', async () => {
    // No pause is too short here (a busy machine delays the caller): what is tested is the paging, not the threshold.
    const ahead = serve({ pauseMs: Infinity, freshMs: Infinity });
    const onRequest = serve({ pauseMs: 0, freshMs: Infinity });
    try {
      const pages = await everyPage(ahead);
      assert.ok(pages.length > 5, `${pages.length} pages`);
      assert.deepEqual(pages, await everyPage(onRequest));
      // One scan per page, none wasted: the last page has no cursor, so nothing is begun after it.
      assert.equal(ahead.scans.length, pages.length);
      for (let k = 2; k < pages.length; k++) assert.ok(ahead.scans[k].at < ahead.sent[k], `page ${k + 1} begun ahead`);
      // A caller that pauses gets every page computed when it asks.
      assert.equal(onRequest.scans.length, pages.length);
      onRequest.scans.forEach((scan, k) => assert.ok(scan.at >= onRequest.sent[k], `page ${k + 1} on request`));
    } finally {
      ahead.close();
      onRequest.close();
    }
  });

  it('a page ahead is not served to another request, nor once it is older than freshMs: those are computed anew, the same', async () => {
    const reference = serve({ pauseMs: 0, freshMs: 0 });
    const expected = await everyPage(reference);
    reference.close();
    // Served never (freshMs -1: every page ahead has ended before it is asked for, and is too old), though begun.
    const stale = serve({ pauseMs: Infinity, freshMs: -1 });
    try {
      assert.deepEqual(await everyPage(stale, true), expected);
      assert.equal(stale.scans.length, 2 * expected.length - 2, 'each page after the second begun ahead, then again on request');
    } finally {
      stale.close();
    }
    // Another request comes between (another pattern): the page ahead is stopped, and the cursor's page is computed anew.
    const between = serve({ pauseMs: Infinity, freshMs: Infinity });
    try {
      const first = await between.ask('timeout', source());
      const second = await between.ask('timeout', source(first.across!.next));
      await between.ask('ok', { ...source(), perOutput: 5 });
      const third = await between.ask('timeout', source(second.across!.next));
      assert.deepEqual([first, second, third], expected.slice(0, 3));
      assert.deepEqual(
        between.scans.map((scan) => scan.after?.from ?? 0),
        [0, first.across!.next!.from, second.across!.next!.from, 0, second.across!.next!.from],
        'the third page begun ahead, then the other search, then the third page again',
      );
    } finally {
      between.close();
    }
  });

  it("a page ahead that fails is computed anew when asked for: the caller gets the page, not the page ahead's error", async () => {
    const reference = serve({ pauseMs: 0, freshMs: Infinity });
    const expected = await everyPage(reference);
    reference.close();
    // The third scan, the third page begun ahead, fails as a damaged segment would.
    const service = serve({ pauseMs: Infinity, freshMs: Infinity }, (scan) =>
      scan === 3 ? Promise.reject(new Error('the segment cannot be read')) : undefined,
    );
    try {
      assert.deepEqual(await everyPage(service), expected);
      assert.equal(service.scans[3].after?.from, service.scans[2].after?.from, 'the third page scanned again, on request');
    } finally {
      service.close();
    }
  });

  it('a cancel of a request waiting on its page ahead stops that page: CANCELLED', async () => {
    // The third scan (the third page, begun ahead) waits until its request and the cancel of it were sent.
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const service = serve({ pauseMs: Infinity, freshMs: Infinity }, (scan) => (scan === 3 ? held : undefined));
    try {
      const first = await service.ask('timeout', source());
      const second = await service.ask('timeout', source(first.across!.next));
      const third = service.ask('timeout', source(second.across!.next), (id) => {
        service.port.postMessage({ op: 'cancel', id });
        // Messages arrive in order: the request, then its cancel, then this one, whose reply says both were taken.
        void service.ask('ok', { ...source(), sessions: [] }).finally(release);
      });
      // Had the cancel not reached the page ahead, that page would have come back.
      await assert.rejects(third, (error: Error & { code?: string }) => error.code === 'CANCELLED');
    } finally {
      service.close();
    }
  });
});
