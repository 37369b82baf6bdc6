// The real-CLI suite (`npm test` runs it as "clients"): Claude Code and Codex from npm, pinned and
// installed by scripts/clients/setup.mjs, each configured as the README says (stdio, HTTP with the
// token in an environment variable) and as Connect Other Agents writes it, drive our server against
// the scripted model on 127.0.0.1 (model.mjs, script.mjs). Everything runs offline.
//
// Asserted for every run: our server started and answered, the model was offered our three tools,
// the run_command result the model received still holds the status line, the omission marker with
// its read call, the outputId and the output's last line, and the final answer quotes the field.
// Measured and reported (test/clients/REPORT.md, printed too), never asserted on time: bytes sent
// against bytes received per call, the client's cut, time per call, stderr noise, spawn →
// initialize of dist/mcp.js beside `node -e 0`, Codex's start-up race, and what Claude Code's
// PostToolUse hook receives for a 3 MB Bash output. Asserted too: with our hook as Connect Other
// Agents writes it, that Bash output leads the model to its field in ≤ 2 calls of our tools.
//
//   node test/clients/run.mjs [--only claude,codex,gemini,qwen,copilot] [--race N] [--keep]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import * as prettier from 'prettier';
import { CACHE_DIR, CLAUDE_CODE_VERSION, CODEX_VERSION, ensureClients } from '../../scripts/clients/setup.mjs';
import { DIST_MCP, root } from './clients.mjs';
import { codeFacts, renderReport } from './report.mjs';
import { claudeBashHook, claudeBashRecall, codexStartupRace, evidenceRun, spawnToInitialize } from './scenarios.mjs';

const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const only = option('--only', undefined);
/** Whether `--only` (a comma-separated list of claude, codex, gemini, qwen, copilot) leaves `cli` in. */
const wanted = (cli) => !only || only.split(',').includes(cli);
const raceRuns = Number(option('--race', 16));
const keep = argv.includes('--keep');

const counts = { passed: 0, failed: 0, skipped: 0 };
const failures = [];
function check(name, ok, detail = '') {
  counts[ok ? 'passed' : 'failed']++;
  if (!ok) failures.push(`${name}${detail ? `: ${detail}` : ''}`);
  console.log(`  ${ok ? '✔' : '✗'} ${name}${!ok && detail ? `\n      ${detail}` : ''}`);
}

function assertEvidence(run) {
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
  for (const [key, what] of [
    ['statusLine', 'the status line'],
    ['marker', 'the omission marker with its read call'],
    ['outputId', 'the outputId'],
    ['lastLine', "the output's last line (the tail)"],
  ])
    check(
      `${name}: the run_command result the model received has ${what}`,
      !!evidence?.[key]?.present,
      evidence ? `expected ${JSON.stringify(evidence[key]?.expected?.slice(0, 100))}` : 'no run_command call',
    );
  check(`${name}: the answer quotes the checksum`, run.answer.includes(run.checksum), `answer ${JSON.stringify(run.answer.slice(0, 200))}`);
}

async function main() {
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
    ['gemini', 'stdio'],
    ['gemini', 'http'],
    ['qwen', 'stdio'],
    ['qwen', 'http'],
    ['copilot', 'stdio'],
    ['copilot', 'http'],
  ].filter(([cli]) => wanted(cli));
  const runs = [];
  try {
    for (const [cli, how, codexConfig, label, serverArgs] of plan) {
      const run = await evidenceRun({ cli, how, scratch, bins, connectJs, codexConfig, serverArgs, label });
      runs.push(run);
      assertEvidence(run);
    }
    const measured = { versions: { claude: CLAUDE_CODE_VERSION, codex: CODEX_VERSION }, runs };

    console.log('\nspawn → initialize reply (dist/mcp.js) beside spawn → exit (node -e 0)');
    measured.spawn = await spawnToInitialize({ scratch, runs: 10 });
    check(
      'spawn → initialize of dist/mcp.js measured (10 runs)',
      measured.spawn.server.every((ms) => typeof ms === 'number'),
    );

    if (wanted('codex')) {
      console.log(`\nCodex start-up race (${raceRuns} runs, default mcp_optional_startup_grace_ms)`);
      measured.race = await codexStartupRace({ scratch, bins, runs: raceRuns });
      check(
        `Codex start-up race measured (${raceRuns} runs)`,
        measured.race.length === raceRuns && measured.race.every((r) => r.firstModelRequestMs !== undefined),
      );
    }
    if (wanted('claude')) {
      console.log('\nClaude Code Bash (3 MB) with a PostToolUse hook');
      measured.hook = await claudeBashHook({ scratch, bins, megabytes: 3 });
      check(
        'Claude Code PostToolUse: the hook ran for Bash and recorded what it received',
        measured.hook.hook?.tool === 'Bash',
        JSON.stringify(measured.hook).slice(0, 300),
      );
    }

    if (wanted('claude')) {
      measured.recall = [];
      for (const configDir of [false, true]) {
        const label = `Claude Code Bash (3 MB) with our hook as Connect Other Agents writes it${configDir ? ', CLAUDE_CONFIG_DIR set' : ''}`;
        console.log(`\n${label}`);
        const recall = await claudeBashRecall({ scratch, bins, connectJs, megabytes: 3, configDir });
        measured.recall.push(recall);
        check(`${label}: the request after Bash holds our hook's context`, !!recall.context, recall.answer.slice(0, 300));
        check(
          `${label}: the context names the saved file, whole`,
          recall.savedBytes === recall.outputBytes,
          `${recall.savedPath} ${recall.savedBytes}`,
        );
        check(
          `${label}: the field in ≤ 2 calls of our tools, Bash ran once`,
          recall.answer.includes(recall.checksum) && recall.ourCalls.length <= 2 && recall.bashCalls === 1,
          `answer ${JSON.stringify(recall.answer.slice(0, 200))}; our calls ${JSON.stringify(recall.ourCalls).slice(0, 400)}; Bash calls ${recall.bashCalls}`,
        );
      }
    }

    measured.facts = codeFacts({ claude: bins.claude, codex: bins.codexNative });
    const report = renderReport(measured);
    console.log(`\n${report}`);
    // Written as the repository's formatter would (npm test checks the format of every tracked file).
    const file = path.join(root, 'test/clients/REPORT.md');
    if (!only) writeFileSync(file, await prettier.format(report, { ...(await prettier.resolveConfig(file)), filepath: file }));
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
