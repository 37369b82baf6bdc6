// The search lane's policy and its worker plumbing (src/core/search/lane.ts on src/core/worker/host.ts),
// against a scripted search worker: what each search does is the text it carries, so a test can make a
// search answer, wait for its cancel, hang for ever, exit or throw, and see what the caller gets. The
// real search worker's searches are tested through the store (workerStore.test.ts).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { isRecallError, type RecallError, type RecallErrorCode } from '../../src/core/errors';
import { SearchLane, type LaneSearch } from '../../src/core/search/lane';
import type { SearchOutcome } from '../../src/core/search/protocol';
import { scaled, waitUntil } from '../unit/helpers/mochaRun';

const exec = promisify(execFile);

/** What the scripted worker adds to an outcome: its thread, and how many cancels it has received. */
type Outcome = SearchOutcome & { threadId: number; cancels: number };

const FAKE_WORKER = `
const { parentPort, threadId, workerData } = require('node:worker_threads');
if (workerData?.role !== 'search') throw new Error('started without the search role');
let cancels = 0;
const waiting = new Set();
const answer = (id) =>
  parentPort.postMessage({ id, ok: true, result: { matches: [], truncated: false, totalBytes: 0, threadId, cancels } });
parentPort.on('message', (message) => {
  if (message.op === 'cancel') {
    cancels++;
    if (waiting.delete(message.id))
      parentPort.postMessage({ id: message.id, ok: false, error: { code: 'CANCELLED', name: 'RecallError', message: 'cancelled in the worker' } });
    return;
  }
  const text = Buffer.concat(message.source.parts).toString();
  if (text === 'answer') answer(message.id);
  else if (text === 'later') setTimeout(() => answer(message.id), 300); // nothing but the worker holds the process meanwhile
  else if (text === 'wait') waiting.add(message.id); // until its cancel
  else if (text === 'hang') setImmediate(() => { for (;;); }); // a step that never ends
  else if (text === 'exit') process.exit(7);
  else if (text === 'throw') setImmediate(() => { throw new Error('scripted failure'); });
});
`;

const fails =
  (code: RecallErrorCode, check?: (error: RecallError) => void) =>
  (error: unknown): boolean => {
    assert.ok(isRecallError(error, code), `expected RecallError ${code}, got ${String(error)}`);
    check?.(error);
    return true;
  };

/** A search whose text is `texts[run]` on its run-th start (0, then 1 if it is re-run), counting its starts. */
function scripted(texts: string | string[], extra: Partial<LaneSearch> = {}): LaneSearch & { starts: number } {
  const list = Array.isArray(texts) ? texts : [texts];
  const search: LaneSearch & { starts: number } = {
    pattern: 'x',
    options: {},
    subject: 'test',
    timeoutMs: 0,
    starts: 0,
    source: async () => {
      const text: string = list[Math.min(search.starts++, list.length - 1)];
      return { source: { kind: 'bytes' as const, parts: [Buffer.from(text)] } };
    },
    ...extra,
  };
  return search;
}

