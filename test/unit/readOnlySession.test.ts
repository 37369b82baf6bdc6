// The read-only view of another process's session: never a torn state while a real writer process
// retains, removes and checkpoints in a loop; not a byte written; a torn journal tail ignored in
// place; refusals and errors with their codes.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { isRecallError } from '../../src/core/errors';
import { openReadOnlySession, type ReadOnlySession } from '../../src/core/store/readOnlySession';
import { openStore } from '../../src/core/store/sessionStore';
import { isRemoveStep, stateAfter, stepContent } from './helpers/retainingWriter';
import { useTempDirs } from './helpers/tempDirs';

const CHILD = path.join(__dirname, 'helpers/retainingWriterChild.ts');
const sha = (data: Uint8Array | string): string => createHash('sha256').update(data).digest('hex');
const stepOf = (title: string | undefined): number => Number(/^step (\d+)$/.exec(title ?? '')?.[1] ?? NaN);

/** Every file in `dir` with its size, times and content hash: what "not a byte written" compares. */
function folderImage(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .map((name) => {
      const file = path.join(dir, name);
      const st = statSync(file, { bigint: true });
      return `${name} ${st.ino} ${st.size} ${st.mtimeNs} ${sha(readFileSync(file))}`;
    });
}

async function rejectsWith(promise: Promise<unknown>, code: string, message: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(isRecallError(error), `expected a RecallError, got ${String(error)}`);
    assert.equal(error.code, code);
    assert.match(error.message, message);
    return true;
  });
}

/**
 * One view against the writer's history: the outputs present are exactly those after some step,
 * each of the right size; those not seen before read back byte for byte, and a few seen before
 * again (all of them would make views so slow that few would overlap the writes). Returns the step
 * the view shows.
 */
async function checkView(view: ReadOnlySession, verified = new Set<string>()): Promise<number> {
  const listed = await view.list();
  const steps = listed.map((info) => stepOf(info.title));
  assert.ok(
    steps.every((s) => Number.isInteger(s)),
    `unexpected titles: ${listed.map((i) => i.title).join(', ')}`,
  );
  const present = new Set(steps);
  assert.equal(present.size, steps.length, 'an output listed twice');
  const last = steps.length ? Math.max(...steps) : -1;
  // After the newest retain seen, the next step may be a removal that is seen too.
  const candidates = [last, ...(isRemoveStep(last + 1) ? [last + 1] : [])];
  const shown = candidates.find((k) => {
    const expected = stateAfter(k);
    return expected.size === present.size && [...expected].every((s) => present.has(s));
  });
  assert.ok(
    shown !== undefined,
    `torn view: steps ${[...present].sort((a, b) => a - b).join(',')} are no state of the writer (newest retain ${last})`,
  );
  const again = listed.filter((info) => verified.has(info.outputId)).sort(() => Math.random() - 0.5);
  for (const info of listed) {
    const step = stepOf(info.title);
    const expected = stepContent(step);
    assert.equal(info.totalBytes, Buffer.byteLength(expected), `size of step ${step}`);
    if (verified.has(info.outputId) && !again.slice(0, 3).includes(info)) continue;
    assert.equal(sha(await view.readAll(info.outputId)), sha(expected), `content of step ${step}`);
    verified.add(info.outputId);
  }
  if (listed[0]) {
    // A page from the middle of the newest (ASCII: any offset is a character boundary).
    const middle = Math.floor(listed[0].totalBytes / 2);
    const page = await view.read(listed[0].outputId, middle, 512);
    assert.equal(page.text, stepContent(stepOf(listed[0].title)).slice(middle, page.nextOffset));
  }
  return shown;
}

