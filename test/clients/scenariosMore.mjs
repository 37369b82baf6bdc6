// Scenarios for OpenCode, Kilo Code and Cline beside those of scenarios.mjs: the outputs whose every
// part must pass each client's own cut (short lines for the line cut of OpenCode and Kilo Code, empty
// lines for Cline's cut of the JSON-encoded result), and what each one's own shell tool hands its model
// for a 3 MB output (OpenCode and Kilo Code with our plugin, Cline with no hook of ours). Each returns
// plain data; run.mjs asserts and reports.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { readTaps } from './measure.mjs';
import { startModel } from './model.mjs';
import { agentFor, bigShellCommand, hookFindings, scratchFolders } from './scenarios.mjs';
import { hookRecallScript, shellScript } from './script.mjs';

/**
 * An output of `lines` lines (about 300,000: far over OpenCode's 2,000) in one of two shapes: `short`
 * (`seq`, at most 7 bytes a line) or `empty` (empty lines, each 2 characters once JSON-encoded), an
 * error line in the middle and the field on the last line.
 */
export function manyLinesCommand(shape, lines = 300_000) {
  const checksum = randomBytes(6).toString('hex');
  const notable = `ERROR: upload failed code=E${randomBytes(3).toString('hex')}`;
  const half = lines / 2;
  const part = (from, to) => (shape === 'short' ? `seq ${from} ${to}` : `yes '' | head -n ${to - from + 1}`);
  const command = `${part(1, half)}; echo "${notable}"; ${part(half + 1, lines)}; echo checksum=${checksum}`;
  return { command, checksum, notable, lastLine: `checksum=${checksum}`, shape };
}

/**
 * Each client's own shell tool, the input its model sends, and whether Connect Other Agents gives it a
 * hook of ours (OpenCode's and Kilo Code's plugin, src/core/agents/openCodePlugin.ts; none for Cline).
 */
const SHELLS = {
  opencode: { tool: 'bash', input: (command) => ({ command, description: 'Print a large output' }), plugin: true },
  kilo: { tool: 'bash', input: (command) => ({ command, description: 'Print a large output' }), plugin: true },
  cline: { tool: 'run_commands', input: (command) => ({ commands: [command] }), plugin: false },
};
export const OWN_SHELL_CLIS = Object.keys(SHELLS);
/** Whether Connect Other Agents gives `cli`'s own shell tool a hook of ours. */
export const hasPlugin = (cli) => SHELLS[cli].plugin;

/** A saved file the text names (OpenCode's and Kilo Code's tool-output folder), or undefined. */
const savedPathIn = (text) => /(\/\S*\/tool-output\/[^\s"'`)]+)/.exec(text)?.[1];

/**
 * The client's own shell tool prints `megabytes` MB with the field on its last (or middle) line, the
 * client configured exactly as Connect Other Agents writes it (the bundled connect core: our server's
 * entry and, for OpenCode and Kilo Code, our plugin in the workspace's plugins folder). The scripted
 * model calls the tool once; with the plugin it decides as with our hooks (hookRecallScript: the field
 * in our note's tail → the answer; else search_tool_output {outputId, pattern}, then read_tool_output),
 * without it it answers with the field if what it got holds it (shellScript). Measures what the model
 * got (the client's own cut and our note), the file the cut names (and its size), the outputId our note
 * names (and that output in our server's session), our calls, and how often the command ran.
 */
export async function ownShellRun({ cli, scratch, bins, connectJs, megabytes = 3, fieldAt = 'end' }) {
  const agent = agentFor(cli, bins);
  const shell = SHELLS[cli];
  const f = scratchFolders(scratch, `${cli}-shell-${fieldAt}`);
  mkdirSync(f.workspace, { recursive: true });
  const countFile = path.join(f.dir, 'runs.txt');
  const { command, checksum, outputBytes } = bigShellCommand(megabytes, { fieldAt, countFile });
  const script = shell.plugin ? hookRecallScript : shellScript;
  const model = await startModel(script({ tool: shell.tool, input: shell.input(command), field: 'checksum' }));
  let run;
  let configured;
  try {
    configured = agent.configure({ how: 'connect', ...f, connectJs, modelPort: model.port });
    run = await agent.run({ prompt: 'Run the command and tell me the checksum it prints.', ...f, modelPort: model.port, limitMs: 300_000 });
  } finally {
    await model.close();
  }
  writeFileSync(path.join(f.dir, 'requests.json'), JSON.stringify(model.requests));
  const loop = model.requests.filter((r) => r.view);
  const { cut, ...found } = await hookFindings({ loop, tool: shell.tool, home: f.home, checksum });
  const call = loop.at(-1)?.view.calls.find((c) => c.name === shell.tool);
  const saved = savedPathIn(cut);
  return {
    cli: agent.name,
    tool: shell.tool,
    plugin: shell.plugin,
    // What Connect Other Agents did with the plugin file (written, or why not).
    pluginWrite: configured.files?.find((file) => /[/\\]plugins[/\\]/.test(file.file)),
    fieldAt,
    exit: run.code,
    timedOut: run.timedOut,
    ms: run.ms,
    checksum,
    outputBytes,
    commandRuns: existsSync(countFile) ? readFileSync(countFile, 'utf8').length : 0,
    ...found,
    cutLines: cut.split('\n').length,
    receivedEncodedChars: call?.result?.encodedChars,
    hookRuns: readTaps(f.taps).filter((t) => t.argv.includes('hook')).length,
    head: cut.slice(0, 300),
    savedPath: saved,
    savedBytes: saved && existsSync(saved) ? statSync(saved).size : undefined,
    modelAnswer: loop.at(-1)?.turn?.kind === 'final' ? loop.at(-1).turn.text : '',
    answer: agent.answer(run.stdout),
    stderr: run.stderr.slice(0, 1000),
    dir: f.dir,
  };
}