describe('search lane', function () {
  let dir: string;
  let workerPath: string;
  const lanes: SearchLane[] = [];
  const lane = (): SearchLane => {
    const acquired = SearchLane.acquire(workerPath, []);
    lanes.push(acquired);
    return acquired;
  };
  const run = async (on: SearchLane, search: LaneSearch): Promise<Outcome> => (await on.search(search)) as Outcome;

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'recall-lane-'));
    workerPath = path.join(dir, 'fakeSearchWorker.js'); // a path of its own: a lane of its own
    await fs.writeFile(workerPath, FAKE_WORKER);
  });

  afterEach(async () => {
    for (const each of lanes.splice(0)) each.release();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('runs searches in one worker started in the search role, each answered once', async () => {
    const searches = lane();
    const [first, second] = await Promise.all([run(searches, scripted('answer')), run(searches, scripted('answer'))]);
    assert.ok(first.threadId > 0);
    assert.equal(second.threadId, first.threadId);
  });

  it('a worker that exits fails the searches in it with STORE_UNAVAILABLE; the next search starts a fresh one', async () => {
    const searches = lane();
    const before = (await run(searches, scripted('answer'))).threadId;
    const reason = 'it exited with code 7';
    const stopped = fails('STORE_UNAVAILABLE', (error) => {
      assert.equal(error.message, `The search worker stopped unexpectedly (${reason}). Search again: a fresh worker starts.`);
      assert.deepEqual(error.details, { reason });
    });
    const waiting = searches.search(scripted('wait'));
    await assert.rejects(searches.search(scripted('exit')), stopped);
    await assert.rejects(waiting, stopped);
    const after = (await run(searches, scripted('answer'))).threadId;
    assert.notEqual(after, before);
  });

  it('an uncaught error in the worker reads "it crashed", even before its first answer', async () => {
    await assert.rejects(
      lane().search(scripted('throw')),
      fails('STORE_UNAVAILABLE', (error) =>
        assert.equal(
          error.message,
          'The search worker stopped unexpectedly (it crashed: scripted failure). Search again: a fresh worker starts.',
        ),
      ),
    );
  });

  it('a worker that cannot be started fails the search with STORE_UNAVAILABLE', async () => {
    const searches = SearchLane.acquire(workerPath, ['--no-such-node-option']);
    lanes.push(searches);
    await assert.rejects(
      searches.search(scripted('answer')),
      fails('STORE_UNAVAILABLE', (error) =>
        assert.match(error.message, /^The search worker stopped unexpectedly \(it could not be started: /),
      ),
    );
  });

  it('a cancel reaches the worker by the search id, the search ends CANCELLED and the worker stays', async () => {
    const searches = lane();
    const before = await run(searches, scripted('answer'));
    const stop = new AbortController();
    const waiting = scripted('wait', { signal: stop.signal });
    const cancelled = searches.search(waiting);
    await waitUntil('the waiting search fetched its text', () => waiting.starts === 1);
    await new Promise(setImmediate); // its text in hand, it is sent on the same turn
    stop.abort();
    await assert.rejects(cancelled, fails('CANCELLED'));
    // The worker answers the cancel (the lane would end it past the grace otherwise); the next search sees it.
    const after = await run(searches, scripted('answer'));
    assert.equal(after.threadId, before.threadId);
    assert.equal(after.cancels, 1);
  });

  it('runs at most 4 at once, fetching a text only when its search is about to run', async () => {
    const searches = lane();
    const stops = Array.from({ length: 6 }, () => new AbortController());
    const waiting = stops.map((stop) => scripted('wait', { signal: stop.signal }));
    const results = waiting.map((search) => searches.search(search).catch((error: RecallError) => error.code));
    assert.deepEqual(
      waiting.map((search) => search.starts),
      [1, 1, 1, 1, 0, 0],
    );
    stops[4].abort(); // waiting: it never reaches the worker
    stops[0].abort(); // running: once the worker answers its cancel, the sixth starts
    await waitUntil('the sixth search fetched its text', () => waiting[5].starts === 1);
    assert.equal(waiting[4].starts, 0);
    for (const stop of stops) stop.abort();
    assert.deepEqual(await Promise.all(results), Array(6).fill('CANCELLED'));
  });

  it('a search that does not stop gets TIMEOUT; its worker is ended and the others in it run again in a fresh one', async function () {
    this.timeout(scaled(30_000));
    const searches = lane();
    const before = (await run(searches, scripted('answer'))).threadId;
    const other = scripted(['wait', 'answer']); // waits in the first worker, answers in the next
    const rerun = run(searches, other);
    await assert.rejects(
      searches.search(scripted('hang', { timeoutMs: 100 })),
      fails('TIMEOUT', (error) => assert.match(error.message, /^The search took longer than 0\.1 s and was stopped/)),
    );
    const after = (await rerun).threadId;
    assert.equal(other.starts, 2, 'the other search fetched its text again for its re-run');
    assert.notEqual(after, before);
    assert.equal((await run(searches, scripted('answer'))).threadId, after, 'later searches go to the fresh worker');
  });

  it('keeps the process alive while a search is in flight, and not once the lane is idle', async function () {
    this.timeout(scaled(60_000));
    // A process whose only work is one search that the worker answers 300 ms later, with the lane
    // never released: it must print the answer (the worker held the process), then exit by itself.
    const program = `
      const { SearchLane } = require(${JSON.stringify(path.join(__dirname, '../../src/core/search/lane.ts'))});
      const lane = SearchLane.acquire(${JSON.stringify(workerPath)}, []);
      const source = async () => ({ source: { kind: 'bytes', parts: [Buffer.from('later')] } });
      lane.search({ pattern: 'x', options: {}, subject: 'test', timeoutMs: 0, source }).then((outcome) => console.log('answered', outcome.threadId > 0));
    `;
    const { stdout } = await exec(process.execPath, ['--require', require.resolve('tsx/cjs'), '-e', program], { timeout: scaled(30_000) });
    assert.equal(stdout.trim(), 'answered true');
  });
});
