import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { notableMarks } from '../../src/core/notable/marks';
import { openWorkerStore } from '../../src/core/workers/workerClient';

const WORKER = {
  workerPath: path.join(__dirname, '../../src/core/workers/entry.ts'),
  execArgv: ['--require', require.resolve('tsx/cjs')],
};

describe('notable marks through the store worker (the inspector’s overview)', function () {
  it('are found on the store worker, the same as in process, for the whole copy', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'recall-marks-'));
    const store = await openWorkerStore({ dir, ...WORKER });
    try {
      const text = Array.from({ length: 3000 }, (_, i) => (i % 100 === 7 ? `error: case ${i} failed` : `line ${i}`)).join('\n');
      const { outputId } = await store.retain(text, { tool: 'run_command' });
      const marks = await store.notableMarks(outputId);
      assert.equal(marks.counts.error, 30);
      assert.deepEqual(marks, notableMarks(Buffer.from(text)));
    } finally {
      await store.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
