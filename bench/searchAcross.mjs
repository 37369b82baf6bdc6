// Searching a whole workspace (issue 38 §3): `node bench/searchAcross.mjs` after a build (`npm run bench` runs it).
//
// The workspace: 10 closed sessions × 64 MiB, 210 outputs each of log-like text (4 KiB to 2 MiB),
// with rare needles at known places (lib/acrossFixture.mjs; cached in the temp folder between runs),
// and the same bytes as files, one per output. In the same run, interleaved (order rotated per rep),
// median of --reps: `grep -rnE PATTERN files | wc -l`, `rg -n PATTERN files | wc -l` (if installed),
// our search of every output with every page (cursor passed back until none remains; maxMatches 1000,
// 1000 per output, so every hit comes back), and our first page with the tool's defaults (maxMatches
// 50, 5 per output), that first page again in a process whose catalog warmed its search worker
// first, and the first call of a fresh MCP server 2 s after its client listed the tools (lib/serverFirstCall.mjs). Ours runs in a fresh process per measurement (lib/searchAcrossChild.mjs): cold
// for our process and its search worker; the OS page cache is warm for every side (the files and the
// session files were read by the earlier reps, and the machine has the memory to keep them).
//
// Goals: all pages ≤ 1.5 × grep's time; a first page ≤ 200 ms whatever the total. Reported, not
// gated: exit 0 unless --strict and a goal is missed.
//
// Options: --reps=N (default 5)  --all-reps=N (reps of "all pages", default 3, at most --reps)
//          --all-budget-s=S (no more "all pages" runs of a pattern once its runs add up to S seconds; default 45)  --strict
//          --rebuild (rebuild the cached fixture)
//          --sessions=N --session-mib=M (the workspace's shape; default 10 × 64)  --only=PATTERN-NAME,…
// TOR_BENCH_ACROSS_DIR=<folder> puts the fixture there; TOR_BENCH_CORE=/path/to/core.js runs another build.
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { cpus, loadavg, totalmem } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureFixture, folderBytes, NEEDLE } from './lib/acrossFixture.mjs';
import { serverFirstCall } from './lib/serverFirstCall.mjs';
import { median, max, msSince, fmtMs, fmtMiB, fmtRatio, table } from './lib/stats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const core = require(process.env.TOR_BENCH_CORE ?? '../dist/core.js');

const argv = process.argv.slice(2);
const option = (name, fallback) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const REPS = Math.max(1, Number(option('reps', 5)));
// Every page of a common pattern is ~120 round trips of the search worker, the costliest subject by far: fewer
// reps by default, and none more once a pattern's runs of it add up to ALL_BUDGET_MS (at least one run each).
const ALL_REPS = Math.min(REPS, Math.max(1, Number(option('all-reps', 3))));
const ALL_BUDGET_MS = Math.max(0, Number(option('all-budget-s', 45))) * 1000;
const SESSIONS = Math.max(1, Number(option('sessions', 10)));
const SESSION_MIB = Math.max(8, Number(option('session-mib', 64)));
const strict = argv.includes('--strict');
const log = (...parts) => process.stderr.write(`${parts.join(' ')}\n`);

const GOAL_RATIO = 1.5;
const GOAL_FIRST_MS = 200;
/** When a fresh MCP server's first search comes after its client listed the tools: the model's first turn. */
const SERVER_CALL_AFTER_MS = 2000;
const SERVER_SCRIPT = path.join(path.dirname(process.env.TOR_BENCH_CORE ?? path.join(here, '..', 'dist', 'core.js')), 'mcp.js');

/** The patterns, as grep/rg take them and as our search does (our default is any case: the literal rows ask for exact case, as grep's default). */
const PATTERNS = [
  { name: 'absent literal', pattern: 'qzx-never-printed-19', caseSensitive: true },
  { name: 'rare literal (needle)', pattern: NEEDLE, caseSensitive: true },
  { name: 'common literal', pattern: 'timeout', caseSensitive: true },
  { name: 'regex, rare combination', pattern: 'ERROR.*pool.*id=7f3a', regex: true, caseSensitive: true },
  { name: 'literal, any case (-i)', pattern: 'DEADLOCK DETECTED', caseSensitive: false },
].filter((p) => !argv.some((a) => a.startsWith('--only=')) || option('only').split(',').includes(p.name));

