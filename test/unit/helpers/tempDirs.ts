import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * Temporary folders for the enclosing `describe`: `make()` creates one, and an `after` hook removes
 * every folder made (call `useTempDirs` at describe level, `make` inside hooks or tests).
 */
export function useTempDirs(prefix: string): { make(): string } {
  const made: string[] = [];
  after(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return {
    make() {
      const dir = mkdtempSync(path.join(os.tmpdir(), `recall-${prefix}-`));
      made.push(dir);
      return dir;
    },
  };
}
