// The report's sections for OpenCode, Kilo Code and Cline (issue 39 §3/§5): every part of our result
// through each one's own cut, and what each one's own shell tool gave its model (OpenCode's and Kilo
// Code's with our plugin). Written only from what was measured.
import { CLINE_CUT_CHARS, OPENCODE_CUT } from './moreClients.mjs';

const n = (x) => (x === undefined ? '–' : x.toLocaleString('en-US'));
const yes = (b) => (b ? 'yes' : '**no**');
const cell = (text) => String(text).replace(/\|/g, '\\|').replace(/\n/g, ' ');
const MORE = ['OpenCode', 'Kilo Code', 'Cline'];

/** Each run_command result of the three: sent → received, the cut it had to fit, and every part. */
export function cutsSection(runs) {
  const rows = runs
    .filter((r) => MORE.includes(r.cli))
    .map((r) => ({ r, call: r.calls.find((c) => c.tool.endsWith('run_command')) }))
    .filter(({ call }) => call)
    .map(({ r, call }) => {
      const cline = r.cli === 'Cline';
      const cut = cline
        ? `${n(call.receivedEncodedChars)} JSON characters of ${n(CLINE_CUT_CHARS)}`
        : `${n(call.receivedLines)} lines of ${n(OPENCODE_CUT.lines)}; ${n(call.receivedBytes)} bytes of ${n(OPENCODE_CUT.bytes)}`;
      const e = r.evidence ?? {};
      return `| ${r.cli} | ${cell(r.how)} | ${n(call.sentBytes)} (${call.sentBlocks.length} block${call.sentBlocks.length === 1 ? '' : 's'}) | ${n(call.receivedBytes)} | ${cell(call.verdict)} | ${cut} | ${['statusLine', 'outputId', 'marker', 'notable', 'lastLine'].map((k) => yes(e[k]?.present)).join(' / ')} | ${yes(r.answer.includes(r.checksum))} |`;
    });
  if (!rows.length) return '';
  return [
    `Our server gives OpenCode and Kilo Code (clientInfo \`opencode\`, \`kilo\`) previews of at most 900 lines besides the bytes, and Cline (\`@cline/core\`) a 3 KiB preview (\`AGENTS\` in src/core/agents/agents.ts). OpenCode and Kilo Code keep the first ${n(OPENCODE_CUT.lines)} lines or ${n(OPENCODE_CUT.bytes)} bytes of a result; Cline sends the result JSON-encoded and keeps about 4,000 characters at each end of that string. Parts: status line / outputId / omission marker with its read call / the notable line the preview omitted / the output's last line, each looked for in what the model received.`,
    '',
    '| Client | Configured, output | Sent (bytes) | Model received (bytes) | Cut or altered by the client | Within its cut | Parts | Answer has the field |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** The shell call's row label: the tool and where the field is. */
const shellCall = (r) => `\`${r.tool}\`, field on the ${r.fieldAt === 'end' ? 'last' : 'middle'} line`;
/** The client's own cut as the model got it: bytes, lines, whether the field is in it. */
const ownCut = (r) => `${n(r.cutBytes)}, ${n(r.cutLines)} (field ${r.cutHasField ? 'in it' : '**not** in it'})`;
/** The saved file a cut names (its last path parts) and its size. */
const savedFile = (r) => (r.savedPath ? `\`…/${cell(r.savedPath.split('/').slice(-4).join('/'))}\` (${n(r.savedBytes)})` : 'none');
const ourCalls = (r) =>
  r.ourCalls.length
    ? `${r.ourCalls.length}: ${r.ourCalls.map((c) => `${c.tool.replace(/^.*(search_tool_output|read_tool_output)$/, '$1')}${c.isError ? ' (error)' : ''}`).join(' → ')}`
    : '0';

/**
 * What each one's own shell tool gave the model for a 3 MB output: OpenCode's and Kilo Code's bash with
 * our plugin (the field on the last and on the middle line), Cline's run_commands with no hook of ours.
 */
export function ownShellSection(rows) {
  if (!rows?.length) return '';
  const plugged = rows.filter((r) => r.plugin);
  const bare = rows.filter((r) => !r.plugin);
  const first = plugged.find((r) => r.context);
  return [
    ...(plugged.length
      ? [
          "OpenCode and Kilo Code configured exactly as Connect Other Agents writes them (the bundled connect core): our server in the workspace's `opencode.json` / `kilo.json` under `\"mcp\"`, and our plugin in `.opencode/plugins/tool-output-recall.js` / `.kilo/plugins/tool-output-recall.js` (src/core/agents/openCodePlugin.ts). When bash cuts an output and saves it whole, the plugin's `tool.execute.after` hands the saved file to our hook (`node <launcher> hook opencode-after-tool` / `kilo-after-tool`), which retains it in our server's session, and appends the hook's note (the outputId, the notable lines, the tail) to the result the model is sent. The scripted model calls bash once on a command printing 3 MB of 100-byte lines, the field on the last line or on the middle one (past the client's own tail), then: the field in the note's tail → the answer at once; else search_tool_output {outputId, pattern}, then read_tool_output if needed. \"The client's own cut\" is the bash result without our note (what the model would get without the plugin); \"retained\" is the output under the note's outputId in our server's session file; \"command runs\" is counted by the command itself.",
          '',
          "| Client | Shell call | Output (bytes) | The client's own cut the model got (bytes, lines) | The saved file it names (bytes) | Our plugin's note (bytes) | The outputId it names: retained (bytes) | Our calls to the field | Command runs | Field reached the model |",
          '|---|---|---|---|---|---|---|---|---|---|',
          ...plugged.map(
            (r) =>
              `| ${r.cli} | ${shellCall(r)} | ${n(r.outputBytes)} | ${ownCut(r)} | ${savedFile(r)} | ${r.context ? `${n(r.contextBytes)} (${r.contextWhere}; field ${r.contextHasField ? 'in its tail' : 'not in it'})` : '**none**'} | ${r.outputId ? `\`${r.outputId}\`: ${r.retained ? `${n(r.retained.bytes)}${r.retained.complete ? ', complete' : ' (**incomplete**)'}` : '**not found**'}` : '**none**'} | ${ourCalls(r)} | ${n(r.commandRuns)} | ${yes(r.modelAnswer.includes(r.checksum))} |`,
          ),
          '',
          ...(first
            ? [
                `The note the model received after ${first.cli}'s own cut (the tail cut here to its first lines):`,
                '',
                '```text',
                first.context.split('\n').slice(0, 6).join('\n'),
                '```',
                '',
              ]
            : []),
        ]
      : []),
    ...(bare.length
      ? [
          "Cline has no hook of ours: no route keeps its whole output (its `run_commands` keeps the first and last 24,000 characters and saves nothing; its PostToolUse gets about 49,000 characters, not the whole; PreToolUse's `overrideInput` changes only the command line; docs/agents.md). The scripted model called `run_commands` once on the same 3 MB command, the field on the last line, and answered from what it got.",
          '',
          '| Client | Shell tool | Output (bytes) | The model got (bytes, lines) | Field in it | A saved file it names (bytes) | Our calls | Command runs | Field reached the model |',
          '|---|---|---|---|---|---|---|---|---|',
          ...bare.map(
            (r) =>
              `| ${r.cli} | \`${r.tool}\` | ${n(r.outputBytes)} | ${n(r.cutBytes)}, ${n(r.cutLines)} | ${yes(r.cutHasField)} | ${savedFile(r)} | ${n(r.ourCalls.length)} | ${n(r.commandRuns)} | ${yes(r.modelAnswer.includes(r.checksum))} |`,
          ),
          '',
        ]
      : []),
    ...rows.map(
      (r) => `- ${r.cli} (${shellCall(r)}): its own cut begins \`${cell(r.head.replace(/\/\S*\/(?=tool-output\/)/, '…/').slice(0, 160))}\``,
    ),
  ].join('\n');
}
