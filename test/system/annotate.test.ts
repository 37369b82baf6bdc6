// RecallStore.annotate: fields merged into an output's extra after it was retained (the text the
// model was given for it), journalled before they are applied, so they survive a crash like the copy.
// Here the parts with a process or a worker: a real run_command, and the store worker. The session
// store, the journal format and the read-only view, in process: test/unit/annotate.test.ts.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import type { RetainRecord } from '../../src/core/store/journal';
import { openStore } from '../../src/core/workers/stores';
import { openWorkerStore, type WorkerStore, type WorkerStoreOptions } from '../../src/core/workers/workerClient';
import { runCommandTool } from '../../src/core/tools/runCommand';
import { checkRefusals, extraOf, journalHeaders } from '../unit/helpers/annotate';
import { callerExtra, rejectsWith } from '../unit/helpers/assertions';
import { useTempDirs } from '../unit/helpers/tempDirs';

const WORKER = {
  workerPath: path.join(__dirname, '../../src/core/workers/entry.ts'),
  execArgv: ['--require', require.resolve('tsx/cjs')],
};

describe('annotate: fields merged into an output’s extra, durably', function () {
  this.timeout(60_000);
  const dirs = useTempDirs('annotate');

  describe('journal format', () => {
    it('a run_command copy and the text the model got are one journal record (the outputId is made before the retain)', async () => {
      const store = await openStore({ dir: dirs.make(), checkpoints: 'manual' });
      const { text, result } = await runCommandTool(
        { command: 'seq 1 50000' },
        { store, baseDir: dirs.make(), defaultTimeoutSeconds: 30, previewBytes: 4096, streamBytes: 8 * 1024 * 1024 },
      );
      const headers = journalHeaders(store.file);
      assert.deepEqual(
        headers.map((header) => [header.op, header.outputId]),
        [['retain', result.outputId]],
      );
      assert.equal((headers[0] as RetainRecord).meta.extra?.preview, text);
      assert.equal((await store.info(result.outputId!)).extra?.preview, text);
      await store.close();
    });
  });

  describe('worker store', () => {
    const opened: WorkerStore[] = [];
    const open = async (options: Partial<WorkerStoreOptions> & { dir: string }): Promise<WorkerStore> => {
      const store = await openWorkerStore({ ...WORKER, ...options });
      opened.push(store);
      return store;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((store) => store.close().catch(() => undefined)));
    });

    it('merges through the worker, shows it in info() and list(), and keeps it across a worker crash and a reopen', async () => {
      const dir = dirs.make();
      const store = await open({ dir });
      const { outputId } = await store.retain('through the worker\n', { extra: { exitCode: 2 } });
      await store.annotate(outputId, { preview: 'first', n: 1 });
      await store.annotate(outputId, { preview: 'second' });
      const merged = { exitCode: 2, preview: 'second', n: 1 };
      assert.deepEqual(await extraOf(store, outputId), merged);
      assert.deepEqual(
        (await store.list()).map((info) => callerExtra(info.extra)),
        [merged],
      );
      // Durable when annotate resolves: the worker dies (with or without a checkpoint behind it).
      await store.debugCrashWorker('exit').catch(() => undefined);
      await rejectsWith(store.info(outputId), 'STORE_UNAVAILABLE');
      const resumed = await open({ dir, sessionId: store.sessionId });
      assert.deepEqual(await extraOf(resumed, outputId), merged);
      await resumed.annotate(outputId, { n: 2 });
      await resumed.close();
      const again = await open({ dir, sessionId: store.sessionId });
      assert.deepEqual(await extraOf(again, outputId), { ...merged, n: 2 });
    });

    it('answers NOT_FOUND, EVICTED, INVALID_ARGUMENT and STORE_CLOSED as the session store does', async () => {
      const dir = dirs.make();
      const store = await open({ dir, copyBytes: 4096, quotaBytes: 8192 });
      const other = await open({ dir });
      const theirs = await other.retain('in the other session\n');
      await rejectsWith(store.annotate(theirs.outputId, { preview: 'x' }), 'NOT_FOUND');
      const first = await store.retain('1'.repeat(4000));
      await store.retain('2'.repeat(4000));
      const live = await store.retain('3'.repeat(4000));
      await checkRefusals(store, { evicted: first.outputId, live: live.outputId });
      await store.close();
      await rejectsWith(store.annotate(live.outputId, { preview: 'x' }), 'STORE_CLOSED');
    });
  });
});
