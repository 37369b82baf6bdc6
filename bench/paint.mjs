// Slider input to painted page on a 4096-line page: `node bench/paint.mjs` (after `npm run build`;
// needs the real-host harness's install, which scripts/host/setup.mjs does on first use).
//
// Runs the measuring test of the real host (test/integration/inspectorWebview.test.ts, "4096-line
// page") in the browser headed under Xvfb and headless, with TOR_PAINT_VARIANTS=1 so that it also
// measures the renderings the shipped one replaced, then the browser suite's counterpart
// (test/browser/paint.test.ts: the page as a top-level document, the host handler over a test
// double). Each prints PAINT lines (JSON); this collects them into ONE table: the rows the preview
// pane keeps live beside the page, median, p95 and max of the jumps per row (40 a round; the rounds
// of one rendering, which the host test alternates with the one before it after a warm-up, are
// pooled), and the goal (p95 ≤ 100 ms in the real host) beside the figure before issue 19. A
// report, not a gate: exits 0 unless a run broke, or, with --strict, the shipped rendering misses
// the goal in the real host.
//
// Options:
//   --strict            exit 1 when the shipped rendering's p95 in the real host is over 100 ms
//   --only=host,browser run a subset
import { spawn } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { paintFigures } from '../scripts/host/probes.mjs';
import { fmtMs, table } from './lib/stats.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const GOAL_P95_MS = 100;
const SHIPPED = 'chunks of 64 lines (shipped)';
/**
 * The shipped rendering's p95 in the real host before issue 19, when the preview beside the page
 * kept all of its ~24,000 lines live (CONTRIBUTING.md, "Painting in the real host"; load 4–5).
 */
const BEFORE_ISSUE_19 = { xvfb: '108–190 ms', headless: '92–130 ms' };

const { values: opts } = parseArgs({
  options: { strict: { type: 'boolean', default: false }, only: { type: 'string', default: 'host,browser' } },
});
const only = new Set(opts.only.split(','));

/** Runs a node script, echoing nothing; resolves to the PAINT records it printed (and its exit code). */
function collect(args, env = {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (out += chunk));
    child.on('close', (code) => {
      const records = [...out.matchAll(/PAINT (\{.*\})/g)].map((m) => JSON.parse(m[1]));
      resolve({ code, records, tail: out.trimEnd().split('\n').slice(-15).join('\n') });
    });
  });
}

const runs = [];
if (only.has('host')) {
  for (const browser of ['xvfb', 'headless']) {
    const args = ['scripts/host/run.mjs', '--browser', browser, '--grep', '4096-line page'];
    runs.push({ what: `real host, ${browser}`, ...(await collect(args, { TOR_PAINT_VARIANTS: '1' })) });
  }
}
if (only.has('browser')) runs.push({ what: 'browser suite', ...(await collect(['test/browser/run.mjs', '--grep', 'paint.test'])) });

/**
 * One record per rendering of a run: the rounds of the same rendering pooled (their times; a record
 * without them, the browser suite's, stays as it is).
 */
function pooled(records) {
  const byRendering = new Map();
  for (const r of records) {
    const key = `${r.where}|${r.browser}|${r.rendering}`;
    const seen = byRendering.get(key);
    if (!seen || !seen.times || !r.times) byRendering.set(key, { ...r, rounds: 1 });
    else byRendering.set(key, { ...seen, times: [...seen.times, ...r.times], rounds: seen.rounds + 1 });
  }
  return [...byRendering.values()].map((r) => (r.times ? { ...r, ...paintFigures(r.times).values } : r));
}

let broken = false;
const rows = [];
for (const run of runs) {
  if (run.code !== 0 || run.records.length === 0) {
    broken = true;
    process.stdout.write(`${run.what}: the run failed (exit ${run.code}):\n${run.tail}\n`);
  }
  for (const r of pooled(run.records)) {
    const shipped = r.where === 'host' && r.rendering === SHIPPED;
    const goal = shipped ? `p95 ≤ ${GOAL_P95_MS} ms: ${r.p95 <= GOAL_P95_MS ? 'PASS' : 'MISS'}` : '';
    rows.push([
      r.where,
      r.browser,
      r.rendering,
      String(r.lines),
      String(r.runs),
      r.previewRows === undefined ? '' : String(r.previewRows),
      fmtMs(r.median),
      fmtMs(r.p95),
      fmtMs(r.max),
      r.lost ? `${r.lost} lost` : '',
      shipped ? (BEFORE_ISSUE_19[r.browser] ?? '') : '',
      goal,
    ]);
  }
}
process.stdout.write(`\nSlider input → painted page, 4096-line page\n`);
process.stdout.write(
  `${table(['where', 'browser', 'rendering', 'lines', 'jumps', 'preview rows', 'median', 'p95', 'max', '', 'p95 before issue 19', 'goal'], rows)}\n`,
);
process.stdout.write(
  `(load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} on ${cpus().length} CPUs)\n`,
);
const missed = rows.some((r) => r[0] === 'host' && r[2] === SHIPPED && r.at(-1).endsWith('MISS'));
process.exitCode = broken || (opts.strict && missed) ? 1 : 0;
