// run_command hands its finished copy to a store worker by transfer, not by copy (issue 41 §1): the
// bytes are the worker's after the call, and a copy the worker could not keep is built again from the
// capture for the result that says so.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { openWorkerStore, type WorkerStore } from '../../src/core/workers/workerClient';
import { runCommand } from '../../src/core/tools/runCommand';
import type { RecallStore, RetainMeta } from '../../src/core/types';
import { useTempDirs } from '../unit/helpers/tempDirs';

interface Seen {
  content: string | Uint8Array;
  length: number;
  options: unknown;
}

/** The store, recording what each retain was handed (its length then) and with which options. */
function watched(store: WorkerStore, seen: Seen[]): RecallStore {
  const spy = Object.create(store) as WorkerStore;
  spy.retain = (content: string | Uint8Array, meta?: RetainMeta, options?: { transfer?: boolean }) => {
    seen.push({ content, length: content.length, options });
    return store.retain(content, meta, options);
  };
  return spy;
}

describe('run_command: the copy crosses to the store worker by transfer', function () {
  this.timeout(60_000);
  const dirs = useTempDirs('transfer');
  let work: string;
  before(() => {
    work = dirs.make();
  });

  it('hands over the finished copy (detached here), which the worker keeps whole', async () => {
    const store = await openWorkerStore({ dir: dirs.make() });
    try {
      const seen: Seen[] = [];
      const result = await runCommand({ command: 'seq 1 200000', cwd: work }, watched(store, seen));
      assert.equal(result.recovery, 'retained');
      assert.equal(seen.length, 1);
      assert.deepEqual(seen[0].options, { transfer: true });
      assert.equal(seen[0].length, result.merged.totalBytes);
      assert.equal(seen[0].content.length, 0, 'the buffer went to the worker');
      const copy = await store.readAll(result.outputId!);
      assert.ok(Buffer.from(copy).equals(execFileSync('seq', ['1', '200000'], { maxBuffer: 8 * 1024 * 1024 })));
    } finally {
      await store.close();
    }
  });

  it('a copy the worker could not keep: the result is built again from the capture, without an id', async () => {
    const dir = dirs.make();
    const store = await openWorkerStore({ dir });
    rmSync(dir, { recursive: true });
    writeFileSync(dir, 'x'); // the journal cannot be written now (ENOTDIR), in the worker, after the transfer
    try {
      const seen: Seen[] = [];
      const result = await runCommand({ command: 'seq 1 200000; echo TOTAL_SUMMARY=1', cwd: work }, watched(store, seen));
      assert.equal(seen[0].content.length, 0, 'the first bytes went to the worker');
      assert.deepEqual([result.recovery, result.outputId], ['unavailable', undefined]);
      assert.match(result.recoveryReason!, /ENOTDIR/);
      assert.ok(result.preview.startsWith('1\n2\n3\n'));
      assert.ok(result.preview.endsWith('199999\n200000\nTOTAL_SUMMARY=1\n'));
      assert.match(result.preview, /They were NOT retained \([^)]*ENOTDIR/);
    } finally {
      rmSync(dir, { force: true });
      mkdirSync(dir);
      await store.close().catch(() => undefined);
    }
  });
});
