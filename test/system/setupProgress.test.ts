// Issue 40 §3: a long install step of the real-host setup (scripts/host/setup.mjs: code-server's npm
// install, 10 min on a busy 2-core machine) prints its progress while it runs — the step, the time it
// has taken and how much of its expected size is on disk — so it never looks hung. The step here writes
// into a folder and waits until the test has seen two progress lines; the lines come every 200 ms
// instead of every 15 s.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { scaled } from '../unit/helpers/timeScale';

const SETUP = path.resolve(__dirname, '../../scripts/host/setup.mjs');
const PROGRESS = /^\[host-setup\] unpacking the test step: 0 min \d+ s, (\d+) MB of about 3 MB$/;

describe('real-host setup: a long step prints its progress (issue 40 §3)', function () {
  // A Node process that starts another, on a busy machine.
  this.timeout(scaled(30_000));

  it('prints the step, its time and its MB on disk while it runs, and stops printing when it ends', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tor-setup-progress-'));
    const done = path.join(dir, 'done');
    try {
      // The step: 2 MB on disk, then it waits for the test's word.
      const step = `require('node:fs').writeFileSync(${JSON.stringify(path.join(dir, 'part'))}, Buffer.alloc(2 << 20, 1));
        const t = setInterval(() => { if (require('node:fs').existsSync(${JSON.stringify(done)})) clearInterval(t); }, 20);`;
      const runner = `import(${JSON.stringify(SETUP)}).then(({ shWithProgress }) =>
        shWithProgress('unpacking the test step', ${JSON.stringify(dir)}, 3, process.execPath, ['-e', ${JSON.stringify(step)}], { stdio: 'ignore' }, 200));`;
      const child = spawn(process.execPath, ['-e', runner], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      const progress = () => stderr.split('\n').filter((line) => PROGRESS.test(line));
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      // The pipe closes once every process writing to it is gone: the step's runner and its progress printer.
      const closed = new Promise<void>((resolve) => child.stderr.on('close', resolve));
      await new Promise<void>((resolve, reject) => {
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString('utf8');
          if (progress().length >= 2) resolve();
        });
        void exited.then(() => reject(new Error(`the setup step ended before two progress lines:\n${stderr}`)));
      });
      writeFileSync(done, '');
      assert.equal(await exited, 0, stderr);
      const lines = progress();
      assert.ok(
        lines.every((line) => Number(PROGRESS.exec(line)![1]) >= 2),
        `the MB on disk:\n${lines.join('\n')}`,
      );
      // The progress printer ends with the step (else the pipe would stay open).
      await closed;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
