// Issue 38 §3: the search worker keeps a bounded number of sessions' read-only views open between searches
// (src/core/workers/scanView.ts). A scope of more sessions than that still finds every match: a page reads every
// view it listed until it ends, so none is closed under it, and the extra ones are closed after it.
import assert from 'node:assert/strict';
import { compileSearch } from '../../src/core/search';
import { CHUNK_BYTES } from '../../src/core/store/chunks';
import { openStore } from '../../src/core/workers/stores';
import { scanSessions } from '../../src/core/workers/sessionScan';
import { viewCache, viewCounts } from '../../src/core/workers/scanView';
import { everyPage } from './helpers/scanPages';
import { useTempDirs } from './helpers/tempDirs';

const control = { cancelled: () => false, deadline: Infinity, timeoutMs: 0 };

/** Lines with `timeout` in two of three, over about `chunks` chunks. */
const text = (chunks: number, tag: string): Buffer =>
  Buffer.from(
    Array.from({ length: Math.ceil((chunks * CHUNK_BYTES) / 40) }, (_, n) => `${tag} ${n} ${n % 3 ? 'timeout' : 'ok'}\n`).join(''),
  );

const count = (copy: Buffer): number => copy.toString().split('timeout').length - 1;

describe('the search worker’s views, kept between searches (issue 38 §3)', function () {
  const dirs = useTempDirs('views');
  const limit = viewCache.limit;
  afterEach(() => (viewCache.limit = limit));

  it('a search across more sessions than the views kept finds every match, every page, and names none unreadable', async () => {
    const dir = dirs.make();
    const sessions: { sessionId: string; file: string }[] = [];
    let expected = 0;
    for (let s = 0; s < 5; s++) {
      const store = await openStore({ dir });
      for (const tag of [`s${s}a`, `s${s}b`]) {
        const copy = text(1 + (s % 2), tag);
        expected += count(copy);
        await store.retain(copy);
      }
      sessions.push({ sessionId: store.sessionId, file: store.file });
      await store.close();
    }
    const search = compileSearch('o', 'timeout', { caseSensitive: true, maxMatches: 700 });
    const every = async (): Promise<string[]> => {
      const pages = await everyPage({ kind: 'sessions', sessions, perOutput: 700, pageMs: 1e9 }, search);
      for (const page of pages) assert.deepEqual(page.across?.unreadable, []);
      return pages.flatMap((page) =>
        (page.across?.groups ?? []).flatMap((group) => group.matches.map((match) => `${group.output.outputId}@${match.offset}`)),
      );
    };
    // Views for two sessions of the five: each page lists all five and reads each until it ends, and the search's
    // five stay open for its next page: only its first page opens them.
    viewCache.limit = 2;
    const opened = viewCounts.opened;
    const few = await every();
    assert.equal(viewCounts.opened - opened, 5);
    assert.equal(few.length, expected);
    assert.equal(new Set(few).size, expected, 'no match twice');
    // Another scope's search closes the least recently used views past the limit, none that it reads.
    await scanSessions({ kind: 'sessions', sessions: sessions.slice(0, 1), perOutput: 700, pageMs: 1e9 }, search, control);
    const before = viewCounts.opened;
    await scanSessions({ kind: 'sessions', sessions: sessions.slice(0, 1), perOutput: 700, pageMs: 1e9 }, search, control);
    assert.equal(viewCounts.opened - before, 0, 'its own view stays open');
    await scanSessions({ kind: 'sessions', sessions: sessions.slice(1, 2), perOutput: 700, pageMs: 1e9 }, search, control);
    await scanSessions({ kind: 'sessions', sessions: sessions.slice(2, 3), perOutput: 700, pageMs: 1e9 }, search, control);
    const reopened = viewCounts.opened;
    await scanSessions({ kind: 'sessions', sessions: sessions.slice(0, 1), perOutput: 700, pageMs: 1e9 }, search, control);
    assert.equal(viewCounts.opened - reopened, 1, 'the least recently used was closed');
    // The same search with every view kept: the same matches, in the same order.
    viewCache.limit = limit;
    assert.deepEqual(await every(), few);
  });
});
