// The real-CLI suite (`npm test` runs it as "clients"): Claude Code, Codex, Gemini CLI, Qwen Code,
// Copilot CLI, OpenCode, Kilo Code and Cline from npm, pinned and installed by scripts/clients/setup.mjs, each configured as docs/agents.md
// says (stdio, HTTP with the token in an environment variable) and as Connect Other Agents writes it,
// drive our server against the scripted model on 127.0.0.1 (model.mjs, script.mjs). Everything runs offline.
//
// Asserted for every run: our server started and answered, the model was offered our three tools,
// the run_command result the model received still holds the status line, the omission marker with
// its read call, the outputId and the output's last line, and the final answer quotes the field.
// Measured and reported (test/clients/REPORT.md, printed too), never asserted on time: bytes sent
// against bytes received per call, the client's cut, time per call, stderr noise, spawn →
// initialize of dist/mcp.js beside `node -e 0`, and what Claude Code's PostToolUse hook receives for
// a 3 MB Bash output. Asserted too (issue 31): under four busy processes per core for the whole
// scenario, Codex and Claude Code over stdio offer our tools in the first model request in every one
// of N runs (--race, 20); with our hooks as Connect Other Agents writes them, a 3 MB output of the
// agent's own shell tool (Claude Code Bash, Gemini CLI and Qwen Code run_shell_command, Copilot CLI
// bash) leads the model to its field in ≤ 2 calls of our tools, the command run once.
//
// The other three run the same race with --race-clients (not in `npm test`: 20 more runs each).
//
// Issue 39 §5 (moreClients.mjs): OpenCode, Kilo Code and Cline as Connect Other Agents writes them, on
// the same output and on ~300,000 short lines (empty ones for Cline), each result asserted whole inside
// the client's own cut with every part present; their own shell tools on 3 MB (OpenCode's and Kilo
// Code's with our plugin as Connect Other Agents writes it, the field on the last and on the middle
// line); the same race with --race-clients opencode,kilo,cline (Cline also without its entry's timeout,
// measured only).
//
// Issue 39 §6 (stops.mjs): each client stops our server its own way when its run ends; asserted for every
// run over stdio and every race run the client ended itself: never killed, ended ≤ EXIT_BOUND_MS after the
// first stop cue, no door files left. `--under-load` runs the evidence chains under the race's load too.
//
//   node test/clients/run.mjs [--only claude,codex,gemini,qwen,copilot,opencode,kilo,cline] [--race N] [--race-clients codex,claude,gemini,qwen,copilot,opencode,kilo,cline] [--race-only] [--under-load] [--keep]
//   node test/clients/run.mjs --report-from <kept>/measured.json,<kept>/measured.json   (REPORT.md from runs kept apart)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import {
  CACHE_DIR,
  CLAUDE_CODE_VERSION,
  CODEX_VERSION,
  COPILOT_CLI_VERSION,
  GEMINI_CLI_VERSION,
  KILO_BINARY_VERSION,
  KILO_CLI_VERSION,
  OPENCODE_VERSION,
  QWEN_CODE_VERSION,
  CLINE_VERSION,
  ensureClients,
} from '../../scripts/clients/setup.mjs';
import { DIST_MCP, root } from './clients.mjs';
import { assertCut, morePlan, ownShells } from './moreClients.mjs';
import { assertStops } from './stops.mjs';
import { CLIENT_NAMES, RACE_NAMES, codeFacts, renderReport, writeReport } from './report.mjs';
import {
  HOOKED_CLIS,
  busyProcesses,
  claudeBashHook,
  claudeBashRecall,
  copilotLimit,
  evidenceRun,
  hookRecall,
  lostIdRun,
  spawnToInitialize,
  startupRace,
} from './scenarios.mjs';

