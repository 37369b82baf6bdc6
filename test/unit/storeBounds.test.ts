// The store's bounds, in process: a burst past the journal bound, the limit's rule and default, and
// journals counted in a session's size. A disk that fails (a file size limit, a folder made read-only)
// under a writer process of its own: test/system/storeBounds.test.ts.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { openStore } from '../../src/core/workers/stores';
import { listSessions, sessionFiles } from '../../src/core/store/sessionFiles';
import { KiB, MiB } from '../../src/core/limits';
import { rejectsWith } from './helpers/assertions';
import { useTempDirs } from './helpers/tempDirs';
import { skipBecause } from './helpers/mochaRun';

describe('store: failures that are seen, growth that is bounded', function () {
  const dirs = useTempDirs('bounds');
  before(function () {
    if (process.platform !== 'linux')
      skipBecause(this, `the limits are set with util-linux's prlimit and Linux ownership, which ${process.platform} does not have`);
  });

  it('a healthy store under a burst past the journal bound checkpoints instead of refusing', async function () {
    const dir = dirs.make();
    const store = await openStore({ dir, copyBytes: 64 * KiB, quotaBytes: 4 * MiB, journalLimitBytes: 128 * KiB });
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => store.retain(Buffer.alloc(60 * KiB, 65 + i))));
    assert.equal(results.length, 12);
    const stats = await store.stats();
    assert.equal(stats.outputs, 12);
    assert.equal(stats.lastCheckpointError, undefined);
    assert.ok(stats.journalBytes <= 128 * KiB);
    await store.delete();
  });

  it('journalLimitBytes below 4096 is refused with the rule', async () => {
    const error = await rejectsWith(openStore({ dir: dirs.make(), journalLimitBytes: 1000 }), 'INVALID_ARGUMENT');
    assert.match(error.message, /journalLimitBytes must be an integer of at least 4096; got 1000/);
  });

  it('the journal limit defaults to twice the quota, and forks keep it', async () => {
    const store = await openStore({ dir: dirs.make(), quotaBytes: 16 * MiB });
    assert.equal(store.journalLimitBytes, 32 * MiB);
    assert.equal((await store.stats()).journalLimitBytes, 32 * MiB);
    const fork = await store.fork();
    assert.equal(fork.journalLimitBytes, 32 * MiB);
    await fork.delete();
    await store.delete();
  });

  it('listSessions counts a session’s journals in its size (pruning sees what a failing session holds)', async () => {
    const dir = dirs.make();
    const store = await openStore({ dir, checkpoints: 'manual' });
    await store.retain(Buffer.alloc(200 * KiB, 1));
    const files = await sessionFiles(store.file);
    assert.equal(files.length, 2, 'the database and its journal');
    const [listed] = await listSessions(dir);
    const onDisk = readdirSync(dir).filter((name) => name.startsWith(path.basename(store.file)) && !name.endsWith('.lock')).length;
    assert.equal(onDisk, 2);
    assert.ok(listed.bytes > 200 * KiB, `journal counted: ${listed.bytes}`);
    await store.delete();
  });
});
