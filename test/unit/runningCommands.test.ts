// A running command's progress (src/core/capture/progress.ts): counts, a bounded tail, reports a few
// times a second and a last one when it ends; and the window's registry of running calls
// (src/extension/running/runningCommands.ts) that the tree lists and cancels. Progress of real commands,
// and no change at all to the command's result or copy: test/system/runningCommands.test.ts.
import assert from 'node:assert/strict';
import { ProgressTracker, type CaptureProgress } from '../../src/core/capture/progress';
import { RunningCommands } from '../../src/extension/running/runningCommands';
import { revealRunningCommands } from '../../src/extension/running/runningReveal';
import { eventually } from './helpers/processes';
import { scaled } from './helpers/timeScale';

describe('running commands: progress and the registry', () => {
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
      const entry = registry.get(call.id)!;
      call.end('out_x', 42);
      assert.deepEqual(registry.list(), []);
      assert.deepEqual(entry.ended, { at: 42, cancelled: true, outputId: 'out_x' }, 'a watcher holding the entry learns how it ended');
      assert.equal(entry.totalBytes, 12, 'and keeps its last counts');
      assert.equal(registry.cancel(call.id), false, 'an ended call cannot be cancelled');
      call.progress({ totalBytes: 99, stdoutBytes: 99, stderrBytes: 0, tail: Buffer.alloc(0), done: true });
      assert.deepEqual(events, [undefined, call.id, call.id, undefined], 'start, progress, cancel, end; nothing after the end');
      const second = registry.start('true', new AbortController());
      assert.notEqual(second.id, call.id);
      const secondEntry = registry.get(second.id)!;
      second.end(undefined, 7);
      assert.deepEqual(secondEntry.ended, { at: 7, cancelled: false }, 'not cancelled, no copy');
    });
  });

  describe('revealRunningCommands', () => {
    it('reveals a call still running after the delay, once, without focus or selection; a quick one never', async () => {
      const registry = new RunningCommands();
      const reveals: unknown[] = [];
      const view = { reveal: (element: unknown, options: unknown) => (reveals.push({ element, options }), Promise.resolve()) };
      const watch = revealRunningCommands(view, registry, 30);
      const quick = registry.start('true', new AbortController());
      quick.end();
      const slow = registry.start('sleep 1000', new AbortController());
      slow.progress({ totalBytes: 1, stdoutBytes: 1, stderrBytes: 0, tail: Buffer.from('x'), done: false });
      assert.ok(await eventually(() => reveals.length > 1), 'the slow call is revealed');
      // Proving that nothing more comes: a few delays more.
      await new Promise((resolve) => setTimeout(resolve, scaled(120)));
      const options = { select: false, focus: false };
      assert.deepEqual(
        reveals,
        [
          { element: undefined, options },
          { element: { kind: 'running', id: slow.id }, options },
        ],
        'the view, then its item',
      );
      slow.end();
      watch.dispose();
    });
  });
});
