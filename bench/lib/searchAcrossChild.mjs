// One search across every retained output of a folder, in a fresh process (bench/searchAcross.mjs):
// cold for our side (a new Node process, a new search worker, every session's read-only view opened
// anew; the OS page cache is the machine's, warm, as it is for grep). Opens a worker store of its
// own in a scratch folder (the "current" session, empty, as the MCP server would) and an
// OutputCatalog over the fixture's folder, then:
//   first: the first page with the tool's defaults (maxMatches 50, 5 per output, the default page
//          time), then the same page again in the same process (warm: info).
//   started: the same first page in a process whose catalog warmed its search worker first (as a
//          front end's does a second after it starts: worker, sql.js, every session's index), then
//          the page again (warm).
//   all:   every page, the cursor passed back until none remains (maxMatches 1000, 1000 per output).
//   idle:  opens and closes only (the baseline of the peak RSS).
//   list:  lists every session's outputs (indexes only): the fixture check.
// Prints one JSON line. ms counts from the first search call (the store is open, the search worker
// is not started yet); cpuMs is the whole process's CPU time over the same span (all its threads).
//   node bench/lib/searchAcrossChild.mjs '<json: {mode, storesDir, pattern, regex, caseSensitive}>'
import { createRequire } from 'node:module';
import { promises as fs, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const require = createRequire(import.meta.url);
const core = require(process.env.TOR_BENCH_CORE ?? '../../dist/core.js');
const { mode, storesDir, pattern, regex = false, caseSensitive = false } = JSON.parse(process.argv[2]);

/** VmHWM, this process's own peak RSS (maxRSS also counts the parent's RSS at spawn on Linux). */
function hwmKiB() {
  try {
    return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))[1]);
  } catch {
    return NaN;
  }
}

const msSince = (t) => Number(process.hrtime.bigint() - t) / 1e6;
const cpuMsSince = (c) => {
  const used = process.cpuUsage(c);
  return (used.user + used.system) / 1000;
};
const hitsOf = (page) => page.groups.reduce((sum, group) => sum + group.matches.length, 0);

const scratch = await fs.mkdtemp(path.join(tmpdir(), 'tor-across-current-'));
const current = await core.openWorkerStore({ dir: scratch });
// A fresh process measures cold: a catalog warms only when asked (mode "started" asks and waits for it).
const catalog = new core.OutputCatalog({ folders: async () => [{ dir: storesDir }], current: async () => current });
const result = { mode };
try {
  const search = (options) =>
    catalog.searchAcross(pattern, { session: 'all', regex, caseSensitive, tool: 'search_tool_output', ...options });
  if (mode === 'started') {
    const t = process.hrtime.bigint();
    await catalog.warm();
    result.warmUpMs = msSince(t);
  }
  if (mode === 'first' || mode === 'started') {
    const cpu = process.cpuUsage();
    const t = process.hrtime.bigint();
    const page = await search({ maxMatches: 50, perOutput: 5 });
    result.ms = msSince(t);
    result.cpuMs = cpuMsSince(cpu);
    result.hits = hitsOf(page);
    result.outputs = page.searchedOutputs;
    result.bytes = page.searchedBytes;
    result.outputsInScope = page.outputsInScope;
    result.more = page.cursor !== undefined;
    result.unreadable = page.unreadable.length;
    const warm = process.hrtime.bigint();
    await search({ maxMatches: 50, perOutput: 5 });
    result.warmMs = msSince(warm);
  } else if (mode === 'all') {
    const cpu = process.cpuUsage();
    const t = process.hrtime.bigint();
    let cursor;
    Object.assign(result, { hits: 0, pages: 0, outputs: 0, bytes: 0, truncatedOutputs: 0, unreadable: 0 });
    do {
      const page = await search({ maxMatches: 1000, perOutput: 1000, ...(cursor ? { cursor } : {}) });
      result.pages++;
      result.hits += hitsOf(page);
      result.outputs += page.searchedOutputs;
      result.bytes += page.searchedBytes;
      result.truncatedOutputs += page.groups.filter((group) => group.truncated).length;
      result.outputsInScope = page.outputsInScope;
      result.unreadable = Math.max(result.unreadable, page.unreadable.length);
      if (result.pages === 1) result.firstPageMs = msSince(t);
      cursor = page.cursor;
    } while (cursor);
    result.ms = msSince(t);
    result.cpuMs = cpuMsSince(cpu);
  } else if (mode === 'list') {
    // What the catalog lists from the sessions' indexes (no copy read): the bench checks its fixture with it.
    const page = await catalog.list({ session: 'all', limit: 1 }, 'list_tool_outputs');
    result.outputsInScope = page.matching;
    result.sessions = page.sessions;
    result.unreadable = page.unreadable.length;
  } else if (mode !== 'idle') {
    throw new Error(`unknown mode ${mode}`);
  }
} finally {
  await catalog.close();
  await current.close();
  await fs.rm(scratch, { recursive: true, force: true });
}
result.hwmKiB = hwmKiB();
result.maxRssKiB = process.resourceUsage().maxRSS;
process.stdout.write(`${JSON.stringify(result)}\n`);