const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const only = option('--only', undefined);
/** Whether `--only` (a comma-separated list of claude, codex, gemini, qwen, copilot, opencode, kilo, cline) leaves `cli` in. */
const wanted = (cli) => !only || only.split(',').includes(cli);
const raceRuns = Number(option('--race', 20));
/** The clients of the start-up race: Codex and Claude Code by default (issue 31 §1 asserts them); any of the five. */
const raceClients = option('--race-clients', 'codex,claude').split(',');
const keep = argv.includes('--keep');
/** `--race-only`: the start-up race of `--race-clients` and nothing else (the measurement runs once, apart). */
const raceOnly = argv.includes('--race-only');
/** `--under-load`: the runs of the plan (each client's evidence chain) under four busy processes per core too: how each client stops our server then. */
const underLoad = argv.includes('--under-load');
/** `--report-from a.json,b.json`: REPORT.md from the measured.json of earlier runs (kept with --keep), later ones' sections over earlier ones'; nothing runs. */
const reportFrom = option('--report-from', undefined);

const counts = { passed: 0, failed: 0, skipped: 0 };
const failures = [];
function check(name, ok, detail = '') {
  counts[ok ? 'passed' : 'failed']++;
  if (!ok) failures.push(`${name}${detail ? `: ${detail}` : ''}`);
  console.log(`  ${ok ? '✔' : '✗'} ${name}${!ok && detail ? `\n      ${detail}` : ''}`);
}

/**
 * `limit`: Copilot CLI's measured cut ({ wholeBytes, … }). A run_command result over it reaches the model as
 * Copilot's note (its first 500 characters): the head must still hold the status line and the outputId;
 * the marker and the tail are then reported, not asserted, until our server sizes results for it.
 */
function assertEvidence(run, limit) {
  const name = `${run.cli} (${run.how})`;
  console.log(
    `\n${name}: exit ${run.exit}${run.timedOut ? ' (timed out)' : ''}, ${run.ms} ms, answer ${JSON.stringify(run.answer.slice(0, 120))}`,
  );
  check(`${name}: our server started and answered ${run.initialize?.method ?? 'initialize'}`, run.serverStarted && !!run.initialize);
  const seen = ['run_command', 'search_tool_output', 'read_tool_output'].filter((tool) =>
    run.toolsSeen.some((name) => name.endsWith(tool)),
  );
  check(
    `${name}: the model was offered run_command, search_tool_output and read_tool_output`,
    seen.length === 3,
    `offered: ${run.toolsSeen.join(', ') || 'none'}`,
  );
  const evidence = run.evidence;
  const runCall = run.calls.find((c) => c.tool.endsWith('run_command'));
  // Only with its default limit (a run that sets COPILOT_LARGE_OUTPUT_THRESHOLD_BYTES must get everything).
  const cutByLimit =
    run.cli === 'Copilot CLI' && !run.env.COPILOT_LARGE_OUTPUT_THRESHOLD_BYTES && limit && runCall && runCall.sentBytes > limit.wholeBytes;
  for (const [key, what] of [
    ['statusLine', 'the status line'],
    ['marker', 'the omission marker with its read call'],
    ['outputId', 'the outputId'],
    ['notable', 'the notable line the preview omitted (an error line in the middle)'],
    ['lastLine', "the output's last line (the tail)"],
  ]) {
    const inHead = key === 'statusLine' || key === 'outputId';
    if (cutByLimit && !inHead)
      check(
        `${name}: the run_command result the model received has ${what}, or Copilot CLI cut it (${runCall.sentBytes.toLocaleString('en-US')} B sent, over its ${limit.wholeBytes.toLocaleString('en-US')} B) to its "Output too large" note`,
        !!evidence?.[key]?.present || /^Output too large/.test(runCall.received),
        `received ${JSON.stringify(runCall.received.slice(0, 200))}`,
      );
    else
      check(
        `${name}: the run_command result the model received has ${what}`,
        !!evidence?.[key]?.present,
        evidence ? `expected ${JSON.stringify(evidence[key]?.expected?.slice(0, 100))}` : 'no run_command call',
      );
  }
  check(`${name}: the answer quotes the checksum`, run.answer.includes(run.checksum), `answer ${JSON.stringify(run.answer.slice(0, 200))}`);
  assertStops(name, run.cli, run.stops, check);
}

