// The suite's report (test/clients/REPORT.md, printed too), written only from what the runs
// measured and from what the installed CLIs' own code holds (grepped, so a new version that drops
// a limit shows up as "not found").
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import * as prettier from 'prettier';
import { root } from './clients.mjs';
import { cutsSection, ownShellSection } from './reportMore.mjs';
import { raceStopsSection, stopsCell, stopsSection } from './stops.mjs';

const kb = (n) => (n === undefined ? '–' : n.toLocaleString('en-US'));
const yes = (b) => (b ? 'yes' : '**no**');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => (x === undefined ? '–' : `${Math.round(x).toLocaleString('en-US')}`);
const cell = (text) => String(text).replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** Limits in the pinned CLIs' code: [what, needle]; the needle is searched as bytes in the installed binary. */
export const CODE_FACTS = {
  claude: [
    [
      'MCP results: `MAX_MCP_OUTPUT_TOKENS`, else a remote setting, else 25,000 tokens',
      'E=25000;function d(){let e=s.MAX_MCP_OUTPUT_TOKENS',
    ],
    [
      '…a result estimated at ≤ half of it passes untouched; above, it is counted and, over the limit, cut to 4 × limit characters with a note',
      'if(n<=d()*y)return!1',
    ],
    [
      'A tool may declare `_meta["anthropic/maxResultSizeChars"]` (capped at 500,000)',
      'maxResultSizeChars:Ct?Math.min(Ee,Rpe):Ohr.maxResultSizeChars',
    ],
    ['…else an MCP result over 50,000 characters is saved to a file (`<persisted-output>`)', 'function l3(e,n,r=mw,o=!1)'],
    ['`_meta["anthropic/alwaysLoad"]: true` keeps a tool out of ToolSearch deferral', 'se._meta?.["anthropic/alwaysLoad"]===!0'],
    ['Bash output: `BASH_MAX_OUTPUT_LENGTH`', 'BASH_MAX_OUTPUT_LENGTH'],
  ],
  codex: [
    ['`tool_output_token_limit` (top level)', 'tool_output_token_limit'],
    ['per-tool `output_token_limit` in `[mcp_servers.<name>.tools.<tool>]`', 'output_token_limit'],
    ['`mcp_optional_startup_grace_ms` (documented default 1,000 ms)', 'mcp_optional_startup_grace_ms'],
    ['`default_tools_approval_mode` / per-tool `approval_mode`', 'default_tools_approval_mode'],
  ],
  gemini: [
    ['Each MCP text block is wrapped in `<untrusted_context>` (closing tags inside escaped)', 'return `<untrusted_context>'],
    ['Large tool output is saved under the project temp folder, `tool-outputs/`', 'TOOL_OUTPUTS_DIR = "tool-outputs"'],
    ['Headless runs need a trusted folder: `GEMINI_CLI_TRUST_WORKSPACE=true` (or `--skip-trust`)', 'GEMINI_CLI_TRUST_WORKSPACE'],
  ],
  qwen: [
    [
      'MCP tools are deferred behind `tool_search` / `tool_call` unless the server entry has `alwaysLoadTools: true`',
      'mcpServerConfig.alwaysLoadTools === true',
    ],
    ['An MCP text part over 500,000 characters is saved to a file and cut to a 2,000-character preview', 'undercut the 500k char budget'],
  ],
  copilot: [
    [
      'A tool result over its limit becomes "Output too large to read at once (…). Saved to: …" with "Preview (first N chars)" (Rust runtime, `runtime.node`)',
      'Output too large to read at once (',
    ],
    ['…the limit can be set with `COPILOT_LARGE_OUTPUT_THRESHOLD_BYTES`', 'COPILOT_LARGE_OUTPUT_THRESHOLD_BYTES'],
  ],
  opencode: [
    [
      'A tool result: its first 2,000 lines or 51,200 bytes, the rest to `tool-output/` (kept 7 days)',
      'var v$=2000,i$=51200,Of=lL.days(7),pf="tool-output"',
    ],
    [
      'bash output over it: "...output truncated..." and "Full output saved to:", then its tail',
      '...output truncated...\n\nFull output saved to: ${q}',
    ],
  ],
  kilo: [
    ['A tool result: its first 2,000 lines or 51,200 bytes, the rest to `tool-output/`', 'var VB1=2000,QB1=51200,dLE,rLE="tool-output"'],
    [
      'bash output over it: "...output truncated..." and "Full output saved to:", then its tail',
      '...output truncated...\n\nFull output saved to: ${J}',
    ],
  ],
  cline: [
    [
      'A tool result is cut by characters: `CLINE_MESSAGE_BUILDER_MAX_TOOL_RESULT_CHARS`',
      'maxToolResultChars:"CLINE_MESSAGE_BUILDER_MAX_TOOL_RESULT_CHARS"',
    ],
  ],
};

