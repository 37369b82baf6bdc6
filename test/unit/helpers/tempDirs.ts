import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const made: string[] = [];
// Removed when the test process ends, not in the suite's `after`: mocha runs `after` hooks in the
// order they were declared, so a suite's removal could run before its own `store.delete()` and race
// a background checkpoint still writing into the folder.
process.once('exit', () => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * Temporary folders for tests: `make()` creates one; every folder made is removed when the test
 * process exits (call `useTempDirs` at describe level, `make` inside hooks or tests).
 */
export function useTempDirs(prefix: string): { make(): string } {
  return {
    make() {
      const dir = mkdtempSync(path.join(os.tmpdir(), `recall-${prefix}-`));
      made.push(dir);
      return dir;
    },
  };
}
