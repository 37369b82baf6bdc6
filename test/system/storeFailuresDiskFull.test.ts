// A full disk, in a process of its own with a file size limit (RLIMIT_FSIZE, `ulimit -f`): the rest of
// the store's failures, in process, are in test/unit/storeFailures.test.ts.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { openStore } from '../../src/core/workers/stores';
import { sessionFile } from '../../src/core/store/sessionFiles';
import { useTempDirs } from '../unit/helpers/tempDirs';
import { skipBecause } from '../unit/helpers/mochaRun';

const exec = promisify(execFile);
const REPO = path.resolve(__dirname, '../..');

describe('store failures: saving fails', () => {
  const dirs = useTempDirs('store-fail');

  it('a full disk (RLIMIT_FSIZE → EFBIG) rejects with STORE_UNAVAILABLE naming the errno, undoes the evictions it caused, and the previous file stays intact', async function () {
    if (process.platform === 'win32') skipBecause(this, 'Windows has no RLIMIT_FSIZE');
    this.timeout(30_000);
    const dir = dirs.make();
    const script = `
      process.on('SIGXFSZ', () => {});
      const { openStore } = require(${JSON.stringify(path.join(REPO, 'src/core/workers/stores.ts'))});
      const { randomBytes } = require('node:crypto');
      (async () => {
        const store = await openStore({ dir: ${JSON.stringify(dir)}, copyBytes: 4 * 1024 * 1024, quotaBytes: 4 * 1024 * 1024 });
        const small = await store.retain('saved before the disk filled\\n'.repeat(100));
        let failure;
        try {
          await store.retain(randomBytes(4 * 1024 * 1024 - 100)); // incompressible, and it needs the small copy evicted to fit the quota
        } catch (error) {
          failure = { code: error.code, message: error.message };
        }
        const listed = (await store.list()).map((o) => o.outputId + (o.evicted ? ' evicted' : ''));
        console.log(JSON.stringify({ sessionId: store.sessionId, small: small.outputId, failure, listed }));
        await store.close();
      })().catch((error) => { console.error(error); process.exit(1); });
    `;
    // dash counts ulimit -f in 512-byte blocks, bash in 1024: 512 KiB or 1 MiB, either far below 2 MiB.
    const limited = `ulimit -f 1024; exec "${process.execPath}" -r tsx/cjs -e "$SCRIPT"`;
    const { stdout } = await exec('/bin/sh', ['-c', limited], { cwd: REPO, env: { ...process.env, SCRIPT: script }, maxBuffer: 1 << 20 });
    const outcome = JSON.parse(stdout.trim().split('\n').pop()!) as {
      sessionId: string;
      small: string;
      failure?: { code: string; message: string };
      listed: string[];
    };
    assert.ok(outcome.failure, 'the large retain was rejected');
    assert.equal(outcome.failure.code, 'STORE_UNAVAILABLE');
    assert.match(outcome.failure.message, /EFBIG/);
    assert.deepEqual(outcome.listed, [outcome.small]);
    // The previous session file is intact: it opens as is and holds the earlier copy.
    const file = sessionFile(dir, outcome.sessionId);
    assert.ok(statSync(file).size < 512 * 1024);
    assert.deepEqual(
      readdirSync(dir).filter((name) => name.endsWith('.tmp')),
      [],
      'the temporary file was removed',
    );
    const store = await openStore({ dir, sessionId: outcome.sessionId });
    assert.deepEqual(store.openReport, {});
    assert.equal(store.resumed, true);
    assert.equal((await store.read(outcome.small)).text.split('\n')[0], 'saved before the disk filled');
    assert.deepEqual(
      (await store.list()).map((o) => o.outputId),
      [outcome.small],
    );
    await store.delete();
    assert.equal(existsSync(file), false);
  });
});