/** The start-up race's rows: each client over stdio with the documented entry (docs/agents.md), and Claude Code's entry with `alwaysLoad`. */
export const RACE_NAMES = {
  codex: 'Codex over stdio',
  claude: 'Claude Code over stdio',
  'claude-alwaysLoad': 'Claude Code over stdio, entry with `"alwaysLoad": true`',
  gemini: 'Gemini CLI over stdio',
  qwen: 'Qwen Code over stdio',
  copilot: 'Copilot CLI over stdio',
  opencode: 'OpenCode over stdio',
  kilo: 'Kilo Code over stdio',
  cline: 'Cline over stdio, entry with `"timeout": 600`',
  'cline-noTimeout': 'Cline over stdio, entry without `"timeout"` (as `cline mcp install` writes it)',
};

export const CLIENT_NAMES = {
  claude: 'Claude Code',
  codex: 'Codex',
  gemini: 'Gemini CLI',
  qwen: 'Qwen Code',
  copilot: 'Copilot CLI',
  opencode: 'OpenCode',
  kilo: 'Kilo Code',
  cline: 'Cline',
};

/** `files`: per client, the installed binary or the folder of its bundle (searched whole); clients left out are not searched. */
export function codeFacts(files) {
  const out = {};
  for (const [cli, facts] of Object.entries(CODE_FACTS)) {
    if (!files[cli]) continue;
    out[cli] = facts.map(([what, needle]) => {
      const found = spawnSync('grep', ['-a', '-r', '-l', '-F', '--', needle, files[cli]], { encoding: 'utf8' });
      return { what, found: found.stdout.trim() !== '' };
    });
  }
  return out;
}