const started = process.hrtime.bigint();
const loadBefore = loadavg();
const rgPath = spawnSync('sh', ['-c', 'command -v rg'], { encoding: 'utf8' }).stdout.trim();

const fixture = await ensureFixture(core, { sessions: SESSIONS, sessionMiB: SESSION_MIB, rebuild: argv.includes('--rebuild'), log });
const { storesDir, filesDir, meta } = fixture;
log(`fixture ${fixture.cached ? 'cached' : `built in ${meta.buildSeconds} s`}: ${fixture.dir}`);
await verify();

const quote = (text) => `'${text.replace(/'/g, `'\\''`)}'`;
/** A shell pipeline's wall ms, its stdout (the count) and its children's CPU ms (bash's `times`). */
function shell(command) {
  return new Promise((resolve, reject) => {
    const t = process.hrtime.bigint();
    const child = spawn('bash', ['-c', `${command}; times`], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = msSince(t);
      if (code !== 0) return reject(new Error(`${command} exited ${code}`));
      const lines = out.trim().split('\n');
      // `times`: the shell's user and sys, then its children's ("0m0.123s 0m0.045s").
      const seconds = (field) => {
        const m = /(\d+)m([\d.]+)s/.exec(field);
        return m ? Number(m[1]) * 60 + Number(m[2]) : NaN;
      };
      const [cu, cs] = lines[lines.length - 1].split(/\s+/);
      resolve({ ms, count: Number(lines[0]), cpuMs: (seconds(cu) + seconds(cs)) * 1000 });
    });
  });
}
const grep = (p) => shell(`grep -rnE ${p.caseSensitive ? '' : '-i '}-- ${quote(p.pattern)} ${quote(filesDir)} | wc -l`);
const rg = (p) => shell(`${quote(rgPath)} -n ${p.caseSensitive ? '' : '-i '}-- ${quote(p.pattern)} ${quote(filesDir)} | wc -l`);

/** Our search in a fresh process (lib/searchAcrossChild.mjs); its JSON line. */
function ours(mode, p = { pattern: 'x' }) {
  return new Promise((resolve, reject) => {
    const request = JSON.stringify({
      mode,
      storesDir,
      pattern: p.pattern,
      regex: p.regex ?? false,
      caseSensitive: p.caseSensitive ?? false,
    });
    const child = spawn(process.execPath, [path.join(here, 'lib', 'searchAcrossChild.mjs'), request], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`searchAcrossChild ${mode} exited ${code}`));
      try {
        resolve(JSON.parse(out.trim().split('\n').pop()));
      } catch {
        reject(new Error(`searchAcrossChild ${mode} printed no JSON: ${out}`));
      }
    });
  });
}

/** Every output of the fixture is listed by a catalog, none evicted: the engine still reads this fixture. */
async function verify() {
  const listed = await ours('list');
  // The catalog adds the child's own (empty) current session to the fixture's.
  if (listed.outputsInScope !== meta.outputs || listed.unreadable > 0 || listed.sessions !== SESSIONS + 1) {
    throw new Error(
      `the cached fixture lists ${listed.outputsInScope} outputs in ${listed.sessions - 1} sessions (${listed.unreadable} unreadable), not ${meta.outputs} in ${SESSIONS}: run with --rebuild`,
    );
  }
}

const idle = await ours('idle');
const samples = PATTERNS.map(() => ({ grep: [], rg: [], all: [], first: [], started: [], server: [] }));
for (let rep = 0; rep < REPS; rep++) {
  for (const [k, p] of PATTERNS.entries()) {
    const subjects = [
      ['grep', () => grep(p)],
      ...(rgPath ? [['rg', () => rg(p)]] : []),
      ...(rep < ALL_REPS && samples[k].all.reduce((sum, x) => sum + x.ms, 0) < ALL_BUDGET_MS ? [['all', () => ours('all', p)]] : []),
      ['first', () => ours('first', p)],
      ['started', () => ours('started', p)],
      ['server', () => serverFirstCall({ serverScript: SERVER_SCRIPT, storesDir, ...p, afterMs: SERVER_CALL_AFTER_MS })],
    ];
    for (let j = 0; j < subjects.length; j++) {
      const [name, run] = subjects[(j + rep + k) % subjects.length];
      const result = await run();
      samples[k][name].push(result);
      log(
        `rep ${rep + 1}/${REPS} ${p.name.padEnd(24)} ${name.padEnd(7)} ${fmtMs(result.ms).padStart(9)}  hits ${result.count ?? result.hits}`,
      );
    }
  }
}

// ---------------------------------------------------------------------------------------------

const med = (list, pick = (s) => s.ms) => median(list.map(pick));
const rows = [];
const details = [];
const goals = [];
const notes = [];
for (const [k, p] of PATTERNS.entries()) {
  const s = samples[k];
  const grepMs = med(s.grep);
  const rgMs = rgPath ? med(s.rg) : NaN;
  const allMs = med(s.all);
  const firstMs = med(s.first);
  const serverMs = med(s.server);
  const ratio = allMs / grepMs;
  const hits = [s.grep[0].count, rgPath ? s.rg[0].count : '-', s.all[0].hits, s.first[0].hits].join(' / ');
  rows.push([
    p.name,
    fmtMs(grepMs),
    rgPath ? fmtMs(rgMs) : 'n/a',
    fmtMs(allMs),
    fmtRatio(ratio),
    rgPath ? fmtRatio(allMs / rgMs) : '-',
    fmtMs(firstMs),
    hits,
  ]);
  const grepCpu = med(s.grep, (x) => x.cpuMs);
  const allCpu = med(s.all, (x) => x.cpuMs);
  details.push([
    p.name,
    `${s.all[0].pages} (${s.all.length} run${s.all.length === 1 ? '' : 's'})`,
    fmtMs(grepCpu),
    rgPath ? fmtMs(med(s.rg, (x) => x.cpuMs)) : 'n/a',
    fmtMs(allCpu),
    fmtRatio(allCpu / grepCpu),
    fmtMs(med(s.all, (x) => x.firstPageMs)),
    `${s.first[0].outputs} / ${fmtMiB(s.first[0].bytes)}${s.first[0].more ? ', cursor' : ''}`,
    fmtMs(med(s.first, (x) => x.warmMs)),
    `${fmtMs(med(s.started))} (warm-up ${fmtMs(med(s.started, (x) => x.warmUpMs))})`,
    `${fmtMs(serverMs)} (${s.server[0].hits} hits)`,
    String(s.all[0].truncatedOutputs),
  ]);
  goals.push({ name: `${p.name}: all pages ≤ ${GOAL_RATIO}× grep (${fmtRatio(ratio)})`, pass: ratio <= GOAL_RATIO });
  goals.push({ name: `${p.name}: first page ≤ ${GOAL_FIRST_MS} ms, a fresh process (${fmtMs(firstMs)})`, pass: firstMs <= GOAL_FIRST_MS });
  goals.push({
    name: `${p.name}: first page ≤ ${GOAL_FIRST_MS} ms, a fresh MCP server ${SERVER_CALL_AFTER_MS / 1000} s after tools/list (${fmtMs(serverMs)})`,
    pass: serverMs <= GOAL_FIRST_MS,
  });
  if (s.all[0].hits !== s.grep[0].count)
    notes.push(
      `${p.name}: ours returned ${s.all[0].hits} hits over all pages, grep ${s.grep[0].count} lines (a line may hold two matches; ` +
        `${s.all[0].truncatedOutputs} outputs were cut at 1000 per output, "moreInOutput").`,
    );
}

const storesBytes = await folderBytes(storesDir);
const filesBytes = await folderBytes(filesDir);
const peakAll = max(samples.flatMap((s) => s.all.map((x) => x.hwmKiB)));
const peakFirst = max(samples.flatMap((s) => s.first.map((x) => x.hwmKiB)));
const loadAfter = loadavg();
const fmtLoad = (l) => l.map((v) => v.toFixed(2)).join(', ');

process.stdout.write(
  `\nSearching a whole workspace — node ${process.version}, ${cpus().length} cores, ${fmtMiB(totalmem())} RAM, ` +
    `load average ${fmtLoad(loadBefore)} → ${fmtLoad(loadAfter)}, total ${(msSince(started) / 1000).toFixed(0)} s\n` +
    `${SESSIONS} sessions × ${SESSION_MIB} MiB, ${meta.outputs} outputs (${meta.sessions.map((x) => x.outputs).join('/')} per session, ` +
    `${Math.min(...meta.sessions.map((x) => x.minOutput)) / 1024}–${Math.max(...meta.sessions.map((x) => x.maxOutput)) / 1024} KiB each), ${fmtMiB(meta.totalBytes)} in all; ` +
    `median of ${REPS} (all pages: ${ALL_REPS}, fewer past ${ALL_BUDGET_MS / 1000} s a pattern), interleaved, order rotated. Ours: a fresh process per run (cold: new search worker, views opened anew); ` +
    `OS page cache warm for every side. grep ${spawnSync('grep', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0]}, ` +
    `${rgPath ? spawnSync(rgPath, ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0] : 'rg: not installed (apt-get install ripgrep)'}, LANG=${process.env.LANG ?? ''}\n\n`,
);
process.stdout.write(
  `${table(['pattern', 'grep -rnE', 'rg -n', 'ours, all pages', 'ours/grep', 'ours/rg', 'first page', 'hits: grep / rg / ours / 1st page'], rows)}\n\n`,
);
process.stdout.write(
  `${table(
    [
      'pattern (info)',
      'all: pages (runs)',
      'grep CPU',
      'rg CPU',
      'ours CPU',
      'CPU ours/grep',
      'all: page 1',
      'first page: outputs / bytes',
      'first page, warm',
      'first page, warmed at start',
      `first page, fresh MCP server`,
      'outputs cut',
    ],
    details,
  )}\n`,
);
process.stdout.write(
  `\n(grep and rg count matching lines; ours counts matches. "ours, all pages": maxMatches 1000 and 1000 per output, cursor until none; ` +
    `"first page": the tool's defaults (maxMatches 50, 5 per output, the default page time), in a fresh process; "warm": the same page again in that process; ` +
    `"warmed at start": the first page in a fresh process whose catalog warmed its search worker first (OutputCatalog.warm), the warm-up's time beside it. ` +
    `"fresh MCP server": node dist/mcp.js started by an SDK client over stdio, which lists the tools and calls search_tool_output {session: "all"} ${SERVER_CALL_AFTER_MS / 1000} s later ` +
    `(the model's first turn; the server warms its search when a client lists the tools), the call's round trip; the fixture announced as VS Code's sessions (lib/serverFirstCall.mjs). ` +
    `CPU: user+sys of grep and wc, of rg's threads, of our process's threads (the store and search workers included). ` +
    `"outputs cut": outputs a page cut at 1000 per output ("moreInOutput"; a page full inside an output continues there on the next one).)\n`,
);
if (notes.length) process.stdout.write(`\n${notes.map((n) => `* ${n}`).join('\n')}\n`);
process.stdout.write(
  `\nStores on disk: ${fmtMiB(storesBytes)} for ${fmtMiB(meta.totalBytes)} of outputs (${fmtRatio(storesBytes / meta.totalBytes)}); the files: ${fmtMiB(filesBytes)}. ` +
    `Peak RSS of our search process (VmHWM, main thread + store worker + search worker): all pages ${fmtMiB(peakAll * 1024)}, ` +
    `first page ${fmtMiB(peakFirst * 1024)}, opened and closed without a search ${fmtMiB(idle.hwmKiB * 1024)}. ` +
    `A fresh MCP server's RSS (its process, VmRSS) just before its first call: ${fmtMiB(median(samples.flatMap((s) => s.server.map((x) => x.idleRssMiB))) * 1024 * 1024)}.\n`,
);
if (!rgPath) process.stdout.write('rg: not installed (apt-get install ripgrep)\n');
process.stdout.write('\n');
for (const goal of goals) process.stdout.write(`${goal.pass ? 'met   ' : 'missed'}  ${goal.name}\n`);
const missed = goals.filter((g) => !g.pass);
process.stdout.write(`\n${goals.length - missed.length}/${goals.length} goals met\n`);
process.exitCode = strict && missed.length ? 1 : 0;
