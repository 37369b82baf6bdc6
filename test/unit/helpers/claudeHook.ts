// A Bash output Claude Code saved to its tool-results folder, and the PostToolUse event that names it,
// shared by test/unit/claudeHook.test.ts and test/system/claudeHook.test.ts.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/**
 * Writes the saved output (~2.7 MB: filler, an error line, filler, a summary line, a last line) as
 * `bknx531nw.txt` in `results`; returns its path and size.
 */
export async function writeSavedOutput(results: string): Promise<{ saved: string; size: number }> {
  const saved = path.join(results, 'bknx531nw.txt');
  const filler = `${'y'.repeat(90)}\n`;
  const body = [filler.repeat(15_000), 'ERROR: disk quota exceeded on /var/data\n', filler.repeat(15_000), 'Tests: 3 failed, 97 passed\n'];
  await fs.writeFile(saved, `${body.join('')}${'z'.repeat(40)}\nchecksum=5f00d1\n`);
  return { saved, size: (await fs.stat(saved)).size };
}

/** A PostToolUse event for Bash (`make test`), its tool_response's fields overridden by `response`. */
export const bashEvent = (response: Record<string, unknown>): Record<string, unknown> => ({
  hook_event_name: 'PostToolUse',
  tool_name: 'Bash',
  cwd: '/w/proj',
  tool_input: { command: 'make test' },
  tool_response: { stdout: 'y'.repeat(30_000), stderr: '', interrupted: false, ...response },
});