async function main() {
  if (reportFrom) {
    const parts = reportFrom.split(',').map((file) => JSON.parse(readFileSync(file, 'utf8')));
    return writeReport(
      Object.assign(
        {},
        ...parts.map((m) => Object.fromEntries(Object.entries(m).filter(([, v]) => v !== undefined && !(Array.isArray(v) && !v.length)))),
      ),
    );
  }
  const bins = ensureClients({ quiet: true });
  if (!existsSync(DIST_MCP)) spawnSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { stdio: 'inherit' });
  // Scratch folders live in the cache, not /tmp: Codex refuses to set up its helpers under a temporary folder and says so on stderr.
  const scratch = mkdtempSync(path.join(CACHE_DIR, 'run-'));
  const connectJs = path.join(scratch, 'connect.cjs');
  await build({
    entryPoints: [path.join(root, 'test/clients/connect.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile: connectJs,
    logLevel: 'error',
  });

  const plan = [
    ['claude', 'stdio'],
    ['claude', 'http'],
    ['claude', 'connect'],
    ['codex', 'stdio'],
    ['codex', 'http'],
    ['codex', 'connect'],
    // The two settings that let a big result through Codex whole (measured, for the table).
    ['codex', 'stdio', ['tool_output_token_limit=20000'], 'stdio, tool_output_token_limit = 20000'],
    [
      'codex',
      'stdio',
      ['mcp_servers.tool-output-recall.tools.run_command.output_token_limit=20000'],
      'stdio, run_command output_token_limit = 20000',
    ],
    // …and the preview size of our server that fits Codex's default limit.
    ['codex', 'stdio', [], 'stdio, server --preview-bytes 10240', ['--preview-bytes', '10240']],
    // The three below each once with the narrowest permission their docs give (the server's entry trusted,
    // or the server's tools allowed by name) and once with the flag that allows everything.
    ['gemini', 'stdio', [], 'stdio, "trust": true', [], { configure: { trust: true }, permission: [] }],
    ['gemini', 'http', [], 'http, --yolo'],
    [
      'qwen',
      'stdio',
      [],
      'stdio, user scope, --allowed-tools mcp__tool-output-recall',
      [],
      { configure: { scope: 'user' }, permission: ['--allowed-tools', 'mcp__tool-output-recall'] },
    ],
    ['qwen', 'http', [], 'http, project scope, --yolo'],
    // Qwen Code's own switch that offers a server's tools directly instead of behind its tool_search.
    ['qwen', 'stdio', [], 'stdio, project scope, --yolo, alwaysLoadTools', [], { configure: { alwaysLoad: true } }],
    ['copilot', 'stdio', [], 'stdio, --allow-tool tool-output-recall', [], { permission: ['--allow-tool', 'tool-output-recall'] }],
    ['copilot', 'http', [], 'http, --allow-all-tools'],
    // The runtime's own setting for its cut (measured below): with it our result reaches the model whole.
    [
      'copilot',
      'stdio',
      [],
      'stdio, --allow-all-tools, COPILOT_LARGE_OUTPUT_THRESHOLD_BYTES=65536',
      [],
      { env: { COPILOT_LARGE_OUTPUT_THRESHOLD_BYTES: '65536' } },
    ],
    ...morePlan(),
  ].filter(([cli]) => wanted(cli) && !raceOnly);
  const runs = [];
  const measured = {
    versions: {
      claude: CLAUDE_CODE_VERSION,
      codex: CODEX_VERSION,
      gemini: GEMINI_CLI_VERSION,
      qwen: QWEN_CODE_VERSION,
      copilot: COPILOT_CLI_VERSION,
      opencode: OPENCODE_VERSION,
      kilo: `${KILO_CLI_VERSION} (binary ${KILO_BINARY_VERSION})`,
      cline: CLINE_VERSION,
    },
    runs,
  };
  try {
    if (wanted('copilot') && !raceOnly) {
      console.log("\nCopilot CLI's cut: the largest text block its model gets whole (a stub server's emit tool, binary search)");
      measured.copilotLimit = await copilotLimit({ scratch, bins, lo: 1024, hi: 256 * 1024 });
      const limit = measured.copilotLimit;
      console.log(`  ${JSON.stringify({ ...limit, probes: limit.probes.length, stderr: undefined })}`);
      check(
        'Copilot CLI: the largest text its model gets whole measured (and whether it counts bytes or characters)',
        !!limit.found && limit.found.cutBytes === limit.found.wholeBytes + 1,
        `answer ${JSON.stringify(limit.answer.slice(0, 200))}; ${limit.stderr}`,
      );
      check(
        'Copilot CLI: over it, the model gets the "Output too large… Saved to" note with a preview of the first characters',
        /^Output too large/.test(limit.noteHead) && limit.previewChars === limit.previewSaid,
        JSON.stringify(limit.noteHead),
      );
    }
    const planBusy = underLoad && plan.length ? busyProcesses({ perCore: 4 }) : undefined;
    if (planBusy)
      console.log(
        `\nThe runs below under load: up to ${planBusy.count} busy processes, load average ${(await planBusy.ready()).toFixed(1)}`,
      );
    for (const [cli, how, codexConfig, label, serverArgs, extra = {}] of plan) {
      let run = await evidenceRun({ cli, how, scratch, bins, connectJs, codexConfig, serverArgs, label, ...extra });
      // A call the client lost on its own connection before our server received it (seen with Qwen Code over
      // HTTP on a loaded machine) is its failure, not ours: one more try, and the report says why.
      if (run.clientLostCall) {
        console.log(`\n${run.cli} (${run.how}): the client lost a call before our server got it, trying once more: ${run.clientLostCall}`);
        const lost = run.clientLostCall;
        run = {
          ...(await evidenceRun({ cli, how, scratch, bins, connectJs, codexConfig, serverArgs, label, ...extra })),
          retriedAfter: lost,
        };
      }
      runs.push({ ...run, load: loadavg()[0] });
      assertEvidence(run, measured.copilotLimit?.found);
      assertCut(run, check);
    }
    planBusy?.stop();

    if (wanted('gemini') && wanted('claude') && !raceOnly) {
      console.log('\nIssue 38: Claude Code finds an output Gemini CLI ran, without its outputId (search_tool_output, "session": "all")');
      const lost = await lostIdRun({ first: 'gemini', second: 'claude', scratch, bins, connectJs });
      measured.lostId = lost;
      const name = `${lost.second} finding ${lost.first}'s output`;
      console.log(
        `  calls: ${lost.calls.map((c) => `${c.tool} ${JSON.stringify(c.input)}`).join(' → ')}; answer ${JSON.stringify(lost.answer.slice(0, 120))}`,
      );
      check(`${lost.first}: ran the command through run_command`, lost.firstRan);
      const [search, read] = lost.calls;
      check(
        `${name}: the search of every session the model received names that output and its session`,
        !!search && /"session":"s[0-9]/.test(search.received) && search.received.includes('checksum='),
        search?.received.slice(0, 300),
      );
      check(
        `${name}: read with that session, in 2 calls of our tools, nothing run again`,
        lost.calls.length === 2 && !!read?.input.session && !lost.calls.some((c) => c.tool.endsWith('run_command')),
      );
      check(`${name}: the answer quotes the checksum`, lost.answer.includes(lost.checksum), lost.answer.slice(0, 200));
    }

    if (!raceOnly) {
      console.log('\nspawn → initialize reply (dist/mcp.js) beside spawn → exit (node -e 0)');
      measured.spawn = await spawnToInitialize({ scratch, runs: 10 });
      check(
        'spawn → initialize of dist/mcp.js measured (10 runs)',
        measured.spawn.server.every((ms) => typeof ms === 'number'),
      );
    }

    // Issue 31 §1: Codex (its default 1 s start-up grace) and Claude Code over stdio, under four busy
    // processes per core for the whole scenario, offer our tools in the first model request every time.
    // Claude Code with the documented entry (docs/agents.md), which has `"alwaysLoad": true` (its schema's key that makes it
    // connect the server before its first turn instead of beside it: without it, 19 of 20 in two full runs).
    const racing = [
      ['codex', 'codex', {}],
      ['claude', 'claude-alwaysLoad', { alwaysLoad: true }],
      ['gemini', 'gemini', {}],
      ['qwen', 'qwen', {}],
      ['copilot', 'copilot', {}],
      ['opencode', 'opencode', {}],
      ['kilo', 'kilo', {}],
      // Cline with the documented entry ("timeout": 600), and as `cline mcp install` writes it (no timeout: 3 s for initialize).
      ['cline', 'cline', {}],
      ['cline', 'cline-noTimeout', { timeout: false }],
    ].filter(([cli]) => wanted(cli) && raceClients.includes(cli));
    if (racing.length) {
      const busy = busyProcesses({ perCore: 4 });
      try {
        const loadAtStart = await busy.ready();
        console.log(
          `\nStart-up race under load: up to ${busy.count} busy processes (4 per core), ${busy.running()} spinning, load average ${loadAtStart.toFixed(1)}`,
        );
        measured.race = { busy: busy.count, loadAtStart, runs: raceRuns, clients: {} };
        for (const [cli, key, configure] of racing) {
          console.log(`\n${RACE_NAMES[key]}, ${raceRuns} runs`);
          measured.race.clients[key] = await startupRace({ cli, scratch, bins, runs: raceRuns, busy, configure });
        }
        measured.race.loadAtEnd = busy.load();
      } finally {
        busy.stop();
      }
      for (const [cli, key] of racing) {
        const rows = measured.race.clients[key];
        const offered = rows.filter((r) => r.ourToolsOffered).length;
        const loads = rows.map((r) => r.load);
        // Measured, not asserted: Cline's entry without a timeout (what `cline mcp install` writes; Connect writes 600).
        if (key === 'cline-noTimeout') {
          console.log(`  ${RACE_NAMES[key]}: our tools in the first model request in ${offered}/${raceRuns} runs`);
          continue;
        }
        check(
          `${RACE_NAMES[key]} under load (${measured.race.busy} busy processes, load ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}): our tools in the first model request in ${offered}/${raceRuns} runs`,
          rows.length === raceRuns && offered === raceRuns,
          `runs without: ${rows
            .filter((r) => !r.ourToolsOffered)
            .map(
              (r) =>
                `${r.run} (tools/list asked at ${r.toolsAskedMs} ms, replied at ${r.toolsListedMs} ms; first model request at ${r.firstModelRequestMs} ms with ${r.firstRequestTools} tools)`,
            )
            .join(', ')}`,
        );
        assertStops(
          `${RACE_NAMES[key]}, ${raceRuns} runs`,
          CLIENT_NAMES[cli],
          rows.flatMap((r) => r.stops),
          check,
        );
      }
    }

    // Issue 31 §3: the agents' own shell tools with our hooks, as Connect Other Agents writes them.
    measured.hooked = [];
    for (const cli of HOOKED_CLIS.filter((cli) => wanted(cli) && !raceOnly))
      for (const fieldAt of ['end', 'middle']) {
        const label = `${CLIENT_NAMES[cli]} ${cli === 'copilot' ? 'bash' : 'run_shell_command'} (3 MB, the field on the ${fieldAt === 'end' ? 'last' : 'middle'} line) with our hook as Connect Other Agents writes it`;
        console.log(`\n${label}`);
        const r = await hookRecall({ cli, scratch, bins, connectJs, megabytes: 3, fieldAt });
        measured.hooked.push(r);
        console.log(
          `  exit ${r.exit}${r.timedOut ? ' (timed out)' : ''}, ${r.ms} ms; output ${r.outputBytes} B, the agent's cut ${r.cutBytes} B (field ${r.cutHasField ? 'in it' : 'not in it'}), hook context ${r.contextBytes ?? 'none'} B (${r.contextWhere ?? '–'}), our calls ${r.ourCalls.length}, command runs ${r.commandRuns}, answer ${JSON.stringify(r.answer.slice(0, 120))}`,
        );
        check(
          `${label}: the request after the shell call holds our hook's context`,
          !!r.context,
          `answer ${JSON.stringify(r.answer.slice(0, 300))}; ${r.stderr.slice(0, 300)}`,
        );
        check(
          `${label}: the context's outputId is in our server's session (its session file), the whole output (less the last line break at most)`,
          !!r.retained && r.retained.complete && r.retained.bytes >= r.outputBytes - 1, // Qwen Code drops the last line break
          `outputId ${r.outputId}; retained ${JSON.stringify(r.retained)}; output ${r.outputBytes} B`,
        );
        check(
          `${label}: the field reached the model in ≤ 2 calls of our tools${fieldAt === 'end' ? " (0: it is in the context's tail)" : ''}, the command ran once`,
          r.modelAnswer.includes(r.checksum) &&
            r.ourCalls.length <= (fieldAt === 'end' ? 0 : 2) &&
            r.commandRuns === 1 &&
            r.shellCalls === 1,
          `model's answer ${JSON.stringify(r.modelAnswer.slice(0, 200))} (the CLI printed ${JSON.stringify(r.answer.slice(0, 100))}); our calls ${JSON.stringify(r.ourCalls).slice(0, 400)}; command runs ${r.commandRuns}; shell calls ${r.shellCalls}`,
        );
      }

    // Issue 39 §3/§5: OpenCode's and Kilo Code's bash with our plugin, Cline's run_commands with no hook of ours.
    measured.ownShells = await ownShells({ wanted: (cli) => wanted(cli) && !raceOnly, scratch, bins, connectJs, check });

    if (wanted('claude') && !raceOnly) {
      console.log('\nClaude Code Bash (3 MB) with a PostToolUse hook');
      measured.hook = await claudeBashHook({ scratch, bins, megabytes: 3 });
      check(
        'Claude Code PostToolUse: the hook ran for Bash and recorded what it received',
        measured.hook.hook?.tool === 'Bash',
        JSON.stringify(measured.hook).slice(0, 300),
      );
    }

    if (wanted('claude') && !raceOnly) {
      measured.recall = [];
      for (const configDir of [false, true]) {
        const label = `Claude Code Bash (3 MB) with our hook as Connect Other Agents writes it${configDir ? ', CLAUDE_CONFIG_DIR set' : ''}`;
        console.log(`\n${label}`);
        const recall = await claudeBashRecall({ scratch, bins, connectJs, megabytes: 3, configDir });
        measured.recall.push(recall);
        check(`${label}: the request after Bash holds our hook's context`, !!recall.context, recall.answer.slice(0, 300));
        check(
          `${label}: the context names the whole output (retained under an outputId, or Claude Code's saved file)`,
          (recall.retained?.complete && recall.retained.bytes === recall.outputBytes) || recall.savedBytes === recall.outputBytes,
          `${JSON.stringify(recall.retained)} ${recall.savedPath} ${recall.savedBytes}`,
        );
        check(
          `${label}: the field in ≤ 2 calls of our tools, Bash ran once`,
          recall.answer.includes(recall.checksum) && recall.ourCalls.length <= 2 && recall.bashCalls === 1,
          `answer ${JSON.stringify(recall.answer.slice(0, 200))}; our calls ${JSON.stringify(recall.ourCalls).slice(0, 400)}; Bash calls ${recall.bashCalls}`,
        );
      }
    }

    measured.facts = codeFacts({
      claude: wanted('claude') && bins.claude,
      codex: wanted('codex') && bins.codexNative,
      gemini: wanted('gemini') && path.dirname(bins.gemini),
      qwen: wanted('qwen') && bins.qwenDir,
      copilot: wanted('copilot') && bins.copilotRuntime,
      opencode: wanted('opencode') && bins.opencode,
      kilo: wanted('kilo') && bins.kiloBinary,
      cline: wanted('cline') && bins.clineBinary,
    });
    writeFileSync(path.join(scratch, 'measured.json'), JSON.stringify(measured));
    console.log(`\n${renderReport(measured)}`);
    if (!only) await writeReport(measured);
  } finally {
    if (keep) console.log(`scratch kept: ${scratch}`);
    else rmSync(scratch, { recursive: true, force: true });
  }
}

main()
  .catch((error) => {
    counts.failed++;
    failures.push(`the run broke: ${error.message ?? error}`);
    console.error(`clients: ${error.stack ?? error}`);
  })
  .finally(() => {
    console.log(`\n${counts.passed} passing, ${counts.failed} failing`);
    for (const failure of failures) console.log(`  failed: ${failure}`);
    if (process.env.TOR_RESULTS_FILE) writeFileSync(process.env.TOR_RESULTS_FILE, JSON.stringify({ ...counts, failures }));
    process.exit(counts.failed === 0 ? 0 : 1);
  });
