// Issue 38: an output whose id was lost is found by listing or searching every retained output:
// this session's, earlier sessions' and other agents' (read-only), with the seed's isolation kept
// (a bare outputId of another session stays NOT_FOUND). Real session files, a real worker store
// and the real search worker.
import assert from 'node:assert/strict';
import { readdirSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { OutputCatalog, type CatalogOptions } from '../../src/core/catalog/outputCatalog';
import { SearchLane } from '../../src/core/search/lane';
import { defaultExecArgv, defaultWorkerPath } from '../../src/core/worker/script';
import { invokeTool } from '../../src/core/tools/registry';
import type { ToolContext } from '../../src/core/tools/toolSpec';
import { resolveSettings } from '../../src/core/settings';
import { settingSchema } from '../../src/core/manifest';
import { SessionAgentNote } from '../../src/core/store/sessionAgent';
import { deleteSessionFiles } from '../../src/core/store/sessionFiles';
import { openStore } from '../../src/core/workers/stores';
import { openWorkerStore, type WorkerStore } from '../../src/core/workers/workerClient';
import { announceVsCodeSessions, announcedVsCodeSessions } from '../../src/core/agentStore';
import { waitUntil } from '../unit/helpers/mochaRun';
import { useTempDirs } from '../unit/helpers/tempDirs';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const settings = resolveSettings((key) => settingSchema(key)?.default);

/** The JSON lines of a tool's text (its last line is advice). */
const jsonLines = (text: string): Record<string, unknown>[] =>
  text
    .split('\n')
    .filter((line) => line.trimStart().startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('output catalog: list and search every retained output (issue 38)', function () {
  this.timeout(120_000);
  const dirs = useTempDirs('catalog');
  let dir: string;
  let current: WorkerStore;
  let agent: WorkerStore;
  let catalog: OutputCatalog;
  let earlierId: string;
  let agentId: string;
  const ids: Record<string, string> = {};

  const context = (): ToolContext => ({
    store: async () => current,
    catalog,
    settings,
    folders: [dir],
    signal: new AbortController().signal,
    log: quiet,
  });
  const call = async (name: string, input: unknown) => invokeTool(name, input, context());

  before(async () => {
    dir = dirs.make();
    // An earlier session of this front end, closed: a failing test run long ago.
    const earlier = await openStore({ dir });
    earlierId = earlier.sessionId;
    ids.earlierFail = (
      await earlier.retain(`${'compiling module\n'.repeat(5000)}FAIL test/orders.test.ts > totals\nTypeError: total is undefined\n`, {
        tool: 'run_command',
        title: 'npm test',
        extra: { exitCode: 1, firstNotable: 'FAIL test/orders.test.ts > totals' },
      })
    ).outputId;
    await earlier.close();
    // Another agent's session, still open by its owner (a live server): its newest copy only in its journal.
    agent = await openWorkerStore({ dir });
    agentId = agent.sessionId;
    const note = new SessionAgentNote(agent.file, () => undefined);
    await note.started();
    await note.client({ name: 'claude-code', version: '2.1' });
    ids.agentLog = (
      await agent.retain('server listening\nrequest id=req-7f3a91 failed: upstream timeout\n', {
        tool: 'claude-code:Bash',
        title: 'tail -n 200 server.log',
      })
    ).outputId;
    // This front end's current session: thirty commands after the one that matters.
    current = await openWorkerStore({ dir });
    ids.currentBuild = (
      await current.retain('build ok\nwarning: deprecated API used in src/a.ts\n', {
        tool: 'run_command',
        title: 'npm run build',
        extra: { exitCode: 0 },
      })
    ).outputId;
    for (let i = 0; i < 30; i++)
      await current.retain(`step ${i} done\n`, { tool: 'run_command', title: `echo step ${i}`, extra: { exitCode: 0 } });
    catalog = new OutputCatalog({ folders: async () => [{ dir }], current: async () => current });
  });
  // At the describe's level: a hook registered inside another is never run, and the stores' shared
  // worker then outlived this file (test/system/workerStore.test.ts saw it).
  after(async () => {
    await catalog?.close();
    await agent?.close();
    await current?.close();
  });

  it('lists this session by default, newest first, from the index alone', async () => {
    const run = await call('list_tool_outputs', { limit: 5 });
    assert.equal(run.isError, false, run.text);
    const [summary, ...rows] = jsonLines(run.text);
    assert.equal(summary.matching, 31);
    assert.equal(rows.length, 5);
    assert.equal(rows[0].command, 'echo step 29');
    assert.equal(rows[0].session, undefined, 'rows of this session name no session');
    assert.ok(typeof summary.nextCursor === 'string');
    // The cursor continues where the page stopped, with no row twice and none skipped.
    const seen = new Set(rows.map((row) => row.outputId));
    let cursor = summary.nextCursor as string | undefined;
    while (cursor) {
      const next = jsonLines((await call('list_tool_outputs', { limit: 7, cursor })).text);
      for (const row of next.slice(1)) {
        assert.ok(!seen.has(row.outputId), `row ${String(row.outputId)} twice`);
        seen.add(row.outputId);
      }
      cursor = next[0].nextCursor as string | undefined;
    }
    assert.equal(seen.size, 31);
    assert.ok(seen.has(ids.currentBuild));
  });

  it('lists every session with "all", naming other sessions and their agents, and filters', async () => {
    const all = jsonLines((await call('list_tool_outputs', { session: 'all', limit: 100 })).text);
    assert.equal(all[0].matching, 33);
    const agentRow = all.find((row) => row.outputId === ids.agentLog);
    assert.equal(agentRow?.session, agentId);
    assert.equal(agentRow?.agent, 'claude-code');
    const failed = jsonLines((await call('list_tool_outputs', { session: 'all', exit: 'failed' })).text);
    assert.deepEqual(
      failed.slice(1).map((row) => [row.outputId, row.session, row.exit, row.notable]),
      [[ids.earlierFail, earlierId, 1, 'FAIL test/orders.test.ts > totals']],
    );
    const byCommand = jsonLines((await call('list_tool_outputs', { session: 'all', command: 'NPM' })).text);
    assert.deepEqual(new Set(byCommand.slice(1).map((row) => row.outputId)), new Set([ids.earlierFail, ids.currentBuild]));
    const byAgent = jsonLines((await call('list_tool_outputs', { session: 'all', agent: 'Claude' })).text);
    assert.deepEqual(
      byAgent.slice(1).map((row) => row.outputId),
      [ids.agentLog],
    );
    const byTool = jsonLines((await call('list_tool_outputs', { session: agentId, tool: 'claude-code:Bash' })).text);
    assert.equal(byTool.length, 2);
    const recent = jsonLines((await call('list_tool_outputs', { session: 'all', sinceMinutes: 60, limit: 100 })).text);
    assert.equal(recent[0].matching, 33);
  });

  it('reads another session only when it is named, read-only; a bare id stays NOT_FOUND here', async () => {
    const bare = await call('read_tool_output', { outputId: ids.earlierFail });
    assert.equal(bare.isError, true);
    assert.match(bare.text, /^read_tool_output failed \(NOT_FOUND\): No retained output .* in this session\./);
    assert.match(bare.text, /list_tool_outputs \{"session":"all"\}/, 'the refusal says how to look for it');
    const named = await call('read_tool_output', { outputId: ids.earlierFail, session: earlierId, offset: 85_000 });
    assert.equal(named.isError, false, named.text);
    assert.match(named.text, /TypeError: total is undefined/);
    assert.match(named.text, new RegExp(`"session":"${earlierId}"|end of the output`));
    const searched = await call('search_tool_output', { outputId: ids.agentLog, session: agentId, pattern: 'req-7f3a91' });
    assert.equal(searched.isError, false, searched.text);
    assert.match(searched.text, new RegExp(`read_tool_output \\{"outputId":"${ids.agentLog}","session":"${agentId}"`));
    const unknown = await call('read_tool_output', { outputId: ids.earlierFail, session: 's20990101-abcdef123456' });
    assert.match(
      unknown.text,
      /^read_tool_output failed \(NOT_FOUND\): There is no session "s20990101-abcdef123456" in this workspace\. Sessions here/,
    );
  });

  it('searches every output: grouped by output, newest first, other sessions named, a page with a cursor', async () => {
    const here = await call('search_tool_output', { pattern: 'TypeError' });
    assert.equal(here.isError, false, here.text);
    const [none] = jsonLines(here.text);
    assert.equal(none.matches, 0);
    assert.match(here.text, /add "session":"all"/, 'a miss in this session says where else to look');

    const all = await call('search_tool_output', { pattern: 'TypeError|timeout', regex: true, session: 'all' });
    const [summary, ...lines] = jsonLines(all.text);
    assert.equal(summary.outputsWithMatches, 2);
    assert.equal(summary.outputsInScope, 33);
    assert.deepEqual(
      lines.filter((line) => 'outputId' in line).map((line) => [line.outputId, line.session]),
      [
        [ids.agentLog, agentId],
        [ids.earlierFail, earlierId],
      ],
    );
    const hit = lines.find((line) => String(line.text).startsWith('TypeError')) as { lineOffset: number };
    const read = await call('read_tool_output', { outputId: ids.earlierFail, session: earlierId, offset: hit.lineOffset, maxBytes: 30 });
    assert.match(read.text, /"text":"TypeError: total is undefined/);

    // Bounded per output and in all; the cursor reaches every output once.
    const perOutput = jsonLines(
      (await call('search_tool_output', { pattern: 'step', session: 'all', maxPerOutput: 1, maxMatches: 10 })).text,
    );
    assert.equal(perOutput[0].matches, 10);
    assert.ok(typeof perOutput[0].nextCursor === 'string');
    const outputs = new Set(perOutput.filter((line) => 'outputId' in line).map((line) => line.outputId));
    let cursor = perOutput[0].nextCursor as string | undefined;
    while (cursor) {
      const page = jsonLines(
        (await call('search_tool_output', { pattern: 'step', session: 'all', maxPerOutput: 1, maxMatches: 10, cursor })).text,
      );
      for (const line of page.filter((l) => 'outputId' in l)) {
        assert.ok(!outputs.has(line.outputId), 'an output on two pages');
        outputs.add(line.outputId);
      }
      cursor = page[0].nextCursor as string | undefined;
    }
    assert.equal(outputs.size, 30, 'every "step" output found once across the pages');
  });

  it('never cuts an output short to fill a page: each output gives its maxPerOutput, or all it has', async () => {
    const counts: number[] = [];
    let cursor: string | undefined;
    do {
      const page = jsonLines(
        (await call('search_tool_output', { pattern: 'e', maxPerOutput: 3, maxMatches: 5, ...(cursor ? { cursor } : {}) })).text,
      );
      for (const line of page.filter((l) => 'outputId' in l)) counts.push(line.matches as number);
      cursor = page[0].nextCursor as string | undefined;
    } while (cursor);
    // "step N done" holds "e" twice, the build's output more than 3 times: a page of 5 takes two outputs
    // and ends before a third would be cut short; each output gives all it has, or its 3.
    assert.deepEqual(
      [...counts].sort((a, b) => a - b),
      [...Array<number>(30).fill(2), 3],
    );
  });

  it("a run_command row names the output's first notable line, found in the part the preview omitted", async () => {
    const command = `node -e "for(let i=1;i<=3000;i++)console.log(i===1500?'ERROR: disk quota exceeded on /var/cache':'line '+i+' '+'x'.repeat(30))"`;
    const run = await call('run_command', { command });
    assert.equal(run.isError, false, run.text);
    assert.doesNotMatch(run.text, /firstNotable/, 'a fact for listings, not a word of the result');
    const [, row] = jsonLines((await call('list_tool_outputs', { limit: 1 })).text);
    assert.equal(row.command, command);
    assert.equal(row.exit, 0);
    assert.equal(row.notable, 'ERROR: disk quota exceeded on /var/cache');
  });

  it('refuses what does not fit together, and a cursor it did not give, saying what to do', async () => {
    const cases: [unknown, RegExp][] = [
      [{ pattern: 'x', outputId: ids.currentBuild, path: 'a.txt' }, /not both; give neither to search every retained output/],
      [{ pattern: 'x', path: 'a.txt', session: 'all' }, /a "path" is a file/],
      [{ pattern: 'x', outputId: ids.currentBuild, cursor: 'abc' }, /belong to a search of every output/],
      [{ pattern: 'x', cursor: 'not-a-cursor' }, /is not one search_tool_output gave: pass the "nextCursor"/],
      [{ pattern: 'x', session: 'no pe' }, /There is no session "no pe" in this workspace \(not a session id: one looks like/],
      [
        { pattern: 'x', session: 's20990101-abcdef123456' },
        /There is no session "s20990101-abcdef123456" in this workspace\. Sessions here, newest first: s/,
      ],
      [{ pattern: '(', regex: true, session: 'all' }, /INVALID_ARGUMENT/],
    ];
    for (const [input, expected] of cases) {
      const run = await call('search_tool_output', input);
      assert.equal(run.isError, true, JSON.stringify(input));
      assert.match(run.text, expected);
    }
    const badList = await call('list_tool_outputs', { cursor: 'eyJ4IjoxfQ' });
    assert.match(badList.text, /^list_tool_outputs failed \(INVALID_ARGUMENT\): cursor .* is not one list_tool_outputs gave/);
  });

  it('names a session it cannot read and searches the others', async () => {
    const broken = path.join(dir, 's20200101-bad000bad000.sqlite');
    writeFileSync(broken, 'not a database');
    try {
      const run = await call('search_tool_output', { pattern: 'req-7f3a91', session: 'all' });
      const [summary] = jsonLines(run.text);
      assert.equal(summary.outputsWithMatches, 1);
      assert.deepEqual(
        (summary.unreadable as { sessionId: string }[]).map((entry) => entry.sessionId),
        ['s20200101-bad000bad000'],
      );
    } finally {
      const { rmSync } = await import('node:fs');
      rmSync(broken, { force: true });
    }
  });

  describe('a page that fills up inside an output, and a copy that cannot be read', () => {
    /** A closed session of two copies in a segment each (a checkpoint each; a lone small segment is not merged into the next). */
    const twoCopies = async (extra: Partial<CatalogOptions> = {}) => {
      const other = dirs.make();
      const store = await openStore({ dir: other, checkpoints: 'manual' });
      const older = (await store.retain('alpha needle\n'.repeat(3000), { tool: 'run_command', title: 'older' })).outputId;
      await store.flush();
      const segments = () => readdirSync(other).filter((name) => /\.segment\.\d+$/.test(name));
      const [olderSegment] = segments();
      const newer = (await store.retain('beta needle\n'.repeat(3000), { tool: 'run_command', title: 'newer' })).outputId;
      await store.close();
      assert.equal(segments().length, 2);
      assert.ok(segments().includes(olderSegment));
      const own = new OutputCatalog({ folders: async () => [{ dir: other }], current: async () => current, ...extra });
      return { own, dir: other, sessionId: store.sessionId, older, newer, olderSegment: path.join(other, olderSegment) };
    };

    it('with maxPerOutput at or above maxMatches, no output is cut: the next page continues inside it, no match skipped or repeated', async () => {
      const { own, sessionId, older, newer } = await twoCopies();
      try {
        const seen: { outputId: string; offset: number }[] = [];
        let cursor: string | undefined;
        let pages = 0;
        do {
          const page = await own.searchAcross('needle', {
            session: sessionId,
            perOutput: 1000,
            maxMatches: 700,
            tool: 'search_tool_output',
            ...(cursor ? { cursor } : {}),
          });
          pages++;
          assert.ok(
            page.groups.every((group) => !group.truncated),
            'no output is cut: its rest is on the next page',
          );
          assert.ok(page.groups.reduce((sum, group) => sum + group.matches.length, 0) <= 700);
          for (const group of page.groups)
            for (const match of group.matches) seen.push({ outputId: group.output.outputId, offset: match.offset });
          cursor = page.cursor;
        } while (cursor);
        assert.equal(pages, Math.ceil(6000 / 700));
        const expected = [
          ...Array.from({ length: 3000 }, (_, i) => ({ outputId: newer, offset: i * 12 + 5 })),
          ...Array.from({ length: 3000 }, (_, i) => ({ outputId: older, offset: i * 13 + 6 })),
        ];
        assert.deepEqual(seen, expected);
      } finally {
        await own.close();
      }
    });

    it('warms its search worker once (every session read before the first search), and searches as before after it', async () => {
      const { own, sessionId, older, newer } = await twoCopies();
      try {
        const warming = own.warm();
        assert.equal(own.warm(), warming, 'once per catalog');
        await warming;
        const page = await own.searchAcross('needle', { session: 'all', perOutput: 2, maxMatches: 50, tool: 'search_tool_output' });
        assert.deepEqual(
          page.groups.filter((group) => group.output.sessionId === sessionId).map((group) => [group.output.outputId, group.matches.length]),
          [
            [newer, 2],
            [older, 2],
          ],
        );
      } finally {
        await own.close();
      }
    });

    it('holds a warm lane as long as its longest sign asks: a listing of the tools briefly, a use after it longer', async () => {
      const warmHolds = { 'tools listed': 30, use: 60_000 };
      const { own, dir, sessionId, newer } = await twoCopies({ warmHolds });
      const other = new OutputCatalog({ folders: async () => [{ dir }], current: async () => current, warmHolds });
      try {
        // Warmed by a listing of the tools only (an MCP server's start): let go after its short hold.
        await own.warm('tools listed');
        assert.equal(own.warmed, true);
        await waitUntil('the lane a listing warmed is let go', () => !own.warmed);
        // Warmed by a listing, then used: held by the use's hold, past a listing's. The other catalog is warmed by a
        // listing after both, so its hold ends after the first listing's would have.
        await own.warm('tools listed');
        await own.warm();
        await other.warm('tools listed');
        await waitUntil("another catalog's lane, warmed only by a listing after it, is let go", () => !other.warmed);
        assert.equal(own.warmed, true, 'a use after the listing holds the lane longer');
        const page = await own.searchAcross('needle', { session: sessionId, perOutput: 1, maxMatches: 1, tool: 'search_tool_output' });
        assert.deepEqual(
          page.groups.map((group) => group.output.outputId),
          [newer],
        );
      } finally {
        await other.close();
        await own.close();
      }
    });

    it("lets its own search worker, and the views in it, go when its lane is let go; the session store's stays", async () => {
      // A store and a catalog of their own (their workers' options differ from every other test's, harmlessly: tsx
      // required twice), so no other catalog shares the lane counted here; alike, as a front end's are.
      const workerPath = defaultWorkerPath();
      const execArgv = [...defaultExecArgv(workerPath), ...defaultExecArgv(workerPath)];
      const dir = dirs.make();
      const store = await openWorkerStore({ dir, execArgv });
      const own = new OutputCatalog({
        folders: async () => [{ dir }],
        current: async () => store,
        execArgv,
        warmHolds: { 'tools listed': 30 },
      });
      try {
        const { outputId } = await store.retain('a warning here\n', { tool: 'run_command', title: 'build' });
        // The store's searches of one copy have a search worker, held while the store is open.
        assert.equal((await store.search(outputId, 'warning')).matches.length, 1);
        const running = SearchLane.runningWorkers();
        await own.warm('tools listed');
        assert.equal(SearchLane.runningWorkers(), running + 1, 'the search across outputs runs in a worker of its own');
        await waitUntil('the lane a listing warmed is let go', () => !own.warmed);
        await waitUntil('its worker ends with it', () => SearchLane.runningWorkers() === running);
        assert.equal((await store.search(outputId, 'warning')).matches.length, 1, "the store's search worker runs on");
      } finally {
        await own.close();
        await store.close();
      }
    });

    it('a tool call warms the search worker once it is done, so a first call that searches does not share the worker with the warm-up', async () => {
      const { own } = await twoCopies();
      try {
        const order: string[] = [];
        const searchAcross = own.searchAcross.bind(own);
        own.searchAcross = async (...args) => {
          order.push('search starts');
          const page = await searchAcross(...args);
          order.push('search done');
          return page;
        };
        own.warm = () => {
          order.push('warm');
          return Promise.resolve();
        };
        const run = await invokeTool('search_tool_output', { pattern: 'needle', session: 'all' }, { ...context(), catalog: own });
        assert.equal(run.isError, false, run.text);
        assert.deepEqual(order, ['search starts', 'search done', 'warm']);
        // A call that fails is a sign of use too.
        await invokeTool('read_tool_output', { outputId: 'out_missing' }, { ...context(), catalog: own });
        assert.deepEqual(order.slice(3), ['warm']);
      } finally {
        await own.close();
      }
    });

    it('names a copy it cannot read (a damaged segment) and searches the other outputs', async () => {
      const { own, sessionId, older, newer, olderSegment } = await twoCopies();
      try {
        writeFileSync(olderSegment, Buffer.alloc(statSync(olderSegment).size));
        const page = await own.searchAcross('needle', { session: sessionId, perOutput: 5, maxMatches: 50, tool: 'search_tool_output' });
        assert.deepEqual(
          page.groups.map((group) => [group.output.outputId, group.matches.length]),
          [[newer, 5]],
        );
        assert.deepEqual(
          page.unreadable.map(({ sessionId: id, outputId }) => [id, outputId]),
          [[sessionId, older]],
        );
        assert.match(page.unreadable[0].reason, /cannot be read/);
        assert.equal(page.searchedOutputs, 1);
        // The tool's result names it too.
        const run = await invokeTool('search_tool_output', { pattern: 'needle', session: sessionId }, { ...context(), catalog: own });
        assert.equal(run.isError, false, run.text);
        assert.deepEqual(
          (jsonLines(run.text)[0].unreadable as { outputId: string }[]).map((entry) => entry.outputId),
          [older],
        );
      } finally {
        await own.close();
      }
    });
  });

  it("a search's next page takes the folders as they are: a session deleted since the last page is not searched, nor named unreadable", async () => {
    const folder = dirs.make();
    const made: string[] = [];
    for (const text of ['older needle\n', 'newer needle\n']) {
      const store = await openStore({ dir: folder });
      await store.retain(text, { tool: 'run_command', title: 'echo' });
      made.push(store.file);
      await store.close();
    }
    const own = new OutputCatalog({ folders: async () => [{ dir: folder }], current: async () => current });
    try {
      const first = await own.searchAcross('needle', { session: 'all', perOutput: 1, maxMatches: 1, tool: 'search_tool_output' });
      assert.deepEqual(
        first.groups.map((group) => group.matches[0].text),
        ['newer needle'],
      );
      assert.ok(first.cursor, 'the older output is on the next page');
      // The next page, again over the same folder: one page after another reuses the listing while the folder is unchanged.
      const again = await own.searchAcross('needle', {
        session: 'all',
        perOutput: 1,
        maxMatches: 1,
        tool: 'search_tool_output',
        cursor: first.cursor,
      });
      assert.deepEqual(
        again.groups.map((group) => group.matches[0].text),
        ['older needle'],
      );
      await deleteSessionFiles(made[0]);
      const next = await own.searchAcross('needle', {
        session: 'all',
        perOutput: 1,
        maxMatches: 1,
        tool: 'search_tool_output',
        cursor: first.cursor,
      });
      assert.deepEqual(next.groups, []);
      assert.deepEqual(next.unreadable, [], 'a session deleted is gone from the scope, not unreadable');
      assert.equal(next.cursor, undefined);
      // The segments a page held open (ScanView.beginPage) are closed when it ends: no descriptor of this process names one.
      const segmentsOpen = readdirSync('/proc/self/fd')
        .map((fd) => {
          try {
            return readlinkSync(`/proc/self/fd/${fd}`);
          } catch {
            return '';
          }
        })
        .filter((target) => /\.segment\.\d+/.test(target));
      assert.deepEqual(segmentsOpen, []);
    } finally {
      await own.close();
    }
  });

  it("finds VS Code's sessions from an agents' folder once a window announced them", async () => {
    const agents = dirs.make();
    assert.deepEqual(await announcedVsCodeSessions(agents), []);
    await announceVsCodeSessions(agents, dir);
    await announceVsCodeSessions(agents, '/elsewhere/sessions');
    assert.deepEqual(await announcedVsCodeSessions(agents), ['/elsewhere/sessions', dir]);
    writeFileSync(path.join(agents, 'vscode-sessions.json'), '{"dirs":["relative/path", 3]}');
    assert.deepEqual(await announcedVsCodeSessions(agents), [], 'only absolute folders are taken');
  });
});
