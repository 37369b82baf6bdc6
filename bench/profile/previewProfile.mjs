// Where a preview's time goes: `node --cpu-prof --cpu-prof-dir=<dir> bench/profile/previewProfile.mjs <quiet|noisy> <bytes|string> [reps]`
// runs previewHeadTail over the preview-cost bench's 8 MiB log (bench/lib/previewSamples.mjs) REPS
// times after one warm-up; the profile shows the work by function. Prints the median wall and CPU ms, the least CPU ms, and each run's ms.
import { createRequire } from 'node:module';
import { PREVIEW_OPTIONS, previewSamples } from '../lib/previewSamples.mjs';

const require = createRequire(import.meta.url);
const core = require(process.env.TOR_BENCH_CORE ?? '../../dist/core.js');
const [sample = 'noisy', from = 'bytes', reps = '20'] = process.argv.slice(2);
const bytes = previewSamples()[sample];
if (!bytes) throw new Error(`no sample ${sample}: quiet or noisy`);
const content = from === 'string' ? bytes.toString('utf8') : bytes;
core.previewHeadTail(content, PREVIEW_OPTIONS);
const wall = [];
const cpu = [];
for (let rep = 0; rep < Number(reps); rep++) {
  const used = process.cpuUsage();
  const t = performance.now();
  core.previewHeadTail(content, PREVIEW_OPTIONS);
  wall.push(performance.now() - t);
  const spent = process.cpuUsage(used);
  cpu.push((spent.user + spent.system) / 1000);
}
const median = (list) => [...list].sort((a, b) => a - b)[list.length >> 1];
// The least CPU time is the steadiest figure on a loaded machine (others' work only adds to it).
console.log(
  `${sample} from ${from}: median ${median(wall).toFixed(1)} ms (CPU ${median(cpu).toFixed(1)} ms, least ${Math.min(...cpu).toFixed(1)} ms) per 8 MiB; runs ${wall.map((t) => t.toFixed(1)).join(' ')}`,
);
