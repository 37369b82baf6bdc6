import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { SessionStore } from '../../src/core/store/sessionStore';
import { openStore } from '../../src/core/workers/stores';
import { listSessions, sessionFile } from '../../src/core/store/sessionFiles';
import { gapMarker } from '../../src/core/bytes';
import { DEFAULT_LIMITS, MiB } from '../../src/core/limits';
import type { RecallError } from '../../src/core/errors';
import { readThrough, rejectsWith, outputCounts } from './helpers/assertions';
import { LineTally } from '../../src/core/previewSource';
import { storedChunks } from './helpers/storedChunks';
import { useTempDirs } from './helpers/tempDirs';

const OUTPUT_ID = /^out_[0-9a-f]{24}$/;

/** A NOT_FOUND message with the ID taken out, so two of them can be compared. */
const shapeOf = (error: RecallError, outputId: string): string => error.message.split(outputId).join('<id>');

describe('store: retention in the session file', () => {
  const dirs = useTempDirs('store');

  it('retains a copy durably in <dir>/<sessionId>.sqlite, chunked and deflated, under an unguessable ID', async () => {
    const dir = dirs.make();
    const store = await openStore({ dir });
    assert.equal(store.copyBytes, DEFAULT_LIMITS.copyBytes);
    assert.equal(store.copyBytes, 8 * MiB);
    assert.equal(store.quotaBytes, 64 * MiB);
    assert.equal(store.file, sessionFile(dir, store.sessionId));
    const text = Array.from({ length: 20_000 }, (_, i) => `log line ${i}: everything is fine\n`).join('');
    const noise = randomBytes(100_000);
    const retained = await store.retain(text, { tool: 'run_command', title: 'make', extra: { exitCode: 0 } });
    const binary = await store.retain(noise);
    assert.match(retained.outputId, OUTPUT_ID);
    assert.notEqual(retained.outputId, binary.outputId);
    assert.deepEqual({ ...retained, outputId: '' }, { outputId: '', totalBytes: Buffer.byteLength(text), complete: true, droppedBytes: 0 });
    // Durable on return in the journal (see storeJournal.test.ts); a checkpoint (in the background, or
    // flush()) writes the copies into the session file and drops the journal.
    await store.flush();
    assert.deepEqual(
      readdirSync(dir).filter((name) => name.includes('.journal')),
      [],
      'the checkpoint dropped the journal',
    );
    const file = store.file;
    assert.equal(readFileSync(file).subarray(0, 16).toString('latin1'), 'SQLite format 3\0');
    const chunks = await storedChunks(file);
    const textChunks = chunks.filter((c) => c.output_id === retained.outputId);
    const binaryChunks = chunks.filter((c) => c.output_id === binary.outputId);
    assert.equal(textChunks.length, Math.ceil(Buffer.byteLength(text) / 65_536));
    assert.ok(
      textChunks.every((c) => c.codec === 1 && c.size < 65_536 / 2),
      'text chunks are deflated',
    );
    assert.equal(binaryChunks.length, 2);
    assert.ok(
      binaryChunks.every((c) => c.codec === 0),
      'incompressible chunks are stored raw',
    );
    assert.ok(
      readdirSync(dir).every((name) => !name.endsWith('.tmp')),
      'no temporary file is left behind',
    );
    const info = await store.info(retained.outputId);
    assert.equal(info.tool, 'run_command');
    assert.equal(info.title, 'make');
    // With the line facts the store counted at retain (its caller gave none): the inspector numbers lines from them.
    assert.deepEqual(info.extra, { exitCode: 0, lines: new LineTally().write(Buffer.from(text)).facts() });
    assert.equal((await readThrough(store, retained.outputId)).text, text);
    assert.deepEqual(await store.readAll(binary.outputId), noise);
    await store.delete();
  });

  it('caps a copy at copyBytes: head and tail around an explicit gap marker, complete=false, droppedBytes', async () => {
    const store = await openStore({ dir: dirs.make(), copyBytes: 8192, quotaBytes: 65_536 });
    const original = Buffer.from(Array.from({ length: 5000 }, (_, i) => `row ${i}\n`).join(''));
    const retained = await store.retain(original);
    assert.equal(retained.complete, false);
    assert.ok(retained.totalBytes <= 8192);
    const copy = await store.readAll(retained.outputId);
    assert.equal(copy.length, retained.totalBytes);
    const info = await store.info(retained.outputId);
    assert.equal(info.complete, false);
    assert.equal(info.droppedBytes, retained.droppedBytes);
    const gap = info.gapOffset!;
    assert.ok(gap > 3000, `gapOffset ${gap}`);
    const marker = Buffer.from(gapMarker(retained.droppedBytes, original.length));
    assert.deepEqual(copy.subarray(gap, gap + marker.length), marker);
    assert.match(marker.toString(), /dropped here/);
    const head = copy.subarray(0, gap);
    const tail = copy.subarray(gap + marker.length);
    assert.deepEqual(head, original.subarray(0, head.length));
    assert.deepEqual(tail, original.subarray(original.length - tail.length));
    assert.equal(retained.droppedBytes, original.length - head.length - tail.length);
    // The last page of an incomplete copy: no more to read, and still complete=false.
    const paged = await readThrough(store, retained.outputId);
    const last = paged.pages[paged.pages.length - 1].page;
    assert.equal(last.hasMore, false);
    assert.equal(last.complete, false);
    assert.ok(paged.text.endsWith('row 4999\n'));
    await store.delete();
  });

  it('marks a copy incomplete when the producer says so, and adds its dropped bytes', async () => {
    const store = await openStore({ dir: dirs.make() });
    const retained = await store.retain('head…tail', { complete: false, droppedBytes: 1000, gapOffset: 4 });
    assert.equal(retained.complete, false);
    assert.equal(retained.droppedBytes, 1000);
    const info = await store.info(retained.outputId);
    assert.equal(info.gapOffset, 4);
    assert.equal((await store.read(retained.outputId)).complete, false);
    await store.delete();
  });

  it('evicts the oldest copies past the quota; reading one answers EVICTED, not NOT_FOUND', async () => {
    const dir = dirs.make();
    const store = await openStore({ dir, copyBytes: 8192, quotaBytes: 10_000 });
    const a = await store.retain('a'.repeat(4000));
    const b = await store.retain('b'.repeat(4000));
    assert.deepEqual(outputCounts(await store.stats()), { outputs: 2, retainedBytes: 8000, evicted: 0 });
    const c = await store.retain('c'.repeat(4000));
    const evicted = await rejectsWith(store.read(a.outputId), 'EVICTED');
    assert.match(evicted.message, /evicted/);
    assert.ok(evicted.message.includes(a.outputId));
    await rejectsWith(store.search(a.outputId, 'a'), 'EVICTED');
    await rejectsWith(store.readAll(a.outputId), 'EVICTED');
    assert.equal((await store.info(a.outputId)).evicted, true);
    assert.equal((await store.read(b.outputId)).text, 'b'.repeat(4000));
    assert.equal((await store.read(c.outputId)).text, 'c'.repeat(4000));
    assert.deepEqual(outputCounts(await store.stats()), { outputs: 2, retainedBytes: 8000, evicted: 1 });
    assert.deepEqual(
      (await store.list()).map((o) => [o.outputId, o.evicted]),
      [
        [c.outputId, false],
        [b.outputId, false],
        [a.outputId, true],
      ],
    );
    // A copy larger than the rest of the quota evicts several.
    const d = await store.retain('d'.repeat(8000));
    await rejectsWith(store.read(b.outputId), 'EVICTED');
    await rejectsWith(store.read(c.outputId), 'EVICTED');
    assert.equal((await store.read(d.outputId, 0, 10)).text, 'dddddddddd');
    // Eviction is durable: after a resume the copy is still EVICTED.
    await store.close();
    const resumed = await openStore({ dir, sessionId: store.sessionId, copyBytes: 8192, quotaBytes: 10_000 });
    await rejectsWith(resumed.read(a.outputId), 'EVICTED');
    assert.ok((await resumed.read(d.outputId)).text.startsWith('d'));
    await resumed.delete();
  });

  it('resumes: openStore({dir, sessionId}) after close() reads the same copies', async () => {
    const dir = dirs.make();
    const store = await openStore({ dir });
    const text = '日本語 😀 resume me\n'.repeat(10_000);
    const ids = await Promise.all([
      store.retain(text, { tool: 't', title: 'one' }),
      store.retain('two'),
      store.retain(Uint8Array.from([0xff, 0x41])),
    ]);
    await store.close();
    const resumed = await openStore({ dir, sessionId: store.sessionId });
    assert.equal(resumed.resumed, true);
    assert.deepEqual(resumed.openReport, {});
    assert.equal((await readThrough(resumed, ids[0].outputId)).text, text);
    assert.equal((await resumed.read(ids[1].outputId)).text, 'two');
    assert.equal((await resumed.read(ids[2].outputId)).text, '\uFFFDA');
    assert.deepEqual((await resumed.list()).map((o) => o.outputId).sort(), ids.map((r) => r.outputId).sort());
    assert.equal((await resumed.info(ids[0].outputId)).title, 'one');
    // New copies after a resume get new IDs and sort after the old ones.
    const later = await resumed.retain('later');
    assert.equal((await resumed.list())[0].outputId, later.outputId);
    await resumed.delete();
  });

  it('keeps every copy of a concurrent burst of retains', async () => {
    const dir = dirs.make();
    const store = await openStore({ dir });
    const results = await Promise.all(Array.from({ length: 25 }, (_, i) => store.retain(`copy ${i} `.repeat(1000))));
    assert.equal(new Set(results.map((r) => r.outputId)).size, 25);
    await store.close();
    const resumed = await openStore({ dir, sessionId: store.sessionId });
    for (const [i, r] of results.entries()) assert.ok((await resumed.read(r.outputId, 0, 20)).text.startsWith(`copy ${i} `));
    await resumed.delete();
  });

  it('removes one copy; its ID stops resolving', async () => {
    const store = await openStore({ dir: dirs.make() });
    const kept = await store.retain('kept');
    const gone = await store.retain('gone');
    await store.remove(gone.outputId);
    await rejectsWith(store.read(gone.outputId), 'NOT_FOUND');
    await rejectsWith(store.remove(gone.outputId), 'NOT_FOUND');
    assert.equal((await store.read(kept.outputId)).text, 'kept');
    await store.delete();
  });

  it('rejects bad options and bad content with INVALID_ARGUMENT', async () => {
    const dir = dirs.make();
    await rejectsWith(openStore({ dir: '' }), 'INVALID_ARGUMENT');
    await rejectsWith(openStore({ dir, copyBytes: 4095 }), 'INVALID_ARGUMENT');
    await rejectsWith(openStore({ dir, copyBytes: 8192, quotaBytes: 8191 }), 'INVALID_ARGUMENT');
    for (const sessionId of ['../escape', 'a/b', '', '.hidden', 'x'.repeat(65)])
      await rejectsWith(openStore({ dir, sessionId }), 'INVALID_ARGUMENT', sessionId);
    assert.deepEqual(readdirSync(dir), [], 'nothing was created for a bad session id');
    const store = await openStore({ dir });
    await rejectsWith(store.retain(42 as unknown as string), 'INVALID_ARGUMENT');
    await rejectsWith(store.read(''), 'INVALID_ARGUMENT');
    await store.delete();
  });

  it('removes temporary files left by a crashed (dead) process when a session opens', async () => {
    const dir = dirs.make();
    const store = await openStore({ dir });
    const { outputId } = await store.retain('survives');
    await store.close();
    let deadPid = 4_000_000;
    while (isAlive(deadPid)) deadPid++;
    const stale = path.join(dir, `.${path.basename(store.file)}.${deadPid}.deadbeef.tmp`);
    writeFileSync(stale, 'half-written');
    const resumed = await openStore({ dir, sessionId: store.sessionId });
    assert.equal(existsSync(stale), false);
    assert.equal((await resumed.read(outputId)).text, 'survives');
    await resumed.delete();
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('store: IDs resolve only in their own session', () => {
  const dirs = useTempDirs('store-ids');
  let dir: string;
  let store: SessionStore;
  let own: string;
  before(async () => {
    dir = dirs.make();
    store = await openStore({ dir });
    own = (await store.retain('mine')).outputId;
  });
  after(() => store.delete());

  async function notFoundShape(target: SessionStore, outputId: string): Promise<string> {
    const error = await rejectsWith(target.read(outputId), 'NOT_FOUND', outputId);
    await rejectsWith(target.search(outputId, 'x'), 'NOT_FOUND', outputId);
    await rejectsWith(target.info(outputId), 'NOT_FOUND', outputId);
    await rejectsWith(target.readAll(outputId), 'NOT_FOUND', outputId);
    return shapeOf(error, outputId);
  }

  it('IDs are random 96-bit tokens, never repeated', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 50; i++) ids.add((await store.retain(String(i))).outputId);
    assert.equal(ids.size, 50);
    for (const id of ids) assert.match(id, OUTPUT_ID);
  });

  it('an ID from another session gets the same NOT_FOUND as a made-up one', async () => {
    const other = await openStore({ dir });
    const theirs = (await other.retain('theirs')).outputId;
    const madeUp = await notFoundShape(store, 'out_000000000000000000000000');
    assert.equal(await notFoundShape(store, theirs), madeUp);
    assert.equal(await notFoundShape(other, own), madeUp);
    assert.equal((await other.read(theirs)).text, 'theirs');
    assert.equal((await store.read(own)).text, 'mine');
    await other.delete();
  });

  it('SQL-injection-shaped and malformed IDs are just NOT_FOUND', async () => {
    const madeUp = await notFoundShape(store, 'out_ffffffffffffffffffffffff');
    for (const id of [
      `' OR 1=1 --`,
      `out_' OR '1'='1`,
      `${own}' OR 1=1 --`,
      `${own} `,
      own.toUpperCase(),
      `"; DROP TABLE outputs; --`,
      'out_%',
      '*',
      own.slice(0, -1),
    ]) {
      assert.equal(await notFoundShape(store, id), madeUp, id);
    }
    assert.equal((await store.read(own)).text, 'mine', 'the table is intact');
  });

  it("fork(): a new session where the parent's IDs are NOT_FOUND; the parent keeps them", async () => {
    const fork = await store.fork();
    assert.notEqual(fork.sessionId, store.sessionId);
    assert.notEqual(fork.file, store.file);
    assert.equal(path.dirname(fork.file), dir);
    assert.equal(fork.quotaBytes, store.quotaBytes);
    const madeUp = await notFoundShape(fork, 'out_000000000000000000000000');
    assert.equal(await notFoundShape(fork, own), madeUp);
    assert.deepEqual(await fork.list(), []);
    const forked = (await fork.retain('forked')).outputId;
    assert.equal(await notFoundShape(store, forked), madeUp);
    assert.equal((await store.read(own)).text, 'mine');
    assert.equal((await fork.read(forked)).text, 'forked');
    await fork.delete();
    assert.equal((await store.read(own)).text, 'mine', 'deleting the fork leaves the parent alone');
  });

  it('delete(): removes the file; calls reject STORE_CLOSED; reopening the id starts empty', async () => {
    const doomed = await openStore({ dir });
    const id = (await doomed.retain('doomed')).outputId;
    assert.ok(existsSync(doomed.file));
    await doomed.delete();
    assert.equal(existsSync(doomed.file), false);
    await rejectsWith(doomed.read(id), 'STORE_CLOSED');
    await rejectsWith(doomed.search(id, 'x'), 'STORE_CLOSED');
    await rejectsWith(doomed.retain('more'), 'STORE_CLOSED');
    await rejectsWith(doomed.info(id), 'STORE_CLOSED');
    await rejectsWith(doomed.list(), 'STORE_CLOSED');
    await rejectsWith(doomed.stats(), 'STORE_CLOSED');
    await rejectsWith(doomed.remove(id), 'STORE_CLOSED');
    await rejectsWith(async () => doomed.fork(), 'STORE_CLOSED');
    await doomed.delete(); // idempotent
    const reopened = await openStore({ dir, sessionId: doomed.sessionId });
    assert.equal(reopened.resumed, false);
    assert.deepEqual(await reopened.list(), []);
    const madeUp = await notFoundShape(reopened, 'out_000000000000000000000000');
    assert.equal(await notFoundShape(reopened, id), madeUp);
    // ... and the deleted session's ID is not found anywhere else either.
    assert.equal(await notFoundShape(store, id), madeUp);
    await reopened.delete();
  });

  it('close(): calls reject STORE_CLOSED; close is idempotent', async () => {
    const closing = await openStore({ dir });
    const id = (await closing.retain('x')).outputId;
    await closing.close();
    await closing.close();
    await rejectsWith(closing.read(id), 'STORE_CLOSED');
    await rejectsWith(closing.retain('y'), 'STORE_CLOSED');
    const error = await rejectsWith(closing.list(), 'STORE_CLOSED');
    assert.match(error.message, /closed/);
    const again = await openStore({ dir, sessionId: closing.sessionId });
    assert.equal((await again.read(id)).text, 'x');
    await again.delete();
  });
});

describe('store: listSessions', () => {
  const dirs = useTempDirs('store-list');

  it('lists the session files of a folder, newest first, ignoring other files', async () => {
    const dir = dirs.make();
    assert.deepEqual(await listSessions(path.join(dir, 'missing')), []);
    const first = await openStore({ dir, sessionId: 'first' });
    await first.retain('1');
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = await openStore({ dir, sessionId: 'second' });
    await second.retain('2'.repeat(100_000));
    writeFileSync(path.join(dir, 'notes.txt'), 'x');
    writeFileSync(path.join(dir, 'first.sqlite.corrupt-123'), 'x');
    writeFileSync(path.join(dir, '.second.sqlite.1.ab.tmp'), 'x');
    const sessions = await listSessions(dir);
    assert.deepEqual(
      sessions.map((s) => s.sessionId),
      ['second', 'first'],
    );
    assert.equal(sessions[0].file, second.file);
    assert.ok(sessions[0].bytes > 0);
    assert.ok(sessions[0].modifiedAt >= sessions[1].modifiedAt);
    await first.delete();
    assert.deepEqual(
      (await listSessions(dir)).map((s) => s.sessionId),
      ['second'],
    );
    await second.delete();
  });
});
