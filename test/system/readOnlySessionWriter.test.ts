// The read-only view of another process's session never shows a torn state while a real writer
// process retains, removes and checkpoints in a loop. The view's other tests, in process:
// test/unit/readOnlySession.test.ts.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { openReadOnlySession, type ReadOnlySession } from '../../src/core/store/readOnlySession';
import { STORE_ENGINES } from '../../src/core/workers/stores';
import { isRemoveStep, stateAfter, stepContent } from '../unit/helpers/retainingWriter';
import { useTempDirs } from '../unit/helpers/tempDirs';

const CHILD = path.join(__dirname, '../unit/helpers/retainingWriterChild.ts');
const sha = (data: Uint8Array | string): string => createHash('sha256').update(data).digest('hex');
const stepOf = (title: string | undefined): number => Number(/^step (\d+)$/.exec(title ?? '')?.[1] ?? NaN);

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
    const view = await openReadOnlySession(file, STORE_ENGINES);
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
});
