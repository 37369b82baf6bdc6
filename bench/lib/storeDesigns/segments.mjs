// Design A: immutable content segments. A small index database (sql.js: the outputs rows and where each
// copy's chunks are) is exported whole by every checkpoint; the chunks a checkpoint adds go into new
// segment files, each a small sql.js database written once and never changed, opened on demand and
// kept in a small LRU. Memory: the index, the pending copies, at most LRU_SEGMENTS segments.
import { existsSync, readFileSync } from 'node:fs';
import { Journal, atomicWriteSync, encodeChunks, sliceFromChunks } from './common.mjs';

/** A segment holds at most this many encoded bytes (a copy larger than that spans several). */
export const SEGMENT_BYTES = Number(process.env.TOR_BENCH_SEGMENT_KIB ?? 1024) * 1024;
const LRU_SEGMENTS = 4;

const INDEX_SCHEMA = `
CREATE TABLE IF NOT EXISTS session (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS outputs (id TEXT PRIMARY KEY, seq INTEGER NOT NULL, total_bytes INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS placements (output_id TEXT NOT NULL, first_idx INTEGER NOT NULL, last_idx INTEGER NOT NULL, segment INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS placements_output ON placements (output_id, first_idx);
CREATE TABLE IF NOT EXISTS segments (n INTEGER PRIMARY KEY, bytes INTEGER NOT NULL);
`;
const SEGMENT_SCHEMA =
  'CREATE TABLE chunks (output_id TEXT NOT NULL, idx INTEGER NOT NULL, codec INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (output_id, idx))';

const rows = (db, sql, params = []) => {
  const statement = db.prepare(sql);
  try {
    statement.bind(params);
    const out = [];
    while (statement.step()) out.push(statement.getAsObject());
    return out;
  } finally {
    statement.free();
  }
};

export class SegmentStore {
  static files(file) {
    return { index: file, journal: `${file}.journal`, segment: (n) => `${file}.s${n}` };
  }

  constructor(SQL, file) {
    this.SQL = SQL;
    this.file = file;
    this.paths = SegmentStore.files(file);
    this.db = existsSync(file) ? new SQL.Database(readFileSync(file)) : new SQL.Database();
    this.db.exec(INDEX_SCHEMA);
    this.journal = new Journal(this.paths.journal);
    this.pending = new Map();
    this.open = new Map(); // segment n -> sql.js Database, most recent last
    this.seq = rows(this.db, 'SELECT max(seq) AS s FROM outputs')[0].s ?? 0;
  }

  /** Every file of the session (the bench copies them to make a template). */
  sessionFiles() {
    return [this.file, ...rows(this.db, 'SELECT n FROM segments').map((r) => this.paths.segment(r.n))];
  }

  retain(id, bytes) {
    this.journal.append({ op: 'retain', id, seq: ++this.seq }, bytes);
    this.db.run('INSERT INTO outputs (id, seq, total_bytes) VALUES (?, ?, ?)', [id, this.seq, bytes.length]);
    this.pending.set(id, bytes);
  }

  /** Encodes the pending copies (timed apart: it can run before the write, in the background). */
  encodePending() {
    return [...this.pending].map(([id, bytes]) => ({ id, chunks: encodeChunks(bytes) }));
  }

  /** Writes the encoded copies into new segments, then the index; returns the bytes written. */
  write(encoded) {
    let written = 0;
    let next = (rows(this.db, 'SELECT max(n) AS n FROM segments')[0].n ?? 0) + 1;
    let segment;
    let segmentBytes = 0;
    const placements = [];
    const seal = () => {
      if (!segment) return;
      segment.db.exec('COMMIT');
      const data = segment.db.export();
      segment.db.close();
      atomicWriteSync(this.paths.segment(segment.n), data);
      written += data.length;
      this.db.run('INSERT INTO segments (n, bytes) VALUES (?, ?)', [segment.n, data.length]);
      segment = undefined;
      segmentBytes = 0;
    };
    for (const { id, chunks } of encoded) {
      chunks.forEach((chunk, idx) => {
        if (segment && segmentBytes + chunk.data.length > SEGMENT_BYTES) seal();
        if (!segment) {
          segment = { n: next++, db: new this.SQL.Database() };
          segment.db.exec(`PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; ${SEGMENT_SCHEMA}`);
          segment.db.exec('BEGIN');
        }
        segment.db.run('INSERT INTO chunks VALUES (?, ?, ?, ?)', [id, idx, chunk.codec, chunk.data]);
        segmentBytes += chunk.data.length;
        const last = placements.at(-1);
        if (last && last.id === id && last.segment === segment.n && last.last === idx - 1) last.last = idx;
        else placements.push({ id, first: idx, last: idx, segment: segment.n });
      });
    }
    seal();
    for (const p of placements) this.db.run('INSERT INTO placements VALUES (?, ?, ?, ?)', [p.id, p.first, p.last, p.segment]);
    this.db.run("INSERT OR REPLACE INTO session VALUES ('last_seq', ?)", [String(this.seq)]);
    const index = this.db.export();
    atomicWriteSync(this.file, index);
    written += index.length;
    for (const { id } of encoded) this.pending.delete(id);
    this.journal.reset();
    return written;
  }

  checkpoint() {
    return this.write(this.encodePending());
  }

  list() {
    return rows(this.db, 'SELECT id, total_bytes FROM outputs ORDER BY seq');
  }

  bytes(id, from, to) {
    const pending = this.pending.get(id);
    if (pending) return pending.subarray(from, to);
    return sliceFromChunks(from, to, (first, last) =>
      rows(this.db, 'SELECT segment, first_idx, last_idx FROM placements WHERE output_id = ? AND last_idx >= ? AND first_idx <= ?', [
        id,
        first,
        last,
      ]).flatMap((p) =>
        rows(this.segment(p.segment), 'SELECT idx, codec, data FROM chunks WHERE output_id = ? AND idx BETWEEN ? AND ?', [
          id,
          Math.max(first, p.first_idx),
          Math.min(last, p.last_idx),
        ]),
      ),
    );
  }

  segment(n) {
    let db = this.open.get(n);
    if (db) this.open.delete(n);
    else db = new this.SQL.Database(readFileSync(this.paths.segment(n)));
    this.open.set(n, db);
    if (this.open.size > LRU_SEGMENTS) {
      const [oldest, oldDb] = this.open.entries().next().value;
      oldDb.close();
      this.open.delete(oldest);
    }
    return db;
  }

  close() {
    for (const db of this.open.values()) db.close();
    this.open.clear();
    this.db.close();
    this.journal.close();
  }
}
