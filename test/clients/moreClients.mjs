// OpenCode, Kilo Code and Cline in the suite (issue 39 §5): their runs for run.mjs's plan, the checks
// of each one's own cut on what its model received, and the runs of each one's own shell tool.
import { OWN_SHELL_CLIS, hasPlugin, manyLinesCommand, ownShellRun } from './scenariosMore.mjs';

/** OpenCode's and Kilo Code's cut of a tool result: its first 2,000 lines or 51,200 bytes (the rest to a file). */
export const OPENCODE_CUT = { lines: 2000, bytes: 51_200 };
/** Cline's cut: the JSON-encoded result, about 4,000 characters kept at each end. */
export const CLINE_CUT_CHARS = 8000;

/**
 * Their runs, as run.mjs's plan rows: each as Connect Other Agents writes it (the shape docs/agents.md
 * shows, with the installed launcher) on the suite's 20,000-line output, then on outputs of short lines
 * (`seq`, about 300,000: far over the 2,000 lines OpenCode and Kilo Code keep) and, for Cline, of empty
 * lines (each `\n`, 2 characters in the JSON its cut counts).
 */
export function morePlan() {
  const lines = (shape) => ({ output: manyLinesCommand(shape) });
  return [
    ['opencode', 'connect'],
    ['opencode', 'connect', [], 'connect, seq 1 300000 (short lines)', [], lines('short')],
    ['kilo', 'connect'],
    ['kilo', 'connect', [], 'connect, seq 1 300000 (short lines)', [], lines('short')],
    ['cline', 'connect', [], 'connect ("timeout": 600)'],
    ['cline', 'connect', [], 'connect, seq 1 300000 (short lines)', [], lines('short')],
    ['cline', 'connect', [], 'connect, 300,000 empty lines', [], lines('empty')],
  ];
}

/** The run_command result each of the three clients' model received is inside that client's cut, unchanged. */
export function assertCut(run, check) {
  const call = run.calls.find((c) => c.tool.endsWith('run_command'));
  const name = `${run.cli} (${run.how})`;
  if (!call) return;
  if (run.cli === 'OpenCode' || run.cli === 'Kilo Code')
    check(
      `${name}: the run_command result fits its cut (${call.receivedLines.toLocaleString('en-US')} ≤ ${OPENCODE_CUT.lines.toLocaleString('en-US')} lines, ${call.receivedBytes.toLocaleString('en-US')} ≤ ${OPENCODE_CUT.bytes.toLocaleString('en-US')} bytes) and reached the model with every block whole`,
      call.receivedLines <= OPENCODE_CUT.lines && call.receivedBytes <= OPENCODE_CUT.bytes && !call.verdict.startsWith('cut'),
      call.verdict,
    );
  if (run.cli === 'Cline')
    check(
      `${name}: the run_command result, JSON-encoded (${(call.receivedEncodedChars ?? 0).toLocaleString('en-US')} characters), fits its ${CLINE_CUT_CHARS.toLocaleString('en-US')}-character cut and reached the model unchanged`,
      call.receivedEncodedChars !== undefined && call.receivedEncodedChars <= CLINE_CUT_CHARS && call.verdict === 'unchanged',
      call.verdict,
    );
}

/**
 * Each client's own shell tool printing 3 MB, configured as Connect Other Agents writes it. OpenCode and
 * Kilo Code (our plugin): the field on the last line and on the middle one (where their 51,200-byte
 * tail loses it); our plugin's note names an outputId that holds the whole output, the field reaches
 * the model in ≤ 2 calls of our tools (0 when it is on the last line), the command run once. A run
 * without the plugin is not needed: the plugin only appends to the result, so the client's own cut is
 * measured in the same run. Cline (no hook of ours): the field on the last line reaches the model in 0
 * calls, the command run once.
 */
export async function ownShells({ wanted, scratch, bins, connectJs, check }) {
  const rows = [];
  for (const cli of OWN_SHELL_CLIS.filter(wanted))
    for (const fieldAt of hasPlugin(cli) ? ['end', 'middle'] : ['end']) {
      const r = await ownShellRun({ cli, scratch, bins, connectJs, megabytes: 3, fieldAt });
      rows.push(r);
      const label = `${r.cli} ${r.tool} (3 MB, the field on the ${fieldAt === 'end' ? 'last' : 'middle'} line), ${r.plugin ? 'our plugin as Connect Other Agents writes it' : 'no hook of ours'}`;
      console.log(
        `\n${label}\n  exit ${r.exit}${r.timedOut ? ' (timed out)' : ''}, ${r.ms} ms; the model got ${r.cutBytes} B of ${r.cli}'s own${r.savedPath ? ` naming ${r.savedPath} (${r.savedBytes} B)` : ''}, field ${r.cutHasField ? 'in it' : 'not in it'}; our note ${r.contextBytes ?? 'none'} B${r.outputId ? ` naming ${r.outputId} (retained ${JSON.stringify(r.retained)})` : ''}; hook runs ${r.hookRuns}; our calls ${r.ourCalls.length}; command runs ${r.commandRuns}; answer ${JSON.stringify(r.modelAnswer.slice(0, 120))}`,
      );
      const ran = `command runs ${r.commandRuns}; shell calls ${r.shellCalls}`;
      if (!r.plugin) {
        check(
          `${label}: the field reached the model in 0 calls of our tools, the command ran once`,
          r.modelAnswer.includes(r.checksum) && r.ourCalls.length === 0 && r.commandRuns === 1 && r.shellCalls === 1,
          `model's answer ${JSON.stringify(r.modelAnswer.slice(0, 200))}; ${ran}; ${r.stderr.slice(0, 200)}`,
        );
        continue;
      }
      check(
        `${label}: Connect Other Agents wrote the plugin, and the ${r.tool} result the model got holds our plugin's note with an outputId`,
        r.pluginWrite?.outcome === 'written' && r.contextWhere === 'in the shell result' && !!r.outputId,
        `plugin file ${JSON.stringify(r.pluginWrite)}; note ${JSON.stringify(r.context?.slice(0, 300))}; model's answer ${JSON.stringify(r.modelAnswer.slice(0, 300))}; ${r.stderr.slice(0, 300)}`,
      );
      check(
        `${label}: the note's outputId is in our server's session, the whole ${r.outputBytes.toLocaleString('en-US')} bytes, complete`,
        !!r.retained?.complete && r.retained.bytes === r.outputBytes,
        `outputId ${r.outputId}; retained ${JSON.stringify(r.retained)}`,
      );
      check(
        `${label}: the field reached the model in ≤ 2 calls of our tools${fieldAt === 'end' ? ' (0: it is in the tail)' : ''}, the command ran once`,
        r.modelAnswer.includes(r.checksum) && r.ourCalls.length <= (fieldAt === 'end' ? 0 : 2) && r.commandRuns === 1 && r.shellCalls === 1,
        `model's answer ${JSON.stringify(r.modelAnswer.slice(0, 200))}; our calls ${JSON.stringify(r.ourCalls).slice(0, 400)}; ${ran}`,
      );
    }
  return rows;
}
