// Where a checkpoint's time goes: `node --cpu-prof --cpu-prof-dir=<dir> bench/profile/checkpointProfile.mjs <text|random> [reps]`
// retains one 8 MiB copy into a session already holding one and times the flush() that stores it,
// REPS times (fresh sessions); the profile shows the work by function. Prints each flush's ms.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { makeLogText } from '../lib/logtext.mjs';

const require = createRequire(import.meta.url);
const core = require(process.env.TOR_BENCH_CORE ?? '../../dist/core.js');
const [kind = 'random', reps = '5'] = process.argv.slice(2);
const MiB = 1048576;
const make = (seed) => (kind === 'text' ? makeLogText(8 * MiB, seed) : randomBytes(8 * MiB));
const dir = mkdtempSync(path.join(tmpdir(), 'tor-ckpt-'));
try {
  const times = [];
  for (let rep = 0; rep < Number(reps); rep++) {
    const store = await core.openStore({ dir, sessionId: `s${rep}`, quotaBytes: 128 * MiB, copyBytes: 8 * MiB, checkpoints: 'manual' });
    await store.retain(make(1), { tool: 'bench' });
    await store.flush();
    await store.retain(make(2), { tool: 'bench' });
    const t = performance.now();
    await store.flush();
    times.push(performance.now() - t);
    await store.delete();
  }
  console.log(`${kind} flush ms: ${times.map((t) => t.toFixed(1)).join(' ')}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
