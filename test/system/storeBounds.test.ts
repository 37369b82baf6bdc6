// A disk that fails under a writer process of its own (failingDiskChild.ts): a file size limit, a
// folder made read-only. The store's other bounds, in process: test/unit/storeBounds.test.ts.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync } from 'node:fs';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { openStore } from '../../src/core/workers/stores';
import { KiB } from '../../src/core/limits';
import type { StoreStats } from '../../src/core/types';
import { bundleChild } from '../unit/helpers/bundledChild';
import { useTempDirs } from '../unit/helpers/tempDirs';
import { skipBecause } from '../unit/helpers/mochaRun';

const REPO = path.resolve(__dirname, '../..');
const CHILD = path.join(__dirname, '../unit/helpers/failingDiskChild.ts');
let bundled: string | undefined;
/** The uid/gid the read-only case runs as when the tests run as root (root ignores permissions). */
const NOBODY = 65534;

interface Failing {
  sessionId: string;
  whileFailing: StoreStats;
  full: StoreStats;
  refused?: { code: string; message: string; details: Record<string, unknown> };
  acceptedWhileFailing: number;
  unavailableReason?: string;
}
interface Done {
  acknowledged: { outputId: string; sha: string }[];
  recovered: StoreStats;
}

/**
 * Runs failingDiskChild.ts: `lift` is called once checkpoints fail and the journal is full (it ends
 * the failure from outside, as freeing a disk would); resolves with both reports.
 */
function runChild(how: 'rlimit' | 'readonly', dir: string, lift: (pid: number) => void): Promise<{ failing: Failing; done: Done }> {
  const asNobody = how === 'readonly' && process.getuid?.() === 0;
  // As nobody, the child runs from a bundle outside the checkout (which nobody may not be able to read).
  const node = asNobody
    ? [process.execPath, (bundled ??= bundleChild(CHILD)), how, dir]
    : [process.execPath, '-r', 'tsx/cjs', CHILD, how, dir];
  const child =
    how === 'rlimit'
      ? // A 512 KiB file size limit, soft only, so the test can lift it again (raising a hard limit needs
        // CAP_SYS_RESOURCE). No file grows with the session any more: the one that passes it is a
        // segment into which checkpoints merge the small segments of earlier ones (segments.ts).
        spawn('prlimit', [`--fsize=${512 * KiB}:`, '--', ...node], { cwd: REPO, stdio: ['pipe', 'pipe', 'pipe'] })
      : spawn(node[0], node.slice(1), {
          cwd: asNobody ? dir : REPO,
          stdio: ['pipe', 'pipe', 'pipe'],
          ...(asNobody ? { uid: NOBODY, gid: NOBODY, env: { ...process.env, HOME: dir } } : {}),
        });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    let failing: Failing | undefined;
    createInterface({ input: child.stdout }).on('line', (line) => {
      const report = JSON.parse(line) as { phase: string } & Record<string, unknown>;
      if (report.phase === 'failing') {
        failing = report as unknown as Failing;
        try {
          lift(child.pid!);
        } catch (error) {
          child.kill();
          reject(error instanceof Error ? error : new Error(String(error)));
          return;
        }
        // end(), not write(): the child's stdin closes, so nothing keeps either process alive afterwards.
        child.stdin.end('lifted\n');
      } else if (report.phase === 'done') {
        resolve({ failing: failing!, done: report as unknown as Done });
      } else reject(new Error(`child failed: ${String(report.error)}\n${stderr}`));
    });
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`child exited with ${code}\n${stderr}`));
    });
  });
}

const sha = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** What every failing-disk case must show: the failure reported, the bound held, nothing acknowledged lost. */
async function assertSeenBoundedAndIntact(dir: string, reason: RegExp, failing: Failing, done: Done): Promise<void> {
  assert.match(failing.whileFailing.lastCheckpointError?.message ?? '', reason, 'stats() reports why checkpoints fail');
  assert.ok(failing.whileFailing.lastCheckpointError!.at > 0);
  assert.match(
    failing.whileFailing.lastCheckpointError!.code ?? '',
    /^E[A-Z]+$/,
    'the system error code, to tell retries of one failure apart from a new one',
  );
  assert.ok(failing.full.journalBytes > 0 && failing.full.journalBytes <= 400 * KiB, `journal bounded: ${failing.full.journalBytes}`);
  assert.equal(failing.full.journalLimitBytes, 400 * KiB);
  assert.ok(failing.acceptedWhileFailing >= 1, 'copies are still acknowledged while checkpoints fail, up to the bound');
  assert.ok(failing.refused, 'past the bound a copy is refused');
  assert.equal(failing.refused.code, 'STORE_UNAVAILABLE');
  assert.match(failing.refused.message, /not retained/);
  assert.match(failing.refused.message, /limit of 409600 bytes/);
  assert.match(failing.refused.message, reason, 'the refusal names the checkpoint failure');
  assert.equal(failing.refused.details.reason, 'journalFull');
  assert.match(failing.unavailableReason ?? '', /session journal .* would pass its limit/, "run_command's recovery names the full journal");
  assert.match(failing.unavailableReason ?? '', reason);
  assert.equal(done.recovered.lastCheckpointError, undefined, 'a checkpoint caught up without a restart');
  assert.equal(done.recovered.journalBytes, 0);

  const store = await openStore({ dir, sessionId: failing.sessionId });
  assert.deepEqual(store.openReport, {});
  assert.equal((await store.list()).length, done.acknowledged.length, 'every acknowledged copy, and no refused one');
  for (const copy of done.acknowledged) assert.equal(sha(await store.readAll(copy.outputId)), copy.sha);
  await store.delete();
}

describe('store: failures that are seen, growth that is bounded', function () {
  const dirs = useTempDirs('bounds');
  before(function () {
    if (process.platform !== 'linux')
      skipBecause(this, `the limits are set with util-linux's prlimit and Linux ownership, which ${process.platform} does not have`);
  });

  it('a file size limit (RLIMIT_FSIZE → EFBIG): checkpoints fail and say so, the journal stops at its bound, a retain catches up once the limit is lifted, nothing acknowledged is lost', async function () {
    this.timeout(120_000);
    const dir = dirs.make();
    const { failing, done } = await runChild('rlimit', dir, (pid) => execFileSync('prlimit', ['--pid', String(pid), '--fsize=unlimited:']));
    await assertSeenBoundedAndIntact(dir, /EFBIG/, failing, done);
  });

  it('a folder made read-only mid-session (EACCES): the same, and the background retry catches up once it is writable again', async function () {
    this.timeout(120_000);
    const dir = dirs.make();
    if (process.getuid?.() === 0) chownSync(dir, NOBODY, NOBODY);
    const { failing, done } = await runChild('readonly', dir, () => chmodSync(dir, 0o755));
    await assertSeenBoundedAndIntact(dir, /EACCES/, failing, done);
  });
});
