/**
 * A real writer in its own process, for readOnlySession.test.ts: takes the session's lock as an MCP
 * server does, then runs the steps of retainingWriter.ts with background checkpoints (each change
 * soon rotates the journal and rewrites the session file), as fast as it can.
 *
 * `node -r tsx/cjs retainingWriterChild.ts <dir> <steps>`. Prints JSON lines: `{ file }` once the
 * session exists, then `{ done }` after the last step; it closes the session and exits.
 */
import { openStore } from '../../../src/core/workers/stores';
import { sessionFile } from '../../../src/core/store/sessionFiles';
import { tryLockSession } from '../../../src/core/store/sessionLock';
import { isRemoveStep, stepContent } from './retainingWriter';

const [dir, stepsText] = process.argv.slice(2);
const print = (line: object): void => void process.stdout.write(`${JSON.stringify(line)}\n`);

async function main(): Promise<void> {
  const sessionId = `writer-${process.pid}`;
  const lock = await tryLockSession(sessionFile(dir, sessionId));
  if (!lock) throw new Error('could not take the lock');
  const store = await openStore({ dir, sessionId });
  print({ file: store.file });
  const ids = new Map<number, string>();
  for (let step = 0; step < Number(stepsText); step++) {
    if (isRemoveStep(step)) await store.remove(ids.get(step - 2)!);
    else ids.set(step, (await store.retain(stepContent(step), { tool: 'run_command', title: `step ${step}` })).outputId);
  }
  print({ done: Number(stepsText) });
  await store.close();
  await lock.release();
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