function summaryTable(runs) {
  const rows = [
    '| Client | Configured | Server started, handshake | Client recorded from | First model request offered our tools | Our tools the model saw | Tool searches | Our calls to the field | Answer has the field | CLI stderr lines | Our stderr kept in |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const run of runs) {
    const client = run.clientInfo ? `${run.clientInfo.name} ${run.clientInfo.version ?? ''} (${run.clientFrom})` : '**none**';
    const tools = run.toolsSeen.map((name) => `\`${name}\``).join(', ') || '**none**';
    const stderr = run.stderrLines.length
      ? `${run.stderrLines.length}: ${cell(run.stderrLines.slice(0, 2).join(' / ').slice(0, 160))}`
      : '0';
    const how = run.retriedAfter
      ? `${run.how} (2nd try: in the 1st the client failed a call itself, "${cell(run.retriedAfter.slice(0, 90))}…")`
      : run.how;
    rows.push(
      `| ${run.cli} | ${how} | ${run.serverStarted ? `yes: ${run.handshake.join(' → ') || 'no handshake'}; first reply ${ms(run.initialize?.ms)} ms after ${run.initialize?.from ?? '–'}` : '**no**'} | ${client} | ${run.firstRequestHadOurTools ? 'yes' : run.firstRequestSaysConnecting ? 'no ("still connecting")' : 'no'} | ${tools} | ${run.toolSearches} | ${run.calls.length} | ${yes(run.answer.includes(run.checksum))} | ${stderr} | ${run.ourStderrIn.map((f) => `\`~/${f}\``).join(', ') || 'nowhere under HOME'} |`,
    );
  }
  return rows.join('\n');
}

function callTable(runs) {
  const rows = [
    '| Client | Configured | Tool | Sent (bytes, blocks) | Model received (bytes, blocks) | Cut or altered by the client | Status line | Marker + read call | outputId | Notable line | Last line | Server ms | Round trip ms |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const run of runs)
    for (const call of run.calls) {
      const e = call.tool.endsWith('run_command') ? run.evidence : undefined;
      const mark = (key) => (e?.[key] ? yes(e[key].present) : '');
      rows.push(
        `| ${run.cli} | ${run.how} | ${call.tool.replace(/^.*(run_command|search_tool_output|read_tool_output|read_file_page|run_code)$/, '$1')} | ${kb(call.sentBytes)} (${call.sentBlocks.map(kb).join(' + ')}) | ${kb(call.receivedBytes)} (${(call.receivedBlocks ?? []).map(kb).join(' + ')}) | ${cell(call.verdict)} | ${mark('statusLine')} | ${mark('marker')} | ${mark('outputId')} | ${mark('notable')} | ${mark('lastLine')} | ${ms(call.serverMs)} | ${ms(call.roundTripMs)} |`,
      );
    }
  return rows.join('\n');
}

export function raceSection(race) {
  if (!race?.clients) return '';
  const loads = Object.values(race.clients).flatMap((rows) => rows.map((r) => r.load));
  const out = [
    `Issue 31 §1, under heavy load: up to ${race.busy} busy processes (\`node -e 'for(;;){}'\`, four per core, fewer when other work already loaded the machine) ran for the whole scenario; the 1-minute load average was ${race.loadAtStart.toFixed(1)} when the first run started and ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} as the runs ended. Each client over stdio with the documented entry (docs/agents.md) (Codex with its default start-up grace, \`mcp_optional_startup_grace_ms\` 1,000 ms; Claude Code also with \`"alwaysLoad": true\` in its entry) and a model that answers at once:`,
    '',
    '| Client | Runs whose first model request offered our tools | Load average (min–max) | First model request (ms after start, median, max) | tools/list replied (ms, median, max) |',
    '|---|---|---|---|---|',
  ];
  const stat = (xs) => {
    const known = xs.filter((x) => x !== undefined);
    return known.length ? `${ms(median(known))}, ${ms(Math.max(...known))}` : '–';
  };
  for (const [cli, rows] of Object.entries(race.clients)) {
    const offered = rows.filter((r) => r.ourToolsOffered).length;
    const l = rows.map((r) => r.load);
    out.push(
      `| ${RACE_NAMES[cli]} | **${offered}/${rows.length}** | ${Math.min(...l).toFixed(1)}–${Math.max(...l).toFixed(1)} | ${stat(rows.map((r) => r.firstModelRequestMs))} | ${stat(rows.map((r) => r.toolsListedMs))} |`,
    );
  }
  for (const [cli, rows] of Object.entries(race.clients))
    out.push(
      '',
      `${RACE_NAMES[cli]} (times in ms after the CLI started):`,
      '',
      '| Run | Server spawned | initialize sent | initialize replied | tools/list asked | tools/list replied | First model request (tools in it) | Our tools offered | Load | Server stopped by: ended (ms after the first cue) |',
      '|---|---|---|---|---|---|---|---|---|---|',
      ...rows.map(
        (r) =>
          `| ${r.run} | ${ms(r.serverSpawnedMs)} | ${ms(r.initializeSentMs)} | ${ms(r.initializeRepliedMs)} | ${ms(r.toolsAskedMs)} | ${ms(r.toolsListedMs)} | ${ms(r.firstModelRequestMs)} (${r.firstRequestTools ?? '–'}) | ${yes(r.ourToolsOffered)} | ${r.load.toFixed(1)} | ${stopsCell(r.stops)} |`,
      ),
    );
  out.push('', raceStopsSection(race, RACE_NAMES));
  return out.join('\n');
}

