// A checkpoint that fails for a full disk, in a process of its own with a file size limit
// (RLIMIT_FSIZE, `ulimit -f`): the rest of the journal's tests, in process, are in
// test/unit/storeJournal.test.ts.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { openStore } from '../../src/core/workers/stores';
import { sessionFile } from '../../src/core/store/sessionFiles';
import { useTempDirs } from '../unit/helpers/tempDirs';
import { skipBecause } from '../unit/helpers/mochaRun';

const exec = promisify(execFile);
const REPO = path.resolve(__dirname, '../..');

const journalNames = (dir: string): string[] =>
  readdirSync(dir)
    .filter((name) => name.includes('.journal'))
    .sort();

describe('store journal: a retained copy is durable before the session file is rewritten', () => {
  const dirs = useTempDirs('store-journal');

  it('a checkpoint that fails (file size limit → EFBIG) keeps the copies durable in the journal; stats().lastCheckpointError says why; they reopen intact', async function () {
    if (process.platform === 'win32') skipBecause(this, 'Windows has no RLIMIT_FSIZE');
    this.timeout(60_000);
    const dir = dirs.make();
    const script = `
      process.on('SIGXFSZ', () => {});
      const { openStore } = require(${JSON.stringify(path.join(REPO, 'src/core/workers/stores.ts'))});
      const { randomBytes, createHash } = require('node:crypto');
      (async () => {
        const store = await openStore({ dir: ${JSON.stringify(dir)}, checkpoints: 'manual' });
        const copies = [];
        const flushes = [];
        for (let i = 0; i < 3; i++) {
          const content = randomBytes(450 * 1024); // incompressible: the session file grows by as much
          const { outputId } = await store.retain(content);
          copies.push({ outputId, sha: createHash('sha256').update(content).digest('hex') });
          flushes.push(await store.flush().then(() => 'ok', (error) => error.code));
        }
        const lastCheckpointError = ((await store.stats()).lastCheckpointError || {}).code;
        // A journal append over the limit fails part way: it is cut back, so later records still replay.
        const tooBig = await store.retain(randomBytes(1200 * 1024)).then(() => 'retained', (error) => error.code + ' ' + error.message);
        const after = (await store.retain('after the failed append')).outputId;
        await store.close();
        console.log(JSON.stringify({ sessionId: store.sessionId, copies, flushes, lastCheckpointError, tooBig, after }));
      })().catch((error) => { console.error(error); process.exit(1); });
    `;
    // dash counts ulimit -f in 512-byte blocks, bash in 1024: 512 KiB or 1 MiB. One record (450 KiB)
    // fits either; a session file of three copies (1.35 MiB) fits neither.
    const limited = `ulimit -f 1024; exec "${process.execPath}" -r tsx/cjs -e "$SCRIPT"`;
    const { stdout } = await exec('/bin/sh', ['-c', limited], { cwd: REPO, env: { ...process.env, SCRIPT: script }, maxBuffer: 1 << 20 });
    const outcome = JSON.parse(stdout.trim().split('\n').pop()!) as {
      sessionId: string;
      copies: { outputId: string; sha: string }[];
      flushes: string[];
      lastCheckpointError?: string;
      tooBig: string;
      after: string;
    };
    assert.match(outcome.tooBig, /^STORE_UNAVAILABLE .*EFBIG.*not retained/);
    assert.equal(outcome.flushes[0], 'ok');
    assert.equal(outcome.flushes[2], 'EFBIG', 'the last checkpoint failed');
    assert.equal(outcome.lastCheckpointError, 'EFBIG');
    const file = sessionFile(dir, outcome.sessionId);
    assert.ok(journalNames(dir).length > 0, 'the journal is kept');
    assert.deepEqual(
      readdirSync(dir).filter((name) => name.endsWith('.tmp')),
      [],
    );
    const store = await openStore({ dir, sessionId: outcome.sessionId });
    assert.deepEqual(store.openReport, {});
    for (const copy of outcome.copies) {
      assert.equal(
        createHash('sha256')
          .update(await store.readAll(copy.outputId))
          .digest('hex'),
        copy.sha,
      );
    }
    assert.equal((await store.read(outcome.after)).text, 'after the failed append');
    assert.equal((await store.list()).length, 4, 'the failed copy is not there');
    assert.equal((await store.stats()).lastCheckpointError, undefined);
    assert.deepEqual(journalNames(dir), [], 'without the limit, the checkpoint after replay succeeds and drops the journals');
    await store.delete();
    assert.equal(existsSync(file), false);
  });
});
