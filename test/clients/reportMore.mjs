// The report's sections for OpenCode, Kilo Code and Cline (issue 39 §5): every part of our result through
// each one's own cut, and what each one's own shell tool gave its model. Written only from what was measured.
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

/** What each one's own shell tool gave the model for a 3 MB output, the field on its last line. */
export function ownShellSection(rows) {
  if (!rows?.length) return '';
  return [
    "No hook of ours reaches these three yet (OpenCode's and Kilo Code's would be a plugin's `tool.execute.after`): the scripted model called the client's own shell tool once on a command printing 3 MB of 100-byte lines, the field on the last line, and answered from what it got.",
    '',
    '| Client | Shell tool | Output (bytes) | The model got (bytes, lines) | Field in it | A saved file it names (bytes) | Our calls | Command runs | Field reached the model |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.cli} | \`${r.tool}\` | ${n(r.outputBytes)} | ${n(r.receivedBytes)}, ${n(r.receivedLines)} | ${yes(r.fieldReceived)} | ${r.savedPath ? `\`…/${cell(r.savedPath.split('/').slice(-4).join('/'))}\` (${n(r.savedBytes)})` : 'none'} | 0 | ${n(r.commandRuns)} | ${yes(r.modelAnswer.includes(r.checksum))} |`,
    ),
    '',
    ...rows.map((r) => `- ${r.cli}: it begins \`${cell(r.head.replace(/\/\S*\/(?=tool-output\/)/, '…/').slice(0, 160))}\``),
  ].join('\n');
}
