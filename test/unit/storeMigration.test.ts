import assert from 'node:assert/strict';
import { copyFileSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { openStore, STORE_ENGINES } from '../../src/core/workers/stores';
import { openReadOnlySession } from '../../src/core/store/readOnlySession';
import { sessionFile } from '../../src/core/store/sessionFiles';
import { loadSqlJs } from '../../src/core/store/sqljs';
import { rejectsWith } from './helpers/assertions';
import { storedChunks } from './helpers/storedChunks';
import { useTempDirs } from './helpers/tempDirs';

/** test/fixtures/session-v1: written by the previous release (see its README). */
const FIXTURE = path.resolve(__dirname, '../fixtures/session-v1');
const ids = JSON.parse(readFileSync(path.join(FIXTURE, 'ids.json'), 'utf8')) as Record<
  'text' | 'binary' | 'removed' | 'journalled',
  string
>;
const SESSION = 'v1session';

// The content the fixture's script retained, made again.
const TEXT = Array.from({ length: 6000 }, (_, i) => `line ${i}: compile step ${i % 17} ok, ${'x'.repeat(i % 23)}`).join('\n') + '\n';
function lcg(n: number, seed: number): Buffer {
  const out = Buffer.alloc(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = s >>> 24;
  }
  return out;
}

function copyFixture(dir: string): void {
  for (const name of [`${SESSION}.sqlite`, `${SESSION}.sqlite.journal`]) copyFileSync(path.join(FIXTURE, name), path.join(dir, name));
}

async function layoutOfFile(file: string): Promise<{ version: string; tables: string[] }> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database(readFileSync(file));
  try {
    const version = String(db.exec("SELECT value FROM session WHERE key = 'schema_version'")[0].values[0][0]);
    const tables = db.exec("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")[0].values.map((row) => String(row[0]));
    return { version, tables };
  } finally {
    db.close();
  }
}

describe('store: a session file of the previous release (layout 1) is migrated once, atomically', function () {
  this.timeout(60_000);
  const dirs = useTempDirs('store-migration');

  it('opens with every output, page, search and annotation intact, as segments beside a new index', async () => {
    const dir = dirs.make();
    copyFixture(dir);
    const file = sessionFile(dir, SESSION);
    assert.deepEqual(await layoutOfFile(file), { version: '1', tables: ['chunks', 'outputs', 'session'] });
    for (let open = 0; open < 2; open++) {
      const store = await openStore({ dir, sessionId: SESSION });
      try {
        assert.deepEqual(store.openReport, {});
        assert.equal(store.resumed, true);
        assert.deepEqual(
          (await store.list()).map((info) => info.outputId),
          [ids.journalled, ids.binary, ids.text],
          'newest first; the removed output stays removed; the journalled one replayed',
        );
        assert.deepEqual(await store.readAll(ids.text), Buffer.from(TEXT));
        assert.deepEqual(await store.readAll(ids.binary), lcg(70_000, 7));
        assert.equal((await store.readAll(ids.journalled)).toString(), 'journalled only\nsecond line\n');
        const page = await store.read(ids.text, 100_000, 4096);
        assert.equal(page.text, TEXT.slice(100_000, page.nextOffset));
        const found = await store.search(ids.text, 'line 5999:');
        assert.equal(found.matches.length, 1);
        const text = await store.info(ids.text);
        assert.deepEqual([text.tool, text.title, text.extra], ['bash', 'build log', { exitCode: 0, reviewed: true, note: 'checked' }]);
        assert.deepEqual((await store.info(ids.binary)).extra, { size: 'big' });
        await rejectsWith(store.read(ids.removed), 'NOT_FOUND');
      } finally {
        await store.close();
      }
      const layout = await layoutOfFile(file);
      assert.equal(layout.version, '2');
      assert.deepEqual(layout.tables, ['copy_grams', 'outputs', 'placements', 'segments', 'session'], 'the index holds no chunks');
      const chunks = await storedChunks(file);
      assert.deepEqual([...new Set(chunks.map((c) => c.output_id))].sort(), [ids.binary, ids.journalled, ids.text].sort());
    }
    // A new copy after the migration goes into a segment of its own.
    const store = await openStore({ dir, sessionId: SESSION });
    const { outputId } = await store.retain('after the migration');
    await store.close();
    const again = await openStore({ dir, sessionId: SESSION });
    assert.equal((await again.read(outputId)).text, 'after the migration');
    await again.close();
  });

  it('a failure after the segments are written, before the index replaces the file, leaves the old file usable; the next open migrates', async () => {
    const dir = dirs.make();
    copyFixture(dir);
    const file = sessionFile(dir, SESSION);
    const before = readdirSync(dir).sort();
    const original = readFileSync(file);
    const crash = (): void => {
      throw new Error('simulated crash before the index is renamed into place');
    };
    const error = await rejectsWith(openStore({ dir, sessionId: SESSION, migration: { beforeIndex: crash } }), 'STORE_UNAVAILABLE');
    assert.match(error.message, /simulated crash/);
    assert.deepEqual(readFileSync(file), original, 'the layout-1 file is untouched');
    assert.deepEqual(readdirSync(dir).sort(), before, 'the segments it wrote are gone');
    // The previous release's reader view of the file still works (it is still layout 1).
    const view = await openReadOnlySession(file, STORE_ENGINES);
    assert.deepEqual(await view.readAll(ids.binary), lcg(70_000, 7));
    await view.close();
    const store = await openStore({ dir, sessionId: SESSION });
    assert.deepEqual(await store.readAll(ids.text), Buffer.from(TEXT));
    await store.close();
    assert.equal((await layoutOfFile(file)).version, '2');
  });

  it('segments a crashed migration left (no index names them) are removed at the next open', async () => {
    const dir = dirs.make();
    copyFixture(dir);
    const file = sessionFile(dir, SESSION);
    copyFileSync(path.join(FIXTURE, `${SESSION}.sqlite`), `${file}.segment.1`);
    copyFileSync(path.join(FIXTURE, `${SESSION}.sqlite`), `${file}.segment.7`);
    const store = await openStore({ dir, sessionId: SESSION });
    assert.deepEqual(await store.readAll(ids.binary), lcg(70_000, 7));
    await store.close();
    assert.ok(!readdirSync(dir).includes(`${SESSION}.sqlite.segment.7`), 'the orphan is gone');
    assert.deepEqual(
      (await storedChunks(file)).filter((c) => c.output_id === ids.binary).map((c) => c.size),
      [65_536, 70_000 - 65_536],
    );
  });

  it('the read-only view reads a layout-1 session (an MCP server of the previous release) as it is, writing nothing', async () => {
    const dir = dirs.make();
    copyFixture(dir);
    const file = sessionFile(dir, SESSION);
    const view = await openReadOnlySession(file, STORE_ENGINES);
    try {
      assert.deepEqual(await view.readAll(ids.text), Buffer.from(TEXT));
      assert.equal((await view.readAll(ids.journalled)).toString(), 'journalled only\nsecond line\n');
      assert.deepEqual((await view.info(ids.text)).extra, { exitCode: 0, reviewed: true, note: 'checked' });
    } finally {
      await view.close();
    }
    assert.deepEqual(readFileSync(file), readFileSync(path.join(FIXTURE, `${SESSION}.sqlite`)));
    assert.deepEqual(readdirSync(dir).sort(), [`${SESSION}.sqlite`, `${SESSION}.sqlite.journal`]);
  });
});
