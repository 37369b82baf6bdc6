/**
 * A session on a file system that starts failing mid-session, run in its own process by
 * storeBounds.test.ts (a file size limit or a folder permission applies to a whole process).
 *
 * `node -r tsx/cjs failingDiskChild.ts <rlimit|readonly> <dir>`. Prints JSON lines: `failing`
 * (checkpoints fail and the journal has refused a copy), then, after the parent writes a line to
 * stdin once it has lifted the failure, `done` with every acknowledged copy's hash.
 */
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { SessionStore } from '../../../src/core/store/sessionStore';
import { openStore } from '../../../src/core/workers/stores';
import { KiB, MiB } from '../../../src/core/limits';
import { retainOrExplain } from '../../../src/core/retention';
import type { StoreStats } from '../../../src/core/types';
import { scaled } from './timeScale';

const [how, dir] = process.argv.slice(2) as ['rlimit' | 'readonly', string];
// Past RLIMIT_FSIZE the kernel sends SIGXFSZ (default: die); ignored, the write fails with EFBIG.
process.on('SIGXFSZ', () => undefined);

const COPY = 100 * KiB;
const acknowledged: { outputId: string; sha: string }[] = [];
const print = (line: object): void => void process.stdout.write(`${JSON.stringify(line)}\n`);
const sha = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

async function retain(store: SessionStore, content: Buffer): Promise<void> {
  const { outputId } = await store.retain(content);
  acknowledged.push({ outputId, sha: sha(content) });
}

/** Polls stats (the background checkpoint's outcome) until `done` holds; the deadline (×TEST_TIME_SCALE) only ends a wait that would never end. */
async function until(store: SessionStore, done: (stats: StoreStats) => boolean, what: string, limitMs = 40_000): Promise<StoreStats> {
  const end = Date.now() + scaled(limitMs);
  for (;;) {
    const stats = await store.stats();
    if (done(stats)) return stats;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(stats)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const checkpointed = (stats: StoreStats): boolean => stats.journalBytes === 0;
const failing = (stats: StoreStats): boolean => stats.lastCheckpointError !== undefined;

async function main(): Promise<void> {
  // Journal limit below the file size limit: the journal is refused by its bound, not by the kernel.
  const store = await openStore({ dir, copyBytes: 256 * KiB, quotaBytes: 16 * MiB, journalLimitBytes: 400 * KiB });
  if (how === 'readonly') {
    await retain(store, randomBytes(COPY));
    await until(store, checkpointed, 'the first checkpoint');
    // The journal file is created by this retain; the folder turns read-only before its checkpoint.
    await retain(store, randomBytes(COPY));
    chmodSync(dir, 0o555);
  } else {
    // Incompressible copies, merged by checkpoints into a segment that passes the file size limit.
    for (let i = 0; i < 40; i++) {
      await retain(store, randomBytes(COPY));
      const stats = await until(store, (s) => checkpointed(s) || failing(s), 'a checkpoint');
      if (failing(stats)) break;
    }
  }
  const whileFailing = await until(store, failing, 'a failed checkpoint');
  let refused: { code: string; message: string; details: Record<string, unknown> } | undefined;
  let acceptedWhileFailing = 0;
  for (let i = 0; i < 10 && !refused; i++) {
    try {
      await retain(store, randomBytes(COPY));
      acceptedWhileFailing++;
    } catch (error) {
      const { code, message, details } = error as { code: string; message: string; details: Record<string, unknown> };
      refused = { code, message, details };
    }
  }
  const full = await store.stats();
  // What run_command does with a copy it cannot retain: recovery 'unavailable', with this reason.
  const { unavailableReason } = await retainOrExplain(store, randomBytes(COPY), { tool: 'run_command' });
  print({ phase: 'failing', sessionId: store.sessionId, whileFailing, full, refused, acceptedWhileFailing, unavailableReason });

  const lines = createInterface({ input: process.stdin });
  await new Promise<void>((resolve) => lines.once('line', () => resolve()));
  lines.close(); // an open stdin would keep this process, and the test waiting for it, alive
  if (how === 'readonly') {
    // No new call: the background retry (with backoff) catches up by itself.
    await until(store, (s) => !failing(s) && checkpointed(s), 'the retried checkpoint');
  } else {
    // A retain that finds the journal full tries a checkpoint first, once the last failure is a second
    // old: wait for exactly that (or for a background retry to have cleared it), not a fixed 1.1 s.
    await until(
      store,
      (s) => !s.lastCheckpointError || Date.now() - s.lastCheckpointError.at > 1000,
      'the last failure to be a second old',
    );
  }
  await retain(store, Buffer.from('after the disk recovered'));
  const recovered = await until(store, (s) => !failing(s) && checkpointed(s), 'a checkpoint after recovery');
  await store.close();
  print({ phase: 'done', acknowledged, recovered });
}

main().catch((error) => {
  print({ phase: 'error', error: String((error as Error)?.stack ?? error), acknowledged });
  process.exit(1);
});
