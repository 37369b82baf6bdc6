import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { openStore } from '../../src/core/workers/stores';
import { listSessions, sessionFile } from '../../src/core/store/sessionFiles';
import { loadSqlJs } from '../../src/core/store/sqljs';
import { rejectsWith, outputCounts } from './helpers/assertions';
import { useTempDirs } from './helpers/tempDirs';

async function sqliteFile(file: string, sql: string): Promise<void> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  db.exec(sql);
  writeFileSync(file, db.export());
  db.close();
}

/** Opens `sessionId` over a bad file and checks it was moved aside, kept byte for byte, and replaced by an empty session. */
async function assertMovedAside(dir: string, sessionId: string, reason: RegExp): Promise<void> {
  const file = sessionFile(dir, sessionId);
  const original = readFileSync(file);
  const store = await openStore({ dir, sessionId });
  const moved = store.openReport.movedAside;
  assert.ok(moved, 'openReport.movedAside is set');
  assert.match(moved.path, new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.corrupt-\\d+-[0-9a-f]{6}$`));
  assert.match(moved.reason, reason);
  assert.deepEqual(readFileSync(moved.path), original, 'the bad file is kept as it was');
  assert.equal(store.resumed, false);
  assert.deepEqual(await store.list(), []);
  // The new session works and is durable.
  const { outputId } = await store.retain('fresh start');
  await store.close();
  const again = await openStore({ dir, sessionId });
  assert.deepEqual(again.openReport, {});
  assert.equal((await again.read(outputId)).text, 'fresh start');
  await again.delete();
}

describe('store failures: a session file that will not open is moved aside', () => {
  const dirs = useTempDirs('store-corrupt');

  it('garbage bytes', async () => {
    const dir = dirs.make();
    writeFileSync(sessionFile(dir, 'garbage'), Buffer.from('this is not a database at all\n'.repeat(100)));
    await assertMovedAside(dir, 'garbage', /not an SQLite database/);
  });

  it('an empty file', async () => {
    const dir = dirs.make();
    writeFileSync(sessionFile(dir, 'empty'), '');
    await assertMovedAside(dir, 'empty', /.+/);
  });

  it('a truncated file (valid header, missing pages)', async () => {
    const dir = dirs.make();
    const store = await openStore({ dir, sessionId: 'truncated' });
    await store.retain('keep me '.repeat(50_000));
    await store.retain(Buffer.alloc(300_000, 7));
    await store.close();
    const whole = readFileSync(store.file);
    for (const fraction of [0.9, 0.5, 0.1]) {
      writeFileSync(store.file, whole.subarray(0, Math.floor(whole.length * fraction)));
      await assertMovedAside(dir, 'truncated', /malformed|corrupt|not a database/i);
    }
  });

  it('a valid SQLite file of another schema, or another schema version', async () => {
    const dir = dirs.make();
    await sqliteFile(
      sessionFile(dir, 'foreign'),
      "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('hello');",
    );
    await assertMovedAside(dir, 'foreign', /no such table/);
    await sqliteFile(
      sessionFile(dir, 'unversioned'),
      "CREATE TABLE session (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO session VALUES ('session_id', 'x');",
    );
    await assertMovedAside(dir, 'unversioned', /schema version missing/);
    await sqliteFile(
      sessionFile(dir, 'partial'),
      "CREATE TABLE session (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO session VALUES ('schema_version', '1');",
    );
    await assertMovedAside(dir, 'partial', /no such table/);
  });

  it('a session file of a newer layout is refused with STORE_UNAVAILABLE, and left byte for byte as it was', async () => {
    const dir = dirs.make();
    const file = sessionFile(dir, 'future');
    await sqliteFile(
      file,
      "CREATE TABLE session (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO session VALUES ('schema_version', '99');",
    );
    const original = readFileSync(file);
    const error = await rejectsWith(openStore({ dir, sessionId: 'future' }), 'STORE_UNAVAILABLE');
    assert.match(error.message, /written by a newer version of Tool Output Recall \(layout 99; this version reads up to 2\)/);
    assert.match(error.message, /left as it is/);
    assert.equal(error.details.reason, 'newerLayout');
    assert.deepEqual(readFileSync(file), original);
    assert.deepEqual(readdirSync(dir), ['future.sqlite'], 'nothing moved aside, nothing written beside it');
  });

  it('bytes appended after the last page (4,096 random bytes): found at open, not by a later read; a clean file opens as before', async () => {
    const dir = dirs.make();
    const store = await openStore({ dir, sessionId: 'appended' });
    const { outputId } = await store.retain('keep me '.repeat(50_000));
    await store.close();
    const clean = await openStore({ dir, sessionId: 'appended' });
    assert.deepEqual([clean.openReport, clean.resumed], [{}, true]);
    assert.equal((await clean.readAll(outputId)).toString(), 'keep me '.repeat(50_000));
    await clean.close();
    appendFileSync(store.file, randomBytes(4096));
    await assertMovedAside(
      dir,
      'appended',
      /holds \d+ bytes, but its \d+ pages of 4096 bytes make \d+: bytes were added to it or cut from it/,
    );
  });

  it("a damaged page inside (the placements table's root zeroed, which opening's queries do not read): found at open by PRAGMA quick_check", async () => {
    const dir = dirs.make();
    const store = await openStore({ dir, sessionId: 'damaged' });
    await store.retain('keep me '.repeat(50_000));
    await store.close();
    const SQL = await loadSqlJs();
    const whole = readFileSync(store.file);
    const db = new SQL.Database(whole);
    const [root] = db.exec("SELECT rootpage FROM sqlite_master WHERE name = 'placements'")[0].values[0] as number[];
    const pageSize = db.exec('PRAGMA page_size')[0].values[0][0] as number;
    db.close();
    writeFileSync(store.file, Buffer.from(whole).fill(0, (root - 1) * pageSize, root * pageSize));
    await assertMovedAside(dir, 'damaged', /^damaged pages \(PRAGMA quick_check: .+\)$/);
  });

  it('moved-aside files are not listed as sessions', async () => {
    const dir = dirs.make();
    writeFileSync(sessionFile(dir, 'bad'), 'garbage');
    const store = await openStore({ dir, sessionId: 'bad' });
    assert.ok(store.openReport.movedAside);
    assert.deepEqual(
      (await listSessions(dir)).map((s) => s.sessionId),
      ['bad'],
    );
    assert.equal(readdirSync(dir).filter((name) => name.includes('.corrupt-')).length, 1);
    await store.delete();
  });
});

describe('store failures: saving fails', () => {
  const dirs = useTempDirs('store-fail');

  it('a folder that cannot be created is STORE_UNAVAILABLE at open', async () => {
    const parent = dirs.make();
    const blocker = path.join(parent, 'file');
    writeFileSync(blocker, 'x');
    const error = await rejectsWith(openStore({ dir: path.join(blocker, 'sessions') }), 'STORE_UNAVAILABLE');
    assert.match(error.message, /ENOTDIR|EEXIST/);
  });

  it('retain rejects with STORE_UNAVAILABLE when the folder became unusable, and the copy does not exist', async () => {
    const dir = dirs.make();
    const store = await openStore({ dir });
    const kept = await store.retain('saved before the failure');
    rmSync(dir, { recursive: true });
    writeFileSync(dir, 'x'); // the folder is now a file: every write fails with ENOTDIR
    const error = await rejectsWith(store.retain('x'.repeat(100_000)), 'STORE_UNAVAILABLE');
    assert.match(error.message, /ENOTDIR/);
    assert.match(error.message, /not retained/);
    assert.deepEqual(
      (await store.list()).map((o) => o.outputId),
      [kept.outputId],
      'the failed copy has no ID in the session',
    );
    assert.deepEqual(outputCounts(await store.stats()), {
      outputs: 1,
      retainedBytes: Buffer.byteLength('saved before the failure'),
      evicted: 0,
    });
    assert.equal((await store.read(kept.outputId)).text, 'saved before the failure');
    // Once the folder is back, saving works again and the failed copy never appears.
    rmSync(dir);
    mkdirSync(dir);
    const later = await store.retain('after repair');
    await store.close();
    const resumed = await openStore({ dir, sessionId: store.sessionId });
    assert.deepEqual(
      (await resumed.list()).map((o) => o.outputId),
      [later.outputId, kept.outputId],
    );
    await resumed.delete();
  });
});
