// A damaged journal loses only its damaged bytes: replay skips to the next record whose frame fits and
// whose CRC and header check out, in the store and in the read-only view alike, and reports each range
// it skipped. Bytes that only look like a record, and copies of earlier records met while skipping,
// are never replayed; crafted bytes cannot make the skipping slow.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { encodeRecord, parseJournal, type SkippedBytes } from '../../src/core/store/journal';
import { openReadOnlySession } from '../../src/core/store/readOnlySession';
import type { SessionStore } from '../../src/core/store/sessionStore';
import { openStore, STORE_ENGINES } from '../../src/core/workers/stores';
import { journalFile, sessionFile } from '../../src/core/store/sessionFiles';
import { rejectsWith } from './helpers/assertions';
import { makeRng, seedFromEnv } from './helpers/prng';
import { useTempDirs } from './helpers/tempDirs';

const KiB = 1024;
const rng = makeRng(seedFromEnv(21));
const noise = (bytes: number): Buffer => Buffer.from(Array.from({ length: bytes }, () => rng.int(0, 255)));
const logText = (seed: number, bytes: number): Buffer =>
  Buffer.from(Array.from({ length: Math.ceil(bytes / 24) }, (_, i) => `[${seed}] line ${String(i).padStart(10, '0')}\n`).join('')).subarray(
    0,
    bytes,
  );

/** A whole, valid retain record (CRC and all) of a copy no session made. */
const retainRecord = (outputId: string, seq: number, content: string): Buffer =>
  Buffer.concat(
    encodeRecord(
      {
        op: 'retain',
        outputId,
        seq,
        createdAt: 1,
        totalBytes: Buffer.byteLength(content),
        complete: true,
        droppedBytes: 0,
        gapOffset: null,
        meta: {},
      },
      Buffer.from(content),
    ),
  );

/** A session as a crash before any checkpoint leaves it: a session file without the copies, and a journal of one record each. */
interface Crash {
  sessionId: string;
  db: Buffer;
  /** Each record's bytes, in order: the journal is their concatenation. */
  records: Buffer[];
  ids: string[];
  contents: Buffer[];
}

async function threeRecords(dir: string): Promise<Crash> {
  const store = await openStore({ dir, checkpoints: 'manual' });
  const contents = [logText(1, 40 * KiB), logText(2, 50 * KiB), logText(3, 60 * KiB)];
  const ids: string[] = [];
  for (const content of contents) ids.push((await store.retain(content)).outputId);
  const journal = readFileSync(journalFile(store.file));
  const records = parseJournal(journal).entries.map((entry) => Buffer.concat(encodeRecord(entry.header, entry.content)));
  assert.deepEqual(Buffer.concat(records), journal, 'the records re-encode to the journal byte for byte');
  const db = readFileSync(store.file);
  await store.delete();
  return { sessionId: store.sessionId, db, records, ids, contents };
}

