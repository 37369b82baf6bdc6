/**
 * Layout 1 → 2, once, on the first open by this version: a layout-1 session file holds its chunks
 * itself; they are written into segments, then the same database without them (the index) replaces
 * the file by an atomic rename. Until that rename the old file is untouched, so a crash or a failure
 * at any point leaves it usable (and its segments orphans, removed at the next open, which migrates
 * again).
 */
import path from 'node:path';
import { promises as fs } from 'node:fs';
import type { Database } from 'sql.js';
import { atomicWriteFile, syncDirectory } from './atomicWrite';
import { SCHEMA_VERSION, PLACEMENTS_SCHEMA, applyPragmas, queryRows } from './schema';
import { SegmentWriter, recordSegment, type SealedSegment } from './segments';
import { segmentFile } from './sessionFiles';
import type { ChunkRow } from './segments';

export interface MigrationHooks {
  /** @internal tests: runs once the segments are durable, before the index replaces the file (a throw stands for a crash there). */
  beforeIndex?: () => void;
}

/** Migrates `db`, the layout-1 file `file` read into memory, and writes it; `db` is then the index. */
export async function migrateLayout1(db: Database, file: string, hooks: MigrationHooks = {}): Promise<void> {
  let next = 1;
  const writer = new SegmentWriter(file, () => next++);
  try {
    db.exec(PLACEMENTS_SCHEMA);
    const record = (sealed: SealedSegment | undefined): void => {
      if (sealed) recordSegment(db, sealed, () => true);
    };
    const live = queryRows<{ id: string }>(db, 'SELECT id FROM outputs WHERE evicted = 0 ORDER BY seq');
    for (const { id } of live) {
      const chunks = queryRows<ChunkRow>(db, 'SELECT idx, codec, data FROM chunks WHERE output_id = ? ORDER BY idx', [id]);
      for (const chunk of chunks) record(await writer.add(id, chunk.idx, chunk));
    }
    record(await writer.seal());
    db.exec('DROP TABLE chunks');
    db.run("UPDATE session SET value = ? WHERE key = 'schema_version'", [String(SCHEMA_VERSION)]);
    db.run("INSERT OR REPLACE INTO session (key, value) VALUES ('next_segment', ?)", [String(next)]);
    db.exec('VACUUM');
    await writer.sync();
    await syncDirectory(path.dirname(file));
    hooks.beforeIndex?.();
    const data = db.export();
    applyPragmas(db);
    await atomicWriteFile(file, data);
  } catch (error) {
    await writer.discard();
    for (const n of writer.written) await fs.rm(segmentFile(file, n), { force: true }).catch(() => undefined);
    throw error;
  }
}
