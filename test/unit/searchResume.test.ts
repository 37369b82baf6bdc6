// Issue 38 §3: a page of a search across outputs that fills up inside a copy ends there, and the next
// page goes on in that copy (src/core/workers/sessionScan.ts). The copy it was read whole for is kept
// for that next page only: every match comes once, in order, as one pass over the copy finds them.
import assert from 'node:assert/strict';
import { compileSearch } from '../../src/core/search';
import { CHUNK_BYTES } from '../../src/core/store/chunks';
import { loadSqlJs } from '../../src/core/store/sqljs';
import { openStore } from '../../src/core/workers/stores';
import { scanCounts, scanSessions } from '../../src/core/workers/sessionScan';
import { everyPage } from './helpers/scanPages';
import { useTempDirs } from './helpers/tempDirs';

const control = { cancelled: () => false, deadline: Infinity, timeoutMs: 0 };

/** Lines with `timeout` in most of them, over a few chunks: every chunk a candidate, so a copy is read whole. */
const text = (chunks: number, tag: string): Buffer =>
  Buffer.from(
    Array.from({ length: Math.ceil((chunks * CHUNK_BYTES) / 40) }, (_, n) => `${tag} ${n} ${n % 3 === 0 ? 'ok' : 'timeout'} ü\n`).join(''),
  );

/** Where each `timeout` of a copy is: its byte offset, its line and where that line starts. */
function everyMatch(copy: Buffer): { offset: number; line: number; lineOffset: number }[] {
  const found = [];
  let line = 1;
  let lineOffset = 0;
  for (let at = copy.indexOf('timeout'); at >= 0; at = copy.indexOf('timeout', at + 1)) {
    for (let n = copy.indexOf(0x0a, lineOffset); n >= 0 && n < at; n = copy.indexOf(0x0a, lineOffset)) {
      line++;
      lineOffset = n + 1;
    }
    found.push({ offset: at, line, lineOffset });
  }
  return found;
}

const where = ({ offset, line, lineOffset }: { offset: number; line: number; lineOffset: number }) => ({ offset, line, lineOffset });

describe('a search across outputs whose page ends inside a copy (issue 38 §3)', function () {
  const dirs = useTempDirs('resume');

  it('the next page goes on in the copy it ended in without reading it again, and finds what one pass over it finds', async () => {
    const store = await openStore({ dir: dirs.make() });
    const texts = [text(3, 'older'), text(2, 'newer')];
    for (const t of texts) await store.retain(t);
    const sessions = [{ sessionId: store.sessionId, file: store.file }];
    await store.close();
    const search = compileSearch('o', 'timeout', { caseSensitive: true, maxMatches: 500 });
    // Newest first, as a search across outputs takes them.
    const expected = [texts[1], texts[0]].flatMap(everyMatch);
    assert.ok(expected.length > 4000);

    const before = { ...scanCounts };
    // Unbounded per output (perOutput ≥ maxMatches): a full page ends inside the copy it is in.
    const every = await everyPage({ kind: 'sessions', sessions, perOutput: 500, pageMs: 1e9 }, search);
    const found = every.flatMap((page) => (page.across?.groups ?? []).flatMap((group) => group.matches));
    const pages = every.length;
    assert.deepEqual(found.map(where), expected);
    // Each copy read once: every page after the first starts inside a copy (the older one too is begun by a page that
    // went on in the newer), and goes on in it as kept.
    assert.ok(pages > 4);
    assert.equal(scanCounts.wholeCopies - before.wholeCopies, 2);
    assert.equal(scanCounts.windows - before.windows, 0);
    assert.equal(scanCounts.keptCopies - before.keptCopies, pages - 1);
  });

  it("reads each copy by the row and placements its page listed: no query of the session's index per copy", async () => {
    const store = await openStore({ dir: dirs.make() });
    for (const [k, t] of [text(2, 'a'), text(1, 'b'), text(2, 'c')].entries()) await store.retain(t, { title: `copy ${k}` });
    const sessions = [{ sessionId: store.sessionId, file: store.file }];
    await store.close();
    const search = compileSearch('o', 'timeout', { caseSensitive: true, maxMatches: 1000 });
    const source = { kind: 'sessions' as const, sessions, perOutput: 1000, pageMs: 1e9 };
    // The first page opens the view and lists the session (queries, once per version of its index).
    let after = (await scanSessions(source, search, control)).across?.next;
    const { Database } = await loadSqlJs();
    const prepare = Database.prototype.prepare;
    let queries = 0;
    Database.prototype.prepare = function (this: InstanceType<typeof Database>, ...args: Parameters<typeof prepare>) {
      queries++;
      return prepare.apply(this, args);
    };
    const before = { ...scanCounts };
    try {
      while (after) after = (await scanSessions({ ...source, after }, search, control)).across?.next;
    } finally {
      Database.prototype.prepare = prepare;
    }
    assert.ok(scanCounts.wholeCopies - before.wholeCopies >= 2, 'the later pages read copies');
    assert.equal(queries, 0);
  });

  it('a page that does not follow the one that ended in the copy reads it again, and finds the same', async () => {
    const store = await openStore({ dir: dirs.make() });
    const copy = text(2, 'only');
    await store.retain(copy);
    const sessions = [{ sessionId: store.sessionId, file: store.file }];
    await store.close();
    const search = compileSearch('o', 'timeout', { caseSensitive: true, maxMatches: 300 });
    const source = { kind: 'sessions' as const, sessions, perOutput: 300, pageMs: 1e9 };
    const first = await scanSessions(source, search, control);
    const after = first.across!.next;
    assert.ok(after?.from !== undefined, 'the first page ends inside the copy');
    // Another search's page comes between, one that ends after the copy (5 matches of it at most): the kept copy is let go.
    await scanSessions({ ...source, perOutput: 5 }, compileSearch('o', 'ok', { caseSensitive: true, maxMatches: 10 }), control);
    const before = { ...scanCounts };
    const second = await scanSessions({ ...source, after }, search, control);
    assert.equal(scanCounts.keptCopies - before.keptCopies, 0);
    assert.ok(scanCounts.windows - before.windows > 0, 'read again, from the chunk it resumes in');
    assert.deepEqual(
      [...first.across!.groups, ...second.across!.groups].flatMap((group) => group.matches.map(where)),
      everyMatch(copy).slice(0, 600),
    );
  });
});
