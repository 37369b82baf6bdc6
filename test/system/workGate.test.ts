// Issue 21, item 6: a bound on concurrent work. The gate alone (its order, its byte bound, an abort
// while waiting), then real commands and programs through the process-wide gates.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { runCommand } from '../../src/core/tools/runCommand';
import { COMMAND_GATE, MAX_CONCURRENT_SETTING, PROGRAM_GATE, WorkGate, defaultMaxConcurrent } from '../../src/core/capture/workGate';
import { KiB, MiB } from '../../src/core/limits';
import { runCodeTool } from '../../src/core/tools/runCode';
import { eventually } from '../unit/helpers/processes';
import { useTempDirs } from '../unit/helpers/tempDirs';

describe('work gate: the order and the bounds', () => {
  it('admits up to maxConcurrent at once, then first come first served as slots free', async () => {
    const gate = new WorkGate('jobs');
    gate.configure({ maxConcurrent: 2 });
    const order: number[] = [];
    const admissions = [1, 2, 3, 4].map((n) => gate.enter(0).then((admission) => (order.push(n), admission)));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(order, [1, 2]);
    assert.deepEqual({ running: gate.state().running, queued: gate.state().queued }, { running: 2, queued: 2 });
    const [first, second] = await Promise.all(admissions.slice(0, 2));
    assert.equal(first.waitedFor, undefined);
    first.release();
    first.release(); // twice frees one slot only
    const third = await admissions[2];
    assert.deepEqual(order, [1, 2, 3]);
    assert.match(
      third.waitedFor ?? '',
      /^2 jobs were running, the most that run at once \(2; setting toolOutputRecall\.commands\.maxConcurrent\)$/,
    );
    assert.equal(gate.state().running, 2);
    second.release();
    third.release();
    (await admissions[3]).release();
    assert.deepEqual(gate.state().running, 0);
  });

  it('bounds the bytes reserved together; one piece larger than the bound still runs, alone; a large head is not overtaken', async () => {
    const gate = new WorkGate('jobs');
    gate.configure({ maxConcurrent: 10, maxBytes: 100 * MiB });
    const a = await gate.enter(60 * MiB);
    const told: string[] = [];
    const big = gate.enter(500 * MiB, undefined, (reason) => told.push(reason));
    const small = gate.enter(10 * MiB);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(gate.state().queued, 2, 'the small one waits behind the big one, though it would fit');
    assert.match(
      told[0],
      /^the 1 jobs running held 60 MiB of capture buffers, and with this one's 500 MiB they would pass the 100 MiB allowed in flight$/,
    );
    a.release();
    const bigAdmitted = await big;
    assert.equal(gate.state().reservedBytes, 500 * MiB, 'alone, the big one runs');
    assert.equal(gate.state().queued, 1);
    bigAdmitted.release();
    const smallAdmitted = await small;
    assert.match(smallAdmitted.waitedFor ?? '', /1 more jobs were already queued ahead of it/);
    smallAdmitted.release();
  });

  it('an abort while waiting resolves at once as cancelled, holding nothing, and lets the next in', async () => {
    const gate = new WorkGate('jobs');
    gate.configure({ maxConcurrent: 1 });
    const holder = await gate.enter(0);
    const controller = new AbortController();
    const waiting = gate.enter(0, controller.signal);
    const next = gate.enter(0);
    controller.abort();
    const cancelled = await waiting;
    assert.equal(cancelled.cancelled, true);
    assert.equal(gate.state().queued, 1);
    holder.release();
    (await next).release();
    assert.equal(gate.state().running, 0);
    assert.equal((await gate.enter(0, AbortSignal.abort())).cancelled, true, 'already aborted: not even queued');
  });

  it('0 means sized to the machine: 4 per core, at least 8, at most 64; a limit not given stays', () => {
    const gate = new WorkGate('jobs');
    gate.configure({ maxConcurrent: 3, maxBytes: 5 * MiB });
    gate.configure({ maxConcurrent: 0 });
    assert.equal(gate.state().maxConcurrent, defaultMaxConcurrent());
    assert.equal(gate.state().maxBytes, 5 * MiB);
    assert.ok(defaultMaxConcurrent() >= 8 && defaultMaxConcurrent() <= 64);
  });
});

