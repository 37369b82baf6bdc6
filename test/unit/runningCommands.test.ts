// A running command's progress (src/core/capture/progress.ts): counts, a bounded tail, reports a few
// times a second and a last one when it ends, and no change at all to the command's result or copy;
// and the window's registry of running calls (src/extension/running/runningCommands.ts) that the tree
// lists and cancels.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { captureCommand, type CommandResult } from '../../src/core/capture/captureCommand';
import { PROGRESS_TAIL_BYTES, ProgressTracker, type CaptureProgress } from '../../src/core/capture/progress';
import { runCommandTool } from '../../src/core/tools/runCommand';
import { openStore, type SessionStore } from '../../src/core/store/sessionStore';
import { RunningCommands } from '../../src/extension/running/runningCommands';
import { eventually } from './helpers/processes';
import { useTempDirs } from './helpers/tempDirs';

/** The result without what differs between two runs of the same command (time, the new outputId). */
const comparable = (result: CommandResult): unknown => {
  const { durationMs: _duration, outputId, ...rest } = result;
  return { ...rest, preview: outputId ? rest.preview.split(outputId).join('out_X') : rest.preview };
};

describe('running commands: progress and the registry', () => {
  const dirs = useTempDirs('running');

  describe('ProgressTracker', () => {
    it('counts each stream and keeps exactly the last bytes, never more than its tail size', () => {
      const reports: CaptureProgress[] = [];
      const tracker = new ProgressTracker((p) => reports.push(p), 1000, 0);
      const all: Buffer[] = [];
      for (let i = 0; i < 300; i++) {
        const chunk = Buffer.from(`line ${i} ${'x'.repeat(i % 37)}\n`);
        all.push(chunk);
        tracker.write(i % 5 === 0 ? 'stderr' : 'stdout', chunk);
        const last = reports[reports.length - 1];
        assert.ok(last.tail.length <= 1000);
        assert.deepEqual(last.tail, Buffer.concat(all).subarray(-1000));
      }
      // One chunk larger than the tail: only its end stays.
      const big = Buffer.alloc(5000, 'y');
      big.write('END', 4997);
      tracker.write('stdout', big);
      tracker.finish();
      const done = reports[reports.length - 1];
      const whole = Buffer.concat([...all, big]);
      assert.equal(done.done, true);
      assert.equal(done.totalBytes, whole.length);
      assert.equal(done.stderrBytes, Buffer.concat(all.filter((_, i) => i % 5 === 0)).length);
      assert.equal(done.stdoutBytes + done.stderrBytes, done.totalBytes);
      assert.deepEqual(done.tail, whole.subarray(-1000));
      // After the end nothing more is reported.
      tracker.write('stdout', Buffer.from('late'));
      tracker.finish();
      assert.equal(reports[reports.length - 1], done);
    });

    it('reports at most once per interval, the bytes of a burst after it, and once more when done', async () => {
      let now = 0;
      const reports: CaptureProgress[] = [];
      const tracker = new ProgressTracker(
        (p) => reports.push(p),
        64,
        40,
        () => now,
      );
      now = 100;
      tracker.write('stdout', Buffer.from('a'));
      assert.equal(reports.length, 1, 'the first bytes are reported at once');
      for (let i = 0; i < 50; i++) tracker.write('stdout', Buffer.from('b'));
      assert.equal(reports.length, 1, 'a burst waits for the interval');
      now = 140;
      assert.ok(await eventually(() => reports.length === 2), 'the burst is reported when the interval has passed');
      assert.equal(reports[1].totalBytes, 51);
      assert.equal(reports[1].done, false);
      tracker.finish();
      assert.equal(reports.length, 3);
      assert.equal(reports[2].done, true);
    });

    it("a listener's failure does not reach the writer", () => {
      const tracker = new ProgressTracker(() => {
        throw new Error('watcher broke');
      });
      tracker.write('stdout', Buffer.from('x'));
      tracker.finish();
    });
  });

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
      const running = captureCommand(
        {
          command: `echo to-stderr >&2; seq 1 20000; while [ ! -e ${JSON.stringify(go)} ]; do sleep 0.02; done; echo LAST`,
          onProgress: (p) => reports.push(p),
        },
        store,
      );
      const seqBytes = Buffer.byteLength(`${Array.from({ length: 20000 }, (_, i) => i + 1).join('\n')}\n`);
      assert.ok(await eventually(() => reports.some((p) => p.totalBytes === 10 + seqBytes), 20_000), 'a report while the command waits');
      const waiting = reports[reports.length - 1];
      assert.equal(waiting.done, false);
      assert.equal(waiting.tail.length, PROGRESS_TAIL_BYTES, 'the tail is bounded');
      assert.equal(waiting.stderrBytes, 10);
      assert.match(waiting.tail.toString('latin1'), /\n19999\n20000\n/);
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

  describe('RunningCommands', () => {
    it('lists a call from its start to its end, with its progress, and Cancel aborts its signal', () => {
      const registry = new RunningCommands();
      const events: (string | undefined)[] = [];
      registry.onDidChange((id) => events.push(id));
      const abort = new AbortController();
      const call = registry.start('sleep 1000', abort, 5);
      assert.deepEqual(
        registry.list().map((c) => [c.id, c.command, c.startedAt, c.totalBytes]),
        [[call.id, 'sleep 1000', 5, 0]],
      );
      call.progress({ totalBytes: 12, stdoutBytes: 10, stderrBytes: 2, tail: Buffer.from('tail'), done: false });
      assert.equal(registry.get(call.id)?.totalBytes, 12);
      assert.equal(registry.get(call.id)?.tail.toString(), 'tail');
      assert.equal(registry.cancel(call.id), true);
      assert.equal(abort.signal.aborted, true);
      assert.equal(registry.get(call.id)?.cancelling, true);
      call.end();
      assert.deepEqual(registry.list(), []);
      assert.equal(registry.cancel(call.id), false, 'an ended call cannot be cancelled');
      call.progress({ totalBytes: 99, stdoutBytes: 99, stderrBytes: 0, tail: Buffer.alloc(0), done: true });
      assert.deepEqual(events, [undefined, call.id, call.id, undefined], 'start, progress, cancel, end; nothing after the end');
      const second = registry.start('true', new AbortController());
      assert.notEqual(second.id, call.id);
    });
  });
});
