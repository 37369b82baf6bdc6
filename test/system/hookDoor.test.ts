// The hook door (src/mcp/hookListener.ts, hookRunDir.ts): a server killed without cleaning up leaves
// no files for long, with a dead server's pid taken from a child process that has exited. The door's
// other tests, in process: test/unit/hookDoor.test.ts.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { useHookDoors } from '../unit/helpers/hookDoor';
import { useTempDirs } from '../unit/helpers/tempDirs';

describe('the hook door cannot be squatted or held', function () {
  this.timeout(60_000);
  const dirs = useTempDirs('hook-door');
  const { environment, openDoor } = useHookDoors(dirs);

  it('a server killed without cleaning up leaves no files for long: the next door removes every dead server’s socket and announcement, and only those', async function () {
    if (process.platform === 'win32') this.skip();
    const runtime = dirs.make();
    environment(dirs.make(), runtime);
    const dir = path.join(runtime, 'tool-output-recall');
    mkdirSync(dir, { mode: 0o700 });
    // A pid that is gone: a child that has exited and been reaped.
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    const living = String(process.ppid);
    for (const pid of [gone, living]) for (const ext of ['json', 'sock']) writeFileSync(path.join(dir, `${pid}.${ext}`), '{}');
    await openDoor();
    const left = readdirSync(dir).sort();
    assert.deepEqual(left, [`${living}.json`, `${living}.sock`, `${process.pid}.json`, `${process.pid}.sock`].sort());
  });
});
