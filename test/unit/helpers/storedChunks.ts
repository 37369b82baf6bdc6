/** The chunk rows a session's files hold: its index's segments, read the way a test inspects the disk. */
import { existsSync, readFileSync } from 'node:fs';
import { loadSqlJs } from '../../../src/core/store/sqljs';
import { segmentFile } from '../../../src/core/store/sessionFiles';

export interface StoredChunk {
  output_id: string;
  idx: number;
  codec: number;
  size: number;
}

/** Every chunk of every segment the index at `file` names, by output then index (none when there is no file yet). */
export async function storedChunks(file: string): Promise<StoredChunk[]> {
  if (!existsSync(file)) return [];
  const SQL = await loadSqlJs();
  const rows = (bytes: Buffer, sql: string): Record<string, unknown>[] => {
    const db = new SQL.Database(bytes);
    try {
      const [result] = db.exec(sql);
      return result ? result.values.map((row) => Object.fromEntries(result.columns.map((column, i) => [column, row[i]]))) : [];
    } finally {
      db.close();
    }
  };
  const chunks: StoredChunk[] = [];
  for (const { n } of rows(readFileSync(file), 'SELECT n FROM segments ORDER BY n'))
    chunks.push(
      ...(rows(
        readFileSync(segmentFile(file, n as number)),
        'SELECT output_id, idx, codec, length(data) AS size FROM chunks',
      ) as unknown as StoredChunk[]),
    );
  return chunks.sort((a, b) => a.output_id.localeCompare(b.output_id) || a.idx - b.idx);
}
