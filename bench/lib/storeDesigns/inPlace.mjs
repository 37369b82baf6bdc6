// Design B: one SQLite file read and written in place through a VFS over the real file
// (node-sqlite3-wasm: SQLite compiled to WebAssembly with a synchronous node:fs VFS). A checkpoint is
// one transaction inserting the new chunk rows (rollback journal, synchronous=FULL); the page cache
// (SQLite's default, 2 MiB) is all the database this process holds.
import { createRequire } from 'node:module';
import { Journal, encodeChunks, sliceFromChunks } from './common.mjs';

const require = createRequire(import.meta.url);

/** The package, from TOR_BENCH_NSW (a folder holding it) or this checkout's node_modules; undefined when absent. */
export function loadInPlace() {
  try {
    const where = process.env.TOR_BENCH_NSW
      ? require.resolve('node-sqlite3-wasm', { paths: [process.env.TOR_BENCH_NSW] })
      : require.resolve('node-sqlite3-wasm');
    return require(where);
  } catch {
    return undefined;
  }
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS session (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS outputs (id TEXT PRIMARY KEY, seq INTEGER NOT NULL, total_bytes INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS chunks (output_id TEXT NOT NULL, idx INTEGER NOT NULL, codec INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (output_id, idx));
`;

export class InPlaceStore {
  constructor(module, file) {
    this.file = file;
    this.db = new module.Database(file);
    this.db.exec(`PRAGMA journal_mode=DELETE; PRAGMA synchronous=FULL; ${SCHEMA}`);
    this.journal = new Journal(`${file}.journal`);
    this.pending = new Map();
    this.seq = this.db.get('SELECT max(seq) AS s FROM outputs').s ?? 0;
  }

  sessionFiles() {
    return [this.file];
  }

  retain(id, bytes) {
    this.journal.append({ op: 'retain', id, seq: ++this.seq }, bytes);
    this.pending.set(id, { seq: this.seq, bytes });
  }

  encodePending() {
    return [...this.pending].map(([id, { seq, bytes }]) => ({ id, seq, total: bytes.length, chunks: encodeChunks(bytes) }));
  }

  write(encoded) {
    const before = this.db.get('PRAGMA page_count').page_count;
    this.db.exec('BEGIN');
    const insert = this.db.prepare('INSERT INTO chunks VALUES (?, ?, ?, ?)');
    try {
      for (const { id, seq, total, chunks } of encoded) {
        this.db.run('INSERT INTO outputs (id, seq, total_bytes) VALUES (?, ?, ?)', [id, seq, total]);
        chunks.forEach((chunk, idx) => insert.run([id, idx, chunk.codec, chunk.data]));
      }
    } finally {
      insert.finalize();
    }
    this.db.run("INSERT OR REPLACE INTO session VALUES ('last_seq', ?)", [String(this.seq)]);
    this.db.exec('COMMIT');
    for (const { id } of encoded) this.pending.delete(id);
    this.journal.reset();
    return (this.db.get('PRAGMA page_count').page_count - before) * 4096;
  }

  checkpoint() {
    return this.write(this.encodePending());
  }

  list() {
    return [
      ...this.db.all('SELECT id, total_bytes FROM outputs ORDER BY seq'),
      ...[...this.pending].map(([id, { bytes }]) => ({ id, total_bytes: bytes.length })),
    ];
  }

  bytes(id, from, to) {
    const pending = this.pending.get(id);
    if (pending) return pending.bytes.subarray(from, to);
    return sliceFromChunks(from, to, (first, last) =>
      this.db.all('SELECT idx, codec, data FROM chunks WHERE output_id = ? AND idx BETWEEN ? AND ?', [id, first, last]),
    );
  }

  close() {
    this.db.close();
    this.journal.close();
  }
}
