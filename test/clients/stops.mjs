// How each client stopped our MCP server when its run ended (tap.mjs records the cues and the end;
// measure.mjs: stopOf; scenarios.mjs: serverStops), what the suite asserts of it and how the report
// shows it. The server promises (issue 39 §6): a client never has to SIGKILL it, it ends soon after
// the client's first cue, and it leaves no door files behind.
import { scaled } from './clients.mjs';

/**
 * The most a server may take from its first stop cue to its end: half of the shortest grace a client
 * gives before SIGKILL (Claude Code 2.1.332: SIGINT, SIGTERM 100 ms later, SIGKILL 400 ms after that).
 * Its own work takes ~1 ms; the rest is waiting for a core: measured up to 133 ms at a load of 18.
 */
export const EXIT_BOUND_MS = scaled(250);

/**
 * The clients that SIGKILL their servers with no grace, whose kills are reported and not asserted:
 * Copilot CLI 1.0.102 sends SIGTERM and, from another thread 2-3 ms later, SIGKILL, or SIGKILL alone
 * (strace -f -ttt of its runs), to the process it started and to that process's child.
 */
export const KILLS_AT_ONCE = new Set(['Copilot CLI']);

/**
 * Asserts the stops of one run's servers, or of every run of a race (`stops`: serverStops, flattened),
 * for `client` (a CLIENT_NAMES value); those this suite caused are not the client's. A kill before any
 * cue reached the server (it was not scheduled in time, or there was none) is reported, not asserted.
 */
export function assertStops(name, client, stops, check) {
  const cued = stops.filter((s) => s.cued && !s.bySuite);
  const left = stops.filter((s) => s.doorLeft.length);
  if (stops.length)
    check(`${name}: no door files left after our server ended`, left.length === 0, left.flatMap((s) => s.doorLeft).join(', '));
  if (!cued.length) return;
  const atOnce = KILLS_AT_ONCE.has(client);
  const late = cued.filter((s) => (s.killed && !atOnce) || s.exitMs > EXIT_BOUND_MS);
  const times = cued.map((s) => s.exitMs).filter((x) => x !== undefined);
  const how = atOnce
    ? `killed at once by the client in ${cued.filter((s) => s.killed).length} (its own SIGKILL, not asserted); the others`
    : 'never killed by the client, and';
  check(
    `${name}: our server, told to stop (${cued.length} process${cued.length > 1 ? 'es' : ''}): ${how} ended ≤ ${EXIT_BOUND_MS} ms after the first cue (max ${times.length ? Math.max(...times) : '–'} ms)`,
    late.length === 0,
    late.map((s) => `pid ${s.pid} stopped by ${s.stoppedBy}, ${s.killed ? 'killed' : `ended ${s.exitMs} ms after`}`).join('; '),
  );
}

const ms = (x) => (x === undefined ? '–' : Math.round(x).toLocaleString('en-US'));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const killedCell = (s, client) => (!s.killed ? 'no' : KILLS_AT_ONCE.has(client) ? 'yes (at once)' : '**yes**');
const stopCells = (s, client) =>
  s.bySuite
    ? ['stopped by this suite', '–', s.killed ? 'yes' : 'no', s.doorLeft.length || 'none']
    : [s.stoppedBy, ms(s.exitMs), killedCell(s, client), s.doorLeft.length ? `**${s.doorLeft.length}**` : 'none'];

/** A race run's servers in one cell: "SIGINT: 2 ms", "this suite", "…: **killed**". */
export const stopsCell = (stops) =>
  (stops ?? [])
    .map((s) =>
      s.bySuite
        ? 'this suite'
        : `${s.stoppedBy}: ${s.killed ? '**killed**' : ms(s.exitMs)}${s.doorLeft.length ? ', **door files left**' : ''}`,
    )
    .join('; ') || '–';

/** One row per server process of each run the client started over stdio (HTTP runs: this suite stops the server). */
export function stopsSection(runs) {
  const rows = runs.flatMap((run) =>
    (run.stops ?? []).map((s) => `| ${run.cli} | ${run.how} | ${run.load?.toFixed(1) ?? '–'} | ${stopCells(s, run.cli).join(' | ')} |`),
  );
  if (!rows.length) return '';
  return [
    `How each client stopped our server when its run ended, as our server's process saw it (tap.mjs, in the process the client started): the first stop cue (a signal, or stdin's end) and each later one, the time from the first cue to the process's end (from when its event loop took the cue; a wait for a core before that is not in it), and whether it was killed (no end recorded; "at once": ${[...KILLS_AT_ONCE].join(', ')}, which sends SIGKILL with no grace, 2-3 ms after its SIGTERM or alone). "Door files": the hook door's \`<pid>.json\`/\`<pid>.sock\` still in the run folder after the run. Load: the 1-minute load average as the run ended.`,
    '',
    '| Client | Configured | Load | Stopped by | Ended (ms after the first cue) | Killed | Door files left |',
    '|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** Per client of the start-up race (`names`: its rows' names): how the runs' servers were stopped, counted by cues, with the times to their end. */
export function raceStopsSection(race, names) {
  const clients = Object.entries(race?.clients ?? {}).filter(([, rows]) => rows.some((r) => r.stops));
  if (!clients.length) return '';
  const out = [
    'How each client stopped our server at the end of each race run (as in "How each client stopped our server" above; "this suite": the run was stopped by this suite\'s SIGTERM after the first model request, as OpenCode, Kilo Code and Cline are, or after the client had exited and left the server running):',
    '',
    '| Client | Stopped by (runs) | Ended (ms after the first cue: median, max) | Killed | Door files left | Load |',
    '|---|---|---|---|---|---|',
  ];
  for (const [key, rows] of clients) {
    const stops = rows.flatMap((r) => r.stops ?? []);
    const byClient = stops.filter((s) => !s.bySuite);
    const counts = new Map();
    for (const s of stops) {
      // By the cues alone: when a later one came is in each run's row of measured.json.
      const how = s.bySuite ? 'this suite' : s.stoppedBy.replace(/ \+\d+ ms/g, '');
      counts.set(how, (counts.get(how) ?? 0) + 1);
    }
    const times = byClient.map((s) => s.exitMs).filter((x) => x !== undefined);
    const loads = rows.map((r) => r.load);
    out.push(
      `| ${names[key]} | ${[...counts].map(([how, n]) => `${how}: ${n}`).join('; ')} | ${times.length ? `${ms(median(times))}, ${ms(Math.max(...times))}` : '–'} | ${byClient.filter((s) => s.killed).length}/${byClient.length}${[...KILLS_AT_ONCE].some((c) => names[key].startsWith(c)) ? ' (at once)' : ''} | ${stops.filter((s) => s.doorLeft.length).length}/${stops.length} | ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} |`,
    );
  }
  return out.join('\n');
}