function hookedSection(hooked) {
  if (!hooked?.length) return '';
  const rows = hooked.map((r) =>
    [
      r.cli,
      `\`${r.tool}\`, field on the ${r.fieldAt === 'end' ? 'last' : 'middle'} line`,
      kb(r.outputBytes),
      `${kb(r.cutBytes)} (field ${r.cutHasField ? 'in it' : '**not** in it'})`,
      r.context ? `${kb(r.contextBytes)} (${r.contextWhere}; field ${r.contextHasField ? 'in its tail' : 'not in it'})` : '**none**',
      r.retained ? `${kb(r.retained.bytes)}${r.retained.complete ? '' : ' (**incomplete**)'}` : '**not found**',
      r.ourCalls.length
        ? `${r.ourCalls.length}: ${r.ourCalls.map((c) => `${c.tool.replace(/^.*(search_tool_output|read_tool_output)$/, '$1')}${c.isError ? ' (error)' : ''}`).join(' → ')}`
        : '0',
      kb(r.commandRuns),
      yes(r.modelAnswer.includes(r.checksum)),
    ].join(' | '),
  );
  const first = hooked.find((r) => r.context);
  return [
    "Issue 31 §3: each agent configured exactly as Connect Other Agents writes it (the bundled connect core: the server's entry and the agent's post-tool hook, `node <launcher> hook <name>`), in the conditions its project hooks need (Gemini CLI: `GEMINI_CLI_TRUST_WORKSPACE=true`; Qwen Code: `qwen -p --yolo`; Copilot CLI: a Git repository in `trustedFolders` of `~/.copilot/config.json`). The scripted model calls the agent's own shell tool with a command printing 3 MB (the field on the last line, or on the middle one), then reads what came back: the field in our hook's context → the answer at once; else search_tool_output {outputId, pattern}, then read_tool_output if needed. \"Retained\" is the output under the context's outputId in our server's session file; \"command runs\" is counted by the command itself.",
    '',
    "| Client | Shell call | Output (bytes) | The agent's cut the model got (bytes) | Our hook's context (bytes) | Retained (bytes) | Our calls to the field | Command runs | Field reached the model |",
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.map((row) => `| ${row} |`),
    '',
    ...(first
      ? [
          `The context the model received (${first.cli}; the tail cut here to its first lines):`,
          '',
          '```text',
          first.context.split('\n').slice(0, 6).join('\n'),
          '```',
        ]
      : []),
  ].join('\n');
}

function hookSection(hook) {
  if (!hook) return '';
  const h = hook.hook;
  return [
    `Claude Code's Bash printed ${kb(hook.outputBytes)} bytes (the field on the last line); a PostToolUse hook on Bash recorded its stdin:`,
    '',
    `- hook ran: ${yes(!!h)}; stdin ${kb(h?.stdinBytes)} bytes; \`tool_response\` keys: ${(h?.responseKeys ?? []).map((k) => `\`${k}\``).join(', ')}`,
    `- \`tool_response.stdout\`: ${kb(h?.stdoutBytes)} bytes, field present: ${yes(h?.stdoutHasField)}; other fields: \`${cell(JSON.stringify(h?.other ?? {})).slice(0, 400)}\``,
    `- the model received ${kb(hook.modelReceivedBytes)} bytes for the Bash call; field present: ${yes(hook.modelReceivedField)}; a saved file named: ${hook.modelReceivedSavedPath ? `\`${hook.modelReceivedSavedPath}\`` : 'none'}`,
    `- it begins: \`${cell(hook.modelReceivedHead.slice(0, 200))}\``,
  ].join('\n');
}

