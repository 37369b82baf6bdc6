// A running command's progress (src/core/capture/progress.ts) from real commands: the bytes so far
// while a command runs and its last bytes when it ends, and no change at all to the command's result
// or copy. The tracker and the registry of running calls, in process: test/unit/runningCommands.test.ts.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { PROGRESS_TAIL_BYTES, type CaptureProgress } from '../../src/core/capture/progress';
import { runCommand, runCommandTool, type RunCommandResult } from '../../src/core/tools/runCommand';
import type { SessionStore } from '../../src/core/store/sessionStore';
import { openStore } from '../../src/core/workers/stores';
import { eventually } from '../unit/helpers/processes';
import { useTempDirs } from '../unit/helpers/tempDirs';

/** The result without what differs between two runs of the same command (time, the new outputId). */
const comparable = (result: RunCommandResult): unknown => {
  const { durationMs: _duration, outputId, ...rest } = result;
  return { ...rest, preview: outputId ? rest.preview.split(outputId).join('out_X') : rest.preview };
};

describe('running commands: progress and the registry', () => {
  const dirs = useTempDirs('running');

  describe('captureCommand with onProgress', () => {
    let store: SessionStore;
    before(async () => {
      store = await openStore({ dir: dirs.make() });
    });
    after(async () => {
      await store.close();
    });

    it('tells the bytes so far while the command runs, and its last bytes when it ends', async () => {
      const dir = dirs.make();
      const go = path.join(dir, 'go');
      const reports: CaptureProgress[] = [];
      const running = runCommand(
        {
          command: `echo to-stderr >&2; seq 1 40000; while [ ! -e ${JSON.stringify(go)} ]; do sleep 0.02; done; echo LAST`,
          onProgress: (p) => reports.push(p),
        },
        store,
      );
      const seqBytes = Buffer.byteLength(`${Array.from({ length: 40000 }, (_, i) => i + 1).join('\n')}\n`);
      assert.ok(await eventually(() => reports.some((p) => p.totalBytes === 10 + seqBytes), 20_000), 'a report while the command waits');
      const waiting = reports[reports.length - 1];
      assert.equal(waiting.done, false);
      assert.equal(waiting.tail.length, PROGRESS_TAIL_BYTES, 'the tail is bounded');
      assert.equal(waiting.stderrBytes, 10);
      assert.match(waiting.tail.toString('latin1'), /\n39999\n40000\n/);
      writeFileSync(go, '');
      const result = await running;
      const last = reports[reports.length - 1];
      assert.equal(last.done, true);
      assert.equal(reports.filter((p) => p.done).length, 1);
      assert.equal(last.totalBytes, result.merged.totalBytes);
      assert.equal(last.stdoutBytes, result.stdout.totalBytes);
      assert.equal(last.stderrBytes, result.stderr.totalBytes);
      assert.ok(result.outputId);
      const copy = await store.readAll(result.outputId);
      assert.deepEqual(last.tail, copy.subarray(-PROGRESS_TAIL_BYTES), "the tail is the copy's last bytes");
      assert.ok(
        reports.every((p) => p.tail.length <= PROGRESS_TAIL_BYTES),
        'no report carries more than the tail',
      );
    });

    it('changes nothing in the result, the retained copy or the text the model gets', async () => {
      const command = 'seq 1 60000 | sed "s/^/row /"; echo an error line >&2; exit 3';
      const context = { store, baseDir: dirs.make(), defaultTimeoutSeconds: 60, previewBytes: 4096, streamBytes: 1 << 20 };
      const plain = await runCommandTool({ command }, context);
      let reports = 0;
      const watched = await runCommandTool({ command }, { ...context, onProgress: () => reports++ });
      assert.ok(reports > 0);
      assert.deepEqual(comparable(watched.result), comparable(plain.result));
      const text = (run: typeof plain) =>
        run.text
          .split(run.result.outputId!)
          .join('out_X')
          .replace(/; [\d.]+ s\n/, '\n');
      assert.equal(text(watched), text(plain));
      assert.deepEqual(await store.readAll(watched.result.outputId!), await store.readAll(plain.result.outputId!));
    });
  });
});