describe('read-only session view', function () {
  this.timeout(180_000);
  const dirs = useTempDirs('read-only');

  it('never shows a torn state while a real writer process retains, removes and checkpoints in a loop', async () => {
    const dir = dirs.make();
    const STEPS = 400;
    const child = spawn(process.execPath, ['-r', 'tsx/cjs', CHILD, dir, String(STEPS)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const lines = createInterface({ input: child.stdout });
    let done = false;
    const started = new Promise<string>((resolve) =>
      lines.on('line', (line) => {
        const message = JSON.parse(line) as { file?: string; done?: number };
        if (message.file) resolve(message.file);
        if (message.done !== undefined) done = true;
      }),
    );
    const file = await Promise.race([
      started,
      exited.then((code) => {
        throw new Error(`the writer exited (${code}) before starting: ${stderr}`);
      }),
    ]);
    const view = await openReadOnlySession(file);
    let views = 0;
    let changes = 0;
    let retried = 0;
    let fromJournal = 0;
    const shownSteps = new Set<number>();
    const verified = new Set<string>();
    try {
      while (!done) {
        if (await view.refresh()) {
          changes++;
          if (view.lastRead.attempts > 1) retried++;
          if (view.lastRead.journalRecords > 0) fromJournal++;
        }
        shownSteps.add(await checkView(view, verified));
        views++;
      }
      assert.equal(await exited, 0, stderr);
      await view.refresh();
      assert.equal(await checkView(view), STEPS - 1, 'the ended session shows the last step');
    } finally {
      await view.close();
      child.kill();
    }
    // Not timing: that the reads overlapped the writes at all (many distinct states seen).
    assert.ok(changes >= 10 && shownSteps.size >= 10, `only ${changes} changes and ${shownSteps.size} states seen in ${views} views`);
    // And that some views were taken between a retain and its checkpoint (records from the journal).
    assert.ok(fromJournal >= 1, `no view held journal records (${changes} changes)`);
    console.log(
      `      ${views} views checked, ${changes} changes, ${shownSteps.size} distinct writer states, ${fromJournal} with journal records, ${retried} read again after a checkpoint ran under the reader`,
    );
  });

  it('writes nothing: the folder is byte for byte the same after reading, and no lock is taken', async () => {
    const dir = dirs.make();
    const store = await openStore({ dir, checkpoints: 'manual' });
    await store.retain(stepContent(1), { title: 'step 1' });
    await store.flush();
    await store.retain(stepContent(2), { title: 'step 2' }); // in the journal only
    const before = folderImage(dir);
    const view = await openReadOnlySession(store.file);
    try {
      assert.deepEqual(
        (await view.list()).map((i) => i.title),
        ['step 2', 'step 1'],
      );
      for (const info of await view.list()) await view.readAll(info.outputId);
      await view.search((await view.list())[0].outputId, 'line 7');
      await view.refresh();
      await view.stats();
    } finally {
      await view.close();
    }
    assert.deepEqual(folderImage(dir), before);
    assert.ok(!readdirSync(dir).some((name) => name.endsWith('.lock')));
    await store.close();
  });

  it('reads the records before a torn journal tail and leaves the journal where it is', async () => {
    const dir = dirs.make();
    const store = await openStore({ dir, checkpoints: 'manual' });
    const kept = await store.retain('kept before the tear\n', { title: 'kept' });
    // Half of a record (the next append, cut short): magic, version, a header length, part of a header.
    appendFileSync(
      `${store.file}.journal`,
      Buffer.concat([Buffer.from('TORJ\x01', 'latin1'), Buffer.from([40, 0, 0, 0]), Buffer.from('{"op":"ret')]),
    );
    const journal = readFileSync(`${store.file}.journal`);
    const view = await openReadOnlySession(store.file);
    try {
      assert.deepEqual(
        (await view.list()).map((i) => i.outputId),
        [kept.outputId],
      );
      assert.equal((await view.read(kept.outputId)).text, 'kept before the tear\n');
      assert.equal((await view.stats()).journalBytes, journal.length);
    } finally {
      await view.close();
    }
    assert.deepEqual(readFileSync(`${store.file}.journal`), journal, 'the journal is not moved aside or cut');
    assert.ok(!readdirSync(dir).some((name) => name.includes('.torn-')));
    await store.close();
  });

  it('refreshes only when the files change, and then shows the new outputs', async () => {
    const dir = dirs.make();
    const store = await openStore({ dir });
    const view = await openReadOnlySession(store.file);
    try {
      assert.equal(await view.stale(), false);
      assert.equal(await view.refresh(), false);
      const { outputId } = await store.retain('new while the view is open\n', { title: 'new' });
      assert.equal(await view.stale(), true);
      assert.equal(await view.refresh(), true);
      assert.equal((await view.info(outputId)).title, 'new');
      assert.equal(view.sessionId, store.sessionId);
      assert.ok(view.createdAt && view.createdAt <= Date.now());
    } finally {
      await view.close();
      await store.close();
    }
  });

  it('refuses every change with REFUSED, and answers the reading errors the store answers', async () => {
    const dir = dirs.make();
    const store = await openStore({ dir });
    const { outputId } = await store.retain('x\n');
    const view = await openReadOnlySession(store.file);
    try {
      await rejectsWith(view.retain(), 'REFUSED', /belongs to another process .* shown read-only: VS Code does not retain outputs in it/);
      await rejectsWith(view.remove(), 'REFUSED', /does not remove outputs from it/);
      await rejectsWith(view.delete(), 'REFUSED', /does not delete it/);
      await rejectsWith(view.read('out_0123456789abcdef01234567'), 'NOT_FOUND', /No retained output/);
      await rejectsWith(view.read(outputId, 99), 'OFFSET_OUT_OF_RANGE', /./);
      assert.ok(view.has(outputId));
      assert.ok(!view.has('out_0123456789abcdef01234567'));
    } finally {
      await view.close();
    }
    await rejectsWith(view.list(), 'STORE_CLOSED', /is closed/);
    await store.close();
  });

  it('says why a session cannot be read: gone (NOT_FOUND), not a session file (STORE_UNAVAILABLE)', async () => {
    const dir = dirs.make();
    await rejectsWith(openReadOnlySession(path.join(dir, 'gone.sqlite')), 'NOT_FOUND', /is gone \(the session was deleted or pruned\)/);
    const bogus = path.join(dir, 'bogus.sqlite');
    writeFileSync(bogus, 'not a database at all');
    await rejectsWith(openReadOnlySession(bogus), 'STORE_UNAVAILABLE', /cannot be read/);
    assert.equal(readFileSync(bogus, 'utf8'), 'not a database at all');
  });
});