function recallSection(recall) {
  if (!recall?.length) return '';
  const rows = recall.map((r) =>
    [
      r.configDir ? 'connect, `CLAUDE_CONFIG_DIR` set' : 'connect',
      kb(r.outputBytes),
      kb(r.modelReceivedBytes),
      r.retained
        ? `retained as outputId (${r.retained.complete ? 'complete' : '**incomplete**'})`
        : r.savedRelative
          ? `\`${cell(r.savedUnder)}\` … \`${cell(r.savedRelative.split('/').slice(-2).join('/'))}\``
          : '–',
      r.retained
        ? `${kb(r.retained.bytes)}${r.retained.bytes === r.outputBytes ? ' (whole)' : ''}`
        : `${kb(r.savedBytes)}${r.savedBytes === r.outputBytes ? ' (whole)' : ''}`,
      r.context ? `${kb(r.contextBytes)}` : '**none**',
      r.ourCalls.map((c) => `${c.tool.replace(/^mcp__tool-output-recall__/, '')}${c.isError ? ' (error)' : ''}`).join(' → ') || '–',
      kb(r.bashCalls),
      yes(r.answer.includes(r.checksum)),
    ].join(' | '),
  );
  const first = recall.find((r) => r.context)?.context;
  return [
    `With our hook as Connect Other Agents writes it (\`.claude/settings.json\`: PostToolUse, matcher \`Bash\`, \`node <launcher> hook claude-code-post-tool-use\`), the scripted model takes what the hook's context names in the request after the Bash call (the outputId our server retained the output under, else Claude Code's saved file), searches it with search_tool_output and reads the match (read_tool_output {outputId, offset}, or read_file_page {path, byteOffset}):`,
    '',
    '| Configured | Bash output (bytes) | The model received for Bash (bytes) | Kept as (saved file: under the config folder) | Kept (bytes) | Hook context (bytes) | Our calls | Bash calls | Answer has the field |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.map((row) => `| ${row} |`),
    '',
    ...(first ? ['The context the model received (first run; paths as they were):', '', '```text', first, '```'] : []),
  ].join('\n');
}

function copilotSection(limit, runs) {
  if (!limit) return '';
  const found = limit.found;
  const cut = runs.filter((r) => r.cli === 'Copilot CLI').map((r) => ({ r, call: r.calls.find((c) => c.tool.endsWith('run_command')) }));
  const info = runs.find((r) => r.cli === 'Copilot CLI' && r.clientInfo);
  return [
    `A stub MCP server (\`test/clients/stub-server.mjs\`, configured as \`copilot mcp add size-probe -- node …\` writes it) returned one text block of a chosen size, ${limit.probes.length} sizes in one session (binary search by the scripted model): **${found ? `${kb(found.wholeBytes)} bytes passed whole, ${kb(found.cutBytes)} were cut` : 'not found'}**; a block of 2-byte characters ${found ? `${kb(found.wholeBytes + 2 - (found.wholeBytes % 2))} bytes (${kb((found.wholeBytes + 2 - (found.wholeBytes % 2)) / 2)} characters) was ${found.counts === 'bytes' ? 'cut: it counts **bytes**' : 'whole: it counts **characters**'}` : ''}.`,
    '',
    `Over the limit the model gets ${kb(limit.noteBytes)} bytes for a ${kb(limit.cutSentBytes)}-byte text: the note below, then the text's first ${limit.previewChars ?? '–'} characters. The saved file ${limit.savedExistsAfterExit === false ? 'is gone once the CLI exited' : limit.savedExistsAfterExit ? 'is still there after the CLI exited' : 'was not named'}.`,
    '',
    '```text',
    limit.noteHead.replace(/\/tmp\/\d+-copilot-tool-output-[0-9a-f]+\.txt/, '/tmp/<ms>-copilot-tool-output-<hex>.txt'),
    '```',
    '',
    ...cut.map(({ r, call }) =>
      call
        ? `- ${r.how}: our run_command result ${kb(call.sentBytes)} bytes → the model got ${kb(call.receivedBytes)} bytes (${cell(call.verdict)}).`
        : `- ${r.how}: no run_command call.`,
    ),
    '',
    info
      ? `Copilot CLI names itself \`${info.clientInfo.name}\` \`${info.clientInfo.version}\` in ${info.clientFrom === 'initialize' ? '`initialize`' : `\`${info.clientFrom}\``} (it sends no \`initialize\`: handshake ${info.handshake.join(' → ')}).`
      : '',
  ].join('\n');
}