describe('a damaged journal loses only the damaged bytes', function () {
  this.timeout(60_000);
  const dirs = useTempDirs('store-damage');
  let crash: Crash;
  before(async () => {
    crash = await threeRecords(dirs.make());
  });

  /** The crashed session with `journal` in a fresh folder; returns the session file. */
  function withJournal(journal: Buffer): string {
    const file = sessionFile(dirs.make(), crash.sessionId);
    writeFileSync(file, crash.db);
    writeFileSync(journalFile(file), journal);
    return file;
  }

  /**
   * The read-only view, then the store, over those files: each holds exactly the copies `kept` (indexes
   * into crash), newest first, byte for byte. The view writes nothing; the store reports `skipped` and
   * keeps the damaged journal aside as it was.
   */
  async function reopen(file: string, kept: number[], skipped: SkippedBytes[]): Promise<SessionStore> {
    const journal = readFileSync(journalFile(file));
    const folder = readdirSync(path.dirname(file)).sort();
    const expected = kept.map((k) => crash.ids[k]).reverse();
    const view = await openReadOnlySession(file, STORE_ENGINES);
    try {
      assert.deepEqual(
        (await view.list()).map((info) => info.outputId),
        expected,
        'the read-only view',
      );
      for (const k of kept) assert.deepEqual(await view.readAll(crash.ids[k]), crash.contents[k]);
    } finally {
      await view.close();
    }
    assert.deepEqual(readdirSync(path.dirname(file)).sort(), folder, 'the view moved nothing');
    assert.deepEqual(readFileSync(journalFile(file)), journal, 'the view changed nothing');

    const store = await openStore({ dir: path.dirname(file), sessionId: crash.sessionId });
    assert.deepEqual(
      (await store.list()).map((info) => info.outputId),
      expected,
      'the store',
    );
    assert.equal((await store.stats()).outputs, kept.length);
    for (const k of kept) assert.deepEqual(await store.readAll(crash.ids[k]), crash.contents[k]);
    for (const k of [0, 1, 2].filter((k) => !kept.includes(k))) await rejectsWith(store.read(crash.ids[k]), 'NOT_FOUND');
    const report = store.openReport.journalTruncated;
    assert.equal(report?.length, 1, 'one journal reported');
    assert.deepEqual(report[0].skipped, skipped);
    assert.equal(
      report[0].bytesIgnored,
      skipped.reduce((sum, range) => sum + range.bytes, 0),
    );
    assert.match(report[0].path, /\.journal\.torn-\d+-[0-9a-f]{6}$/);
    assert.deepEqual(readFileSync(report[0].path), journal, 'the damaged journal is kept as it was');
    return store;
  }

  const [first, second, third] = [0, 1, 2].map((k) => () => crash.records[k]);
  const flipped = (record: Buffer, at: number): Buffer => {
    const copy = Buffer.from(record);
    copy[at] ^= 0x40;
    return copy;
  };

  it('the first of three records damaged (a flipped byte in its content): the two after it come back, exactly, and the skip is reported', async () => {
    const damaged = Buffer.concat([flipped(first(), first().length - 100), second(), third()]);
    const file = withJournal(damaged);
    const store = await reopen(file, [1, 2], [{ offset: 0, bytes: first().length }]);
    // The session goes on from there: a new copy is durable, and the kept-aside journal is not replayed again.
    const later = await store.retain('after the damage');
    await store.close();
    const again = await openStore({ dir: path.dirname(file), sessionId: crash.sessionId });
    assert.deepEqual(again.openReport, {});
    assert.deepEqual(
      (await again.list()).map((info) => info.outputId),
      [later.outputId, crash.ids[2], crash.ids[1]],
    );
    await again.close();
  });

  it('the first record has a length field pointing past the end of the file: the next records are found by scanning', async () => {
    // Its header length, or its content length (4 bytes after the header), made huge.
    const headerLength = first().readUInt32LE(5);
    for (const field of [5, 9 + headerLength]) {
      const damaged = Buffer.from(first());
      damaged.writeUInt32LE(0xfffffff0, field);
      const store = await reopen(withJournal(Buffer.concat([damaged, second(), third()])), [1, 2], [{ offset: 0, bytes: first().length }]);
      await store.close();
    }
  });

  it('damage in the middle: a damaged second record loses only itself; bytes between records lose nothing', async () => {
    let store = await reopen(
      withJournal(Buffer.concat([first(), flipped(second(), 200), third()])),
      [0, 2],
      [{ offset: first().length, bytes: second().length }],
    );
    await store.close();
    store = await reopen(
      withJournal(Buffer.concat([first(), noise(1000), second(), third()])),
      [0, 1, 2],
      [{ offset: first().length, bytes: 1000 }],
    );
    await store.close();
  });

  it('damage at the end (a torn tail, cut 1000 bytes into the last record): the records before it come back, the tail is one range', async () => {
    const head = first().length + second().length;
    const store = await reopen(
      withJournal(Buffer.concat([first(), second(), third().subarray(0, 1000)])),
      [0, 1],
      [{ offset: head, bytes: 1000 }],
    );
    await store.close();
  });

  it('bytes that look like a record but fail their CRC, or claim more than the file holds, are skipped, never replayed', async () => {
    const fakeId = 'out_0123456789abcdef01234567';
    const fake = retainRecord(fakeId, 99, 'fake!');
    const badCrc = flipped(fake, fake.length - 1);
    const removal = Buffer.concat(encodeRecord({ op: 'remove', outputId: crash.ids[0] }));
    const badRemoval = flipped(removal, removal.length - 2);
    // A prefix (magic, version, a header length) whose header would end past the end of the file.
    const pastEnd = Buffer.concat([
      Buffer.from('TORJ\x01', 'latin1'),
      Buffer.from([0xf0, 0xff, 0xff, 0x0f]),
      Buffer.from('{"op":"remove"'),
    ]);
    const garbage = Buffer.concat([badCrc, noise(37), badRemoval, pastEnd]);
    const store = await reopen(
      withJournal(Buffer.concat([first(), garbage, second(), third()])),
      [0, 1, 2],
      [{ offset: first().length, bytes: garbage.length }],
    );
    await rejectsWith(store.read(fakeId), 'NOT_FOUND');
    await store.close();
  });

  it('copies of earlier records met while skipping are not replayed again: a removed copy stays removed, a replayed one is not doubled', async () => {
    // An output that printed this session's journal holds its records, whole and with good CRCs.
    const removal = Buffer.concat(encodeRecord({ op: 'remove', outputId: crash.ids[0] }));
    const damage = Buffer.concat([noise(100), first(), second()]);
    const journal = Buffer.concat([first(), removal, second(), damage, third()]);
    const store = await reopen(
      withJournal(journal),
      [1, 2],
      [{ offset: first().length + removal.length + second().length, bytes: damage.length }],
    );
    await store.close();
  });

  it("a whole record of another session inside a damaged copy's content is not replayed: the damaged record's intact frame is skipped whole", async () => {
    const foreignId = 'out_fedcba9876543210fedcba98';
    const foreign = retainRecord(foreignId, 1000, 'foreign');
    const [entry] = parseJournal(first()).entries;
    const content = Buffer.concat([logText(4, 10 * KiB), foreign, logText(5, 10 * KiB)]);
    if (entry.header.op !== 'retain') assert.fail('the first record is a retain');
    const holder = flipped(Buffer.concat(encodeRecord({ ...entry.header, totalBytes: content.length }, content)), 1000);
    const store = await reopen(withJournal(Buffer.concat([holder, second(), third()])), [1, 2], [{ offset: 0, bytes: holder.length }]);
    await rejectsWith(store.read(foreignId), 'NOT_FOUND');
    await store.close();
  });

  it('a journal of garbage only: nothing is replayed, the copies in the session file stay, the whole file is reported', async () => {
    const dir = dirs.make();
    const saved = await openStore({ dir });
    const { outputId } = await saved.retain('checkpointed before the damage');
    await saved.close();
    writeFileSync(journalFile(saved.file), noise(64 * KiB));
    const store = await openStore({ dir, sessionId: saved.sessionId });
    assert.deepEqual(
      (await store.list()).map((info) => info.outputId),
      [outputId],
    );
    assert.deepEqual(
      store.openReport.journalTruncated?.map(({ bytesIgnored, skipped }) => ({ bytesIgnored, skipped })),
      [{ bytesIgnored: 64 * KiB, skipped: [{ offset: 0, bytes: 64 * KiB }] }],
    );
    await store.close();
  });

  it('crafted bytes where every position is a frame claiming the rest of the file cost bounded work: past it, the rest is skipped as a torn tail', () => {
    // 4 MiB of overlapping frames, each with a small header and a content length reaching one byte
    // short of the end (so no frame's end is the file's): checking every one in full would CRC about
    // 280,000 × 2 MiB.
    const PREFIX = 4 + 1 + 4 + 2 + 4;
    const count = Math.floor((4096 * KiB) / PREFIX);
    const crafted = Buffer.alloc(count * PREFIX);
    const end = first().length + crafted.length + second().length;
    for (let i = 0; i < count; i++) {
      const at = i * PREFIX;
      crafted.write('TORJ\x01', at, 'latin1');
      crafted.writeUInt32LE(2, at + 5);
      crafted.write('{}', at + 9, 'latin1');
      crafted.writeUInt32LE(end - 1 - (first().length + at + PREFIX) - 4, at + 11);
    }
    const parsed = parseJournal(Buffer.concat([first(), crafted, second()]));
    assert.deepEqual(
      parsed.entries.map((entry) => entry.header.outputId),
      [crash.ids[0]],
    );
    assert.deepEqual(parsed.skipped, [{ offset: first().length, bytes: crafted.length + second().length }]);
  });
});
