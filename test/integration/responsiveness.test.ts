// How long the extension host's event loop is blocked while run_command captures a 20 MiB output
// (capped, retained, persisted by the store worker) and the copy is then searched and paged, and
// how long activation took. The numbers are reported. The goal is 50 ms; the asserted bound is loose
// (250 ms) and applies to the host's own work in a block (its main thread's CPU time): these machines
// are shared and have 2 cores, so wall-clock gaps also hold time spent waiting for a core.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { testLog } from './log';
import { activateCallMs, commandOutputId, firstLineJson, gapMonitor, invoke, readPage, recallApi, waitFor } from './helpers/host';

const MiB = 1024 * 1024;
const BOUND_MS = 250;

/** "activated in N ms", from the extension's log file under the runner's user-data dir. */
function activationFromLog(): number | undefined {
  const root = process.env.TOR_TEST_SCRATCH;
  if (!root) return undefined;
  const logs = (fs.readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('Tool Output Recall.log'));
  for (const file of logs) {
    const m = /activated in ([\d.]+) ms/.exec(fs.readFileSync(path.join(root, file), 'utf8'));
    if (m) return Number(m[1]);
  }
  return undefined;
}

describe('responsiveness', function () {
  this.timeout(120_000);

  before(async () => {
    // First use opens the session store (worker, sql.js): measured below only once warm.
    await (await recallApi()).sessionId();
    await invoke('run_command', { command: 'seq 1 20000' });
  });

  it('activation time', async () => {
    let ms: number | undefined;
    // activate() always logs this line (the log file is written asynchronously): its absence is a
    // failure, never a silent skip. 10 s is generous on an idle machine; waitFor scales it.
    await waitFor('an "activated in N ms" line in the extension log', () => (ms = activationFromLog()) !== undefined, 10_000, 100);
    assert.ok(ms !== undefined);
    const call = activateCallMs();
    testLog(
      `    activation: activate() took ${ms} ms (from the extension's log)` +
        (call === undefined
          ? '; the host had activated it before the tests ran'
          : `; ext.activate() from the first test took ${call.toFixed(1)} ms (loading the bundle included)`),
    );
    assert.ok(ms < 1000, `activation took ${ms} ms`);
  });

  it(`the host's own work never blocks it for ${BOUND_MS} ms while a 20 MiB output is captured, searched and paged`, async () => {
    const phases: string[] = [];
    let wall = 0;
    let cpu: number | undefined;
    const measure = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
      const monitor = gapMonitor();
      const started = performance.now();
      const value = await work();
      const report = monitor.stop();
      wall = Math.max(wall, report.maxGapMs);
      if (report.maxGapCpuMs !== undefined) cpu = Math.max(cpu ?? 0, report.maxGapCpuMs);
      phases.push(`${name} ${Math.round(performance.now() - started)} ms; longest blocks: ${report.top}`);
      return value;
    };

    const command = `yes 'a line of a very long log, repeated many times' | head -c ${20 * MiB}; echo NEEDLE_AT_THE_END`;
    const text = await measure('capture+retain', async () => (await invoke('run_command', { command })).text);
    const outputId = commandOutputId(text);
    const found = await measure(
      'search',
      async () => (await invoke('search_tool_output', { outputId, pattern: 'NEEDLE_AT_THE_END' })).text,
    );
    assert.equal(firstLineJson<{ matches: number }>(found).matches, 1);
    const regex = await measure(
      'regex search',
      async () => (await invoke('search_tool_output', { outputId, pattern: 'x{3}|NEEDLE_\\w+', regex: true })).text,
    );
    assert.equal(firstLineJson<{ matches: number }>(regex).matches, 1);
    const totalBytes = (await readPage(outputId, 0, 1)).totalBytes;
    await measure('20 pages', async () => {
      // Spread over the kept head (the first half of the copy: ASCII, so every offset is a boundary).
      for (let i = 0; i < 20; i++) {
        assert.ok((await readPage(outputId, Math.floor((totalBytes / 2 / 20) * i))).text.length > 0);
      }
    });

    testLog(
      `    20 MiB output (load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores):\n      ${phases.join('\n      ')}`,
    );
    testLog(
      `    longest event-loop block: ${wall} ms wall clock, ${cpu ?? '?'} ms of it the host's own CPU time (goal 50 ms, bound ${BOUND_MS} ms)`,
    );
    assert.ok((cpu ?? wall) < BOUND_MS, `the extension host's own work blocked it for ${cpu ?? wall} ms`);
  });
});