export function renderReport(m) {
  const spawn = m.spawn && {
    server: `median ${ms(median(m.spawn.server))} ms (min ${ms(Math.min(...m.spawn.server))}, max ${ms(Math.max(...m.spawn.server))})`,
    bare: `median ${ms(median(m.spawn.bare))} ms (min ${ms(Math.min(...m.spawn.bare))}, max ${ms(Math.max(...m.spawn.bare))})`,
  };
  const facts = m.facts
    ? Object.entries(m.facts)
        .flatMap(([cli, list]) => list.map((f) => `| ${CLIENT_NAMES[cli]} | ${f.what} | ${f.found ? 'found' : '**not found**'} |`))
        .join('\n')
    : '';
  return [
    '# Real agent CLIs against the MCP server (generated by `node test/clients/run.mjs`)',
    '',
    `Claude Code ${m.versions.claude}, Codex ${m.versions.codex}, Gemini CLI ${m.versions.gemini}, Qwen Code ${m.versions.qwen}, GitHub Copilot CLI ${m.versions.copilot}, OpenCode ${m.versions.opencode}, Kilo Code's CLI ${m.versions.kilo} and Cline ${m.versions.cline} from npm, offline, each against a scripted model on 127.0.0.1 that runs run_command on a 20,000-line output (an error line at line 9000, a field on the last), then search_tool_output and read_tool_output for the field on its last line, deciding each turn from the tool results the CLI sent back. "Sent" is what our server wrote (recorded in its process); "received" is what the CLI put in its next model request. Times come from a shared, loaded 2-core machine: compare within a run, not across machines.`,
    '',
    '## Per run',
    '',
    summaryTable(m.runs),
    '',
    '## Per call',
    '',
    callTable(m.runs),
    '',
    "## Copilot CLI's cut",
    '',
    copilotSection(m.copilotLimit, m.runs),
    '',
    '## OpenCode, Kilo Code and Cline: every part through each cut',
    '',
    cutsSection(m.runs),
    '',
    '## How each client stopped our server',
    '',
    stopsSection(m.runs),
    '',
    '## Start-up',
    '',
    spawn
      ? `spawn → initialize reply of \`dist/mcp.js\` (stdio, new session, 10 runs): ${spawn.server}; spawn → exit of \`node -e 0\`: ${spawn.bare}.`
      : '',
    '',
    raceSection(m.race),
    '',
    '## Gemini CLI, Qwen Code and Copilot CLI: their own shell output, found through our hooks',
    '',
    hookedSection(m.hooked),
    '',
    '## OpenCode, Kilo Code and Cline: their own shell output',
    '',
    ownShellSection(m.ownShells),
    '',
    '## Claude Code: what a PostToolUse hook gets for Bash',
    '',
    hookSection(m.hook),
    '',
    "## Claude Code's Bash output, found through our hook",
    '',
    recallSection(m.recall),
    '',
    '## Limits in the pinned CLIs’ own code',
    '',
    '| Client | Limit | In the installed binary |',
    '|---|---|---|',
    facts,
    '',
  ].join('\n');
}

/** Writes REPORT.md as the repository's formatter would (npm test checks the format of every tracked file). */
export async function writeReport(measured) {
  const file = path.join(root, 'test/clients/REPORT.md');
  writeFileSync(file, await prettier.format(renderReport(measured), { ...(await prettier.resolveConfig(file)), filepath: file }));
}