describe('work gate: real commands and programs', function () {
  this.timeout(60_000);
  const dirs = useTempDirs('gate');
  afterEach(() => {
    COMMAND_GATE.configure({ maxConcurrent: 0, maxBytes: 0 });
    PROGRAM_GATE.configure({ maxConcurrent: 0, maxBytes: 0 });
  });

  /** A command that logs "+" when it starts and "-" before it ends, and waits for `go` in between. */
  const blocking = (work: string): string =>
    `echo + >> "${path.join(work, 'log')}"; while [ ! -e "${path.join(work, 'go')}" ]; do sleep 0.05; done; echo - >> "${path.join(work, 'log')}"`;

  /** The most commands that were between their "+" and their "-" at once. */
  function peakRunning(work: string): number {
    let running = 0;
    let peak = 0;
    for (const mark of readFileSync(path.join(work, 'log'), 'utf8').split('\n').filter(Boolean)) {
      running += mark === '+' ? 1 : -1;
      peak = Math.max(peak, running);
    }
    return peak;
  }

  const started = (work: string): number =>
    existsSync(path.join(work, 'log'))
      ? readFileSync(path.join(work, 'log'), 'utf8')
          .split('\n')
          .filter((l) => l === '+').length
      : 0;

  it('five commands with maxConcurrent 2: two run, three wait and then say how long and why', async () => {
    const work = dirs.make();
    const told: string[] = [];
    const runs = Array.from({ length: 5 }, () =>
      runCommand({ command: blocking(work), cwd: work, onQueued: (reason) => told.push(reason) }, undefined, { maxConcurrent: 2 }),
    );
    assert.ok(await eventually(() => started(work) === 2 && COMMAND_GATE.state().queued === 3), JSON.stringify(COMMAND_GATE.state()));
    assert.equal(told.length, 3, 'each waiting command is told at once');
    writeFileSync(path.join(work, 'go'), '');
    const results = await Promise.all(runs);
    assert.equal(peakRunning(work), 2);
    assert.ok(results.every((result) => result.exitCode === 0));
    const queued = results.filter((result): result is typeof result & { queued: object } => result.queued !== undefined);
    assert.equal(queued.length, 3);
    for (const result of queued) {
      assert.match(
        result.queued.reason,
        new RegExp(`^2 commands were running, the most that run at once \\(2; setting ${MAX_CONCURRENT_SETTING.replace(/\./g, '\\.')}\\)`),
      );
      assert.ok(result.queued.waitedMs >= 0);
    }
    assert.equal(COMMAND_GATE.state().running, 0);
  });

  it('bounds the capture buffers in flight: commands that would pass the bytes bound wait', async () => {
    const work = dirs.make();
    // Each command reserves 196 KiB (stderr's and the merged sink, the finished copy: 64 KiB each; stdout's count: 4 KiB): two fit in 500 KiB.
    COMMAND_GATE.configure({ maxConcurrent: 10, maxBytes: 500 * KiB });
    const runs = Array.from({ length: 3 }, () => runCommand({ command: blocking(work), cwd: work }, undefined, { streamBytes: 64 * KiB }));
    assert.ok(await eventually(() => started(work) === 2 && COMMAND_GATE.state().queued === 1), JSON.stringify(COMMAND_GATE.state()));
    assert.equal(COMMAND_GATE.state().reservedBytes, 2 * 196 * KiB);
    writeFileSync(path.join(work, 'go'), '');
    const results = await Promise.all(runs);
    assert.equal(peakRunning(work), 2);
    const queued = results.filter((result) => result.queued);
    assert.equal(queued.length, 1);
    assert.match(
      queued[0].queued!.reason,
      /^the 2 commands running held 0\.4 MiB of capture buffers, and with this one's 0\.2 MiB they would pass the 0\.5 MiB allowed in flight$/,
    );
  });

  it('a command cancelled while it waits never starts, and says it was cancelled', async () => {
    const work = dirs.make();
    const holder = runCommand({ command: blocking(work), cwd: work }, undefined, { maxConcurrent: 1 });
    const marker = path.join(work, 'should-not-exist');
    try {
      // The holder first: each call checks its folder before it reaches the gate, and on a busy
      // machine the second call's check can finish first.
      assert.ok(await eventually(() => COMMAND_GATE.state().running === 1), JSON.stringify(COMMAND_GATE.state()));
      const controller = new AbortController();
      const waiting = runCommand({ command: `touch "${marker}"`, cwd: work, signal: controller.signal }, undefined, {
        maxConcurrent: 1,
      });
      assert.ok(await eventually(() => COMMAND_GATE.state().queued === 1));
      controller.abort();
      const cancelled = await waiting;
      assert.equal(cancelled.cancelled, true);
      assert.match(cancelled.queued?.reason ?? '', /1 commands were running/);
    } finally {
      // Released whatever happened above: a holder left running would hold the slot the next test needs.
      writeFileSync(path.join(work, 'go'), '');
    }
    assert.equal((await holder).exitCode, 0);
    assert.equal(existsSync(marker), false);
  });

  it('run_code programs have their own slots: with maxConcurrent 1 the second waits, and its text says so', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const context = {
      store: undefined,
      previewBytes: 24 * KiB,
      maxConcurrent: 1,
      // The first program's call waits until the test lets it go: the program holds its slot meanwhile.
      callTool: async () => (await gate, { text: 'ok' }),
    };
    const first = runCodeTool({ code: "return await tools.call('read_tool_output', {});" }, context);
    assert.ok(await eventually(() => PROGRAM_GATE.state().running === 1));
    const second = runCodeTool({ code: 'return 42;' }, context);
    assert.ok(await eventually(() => PROGRAM_GATE.state().queued === 1));
    assert.equal(COMMAND_GATE.state().running, 0, 'a program does not hold a command slot');
    release();
    const [a, b] = await Promise.all([first, second]);
    assert.doesNotMatch(a.text, /^queued/);
    assert.match(
      b.text,
      /^queued \d+\.\d s before it started: 1 programs were running, the most that run at once \(1; setting toolOutputRecall\.commands\.maxConcurrent\)\.\n/,
    );
    assert.match(b.text, /42/);
  });
});
