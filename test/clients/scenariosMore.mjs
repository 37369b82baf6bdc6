// Scenarios for OpenCode, Kilo Code and Cline beside those of scenarios.mjs: the outputs whose every
// part must pass each client's own cut (short lines for the line cut of OpenCode and Kilo Code, empty
// lines for Cline's cut of the JSON-encoded result), and what each one's own shell tool hands its model
// for a 3 MB output (we have no hook in them yet). Each returns plain data; run.mjs asserts and reports.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { agentFor, bigShellCommand, scratchFolders } from './scenarios.mjs';
import { startModel } from './model.mjs';
import { shellScript } from './script.mjs';

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

/** Each client's own shell tool and the input its model sends. */
const SHELLS = {
  opencode: { tool: 'bash', input: (command) => ({ command, description: 'Print a large output' }) },
  kilo: { tool: 'bash', input: (command) => ({ command, description: 'Print a large output' }) },
  cline: { tool: 'run_commands', input: (command) => ({ commands: [command] }) },
};
export const OWN_SHELL_CLIS = Object.keys(SHELLS);

/** A saved file the text names (OpenCode's and Kilo Code's tool-output folder), or undefined. */
const savedPathIn = (text) => /(\/\S*\/tool-output\/[^\s"'`)]+)/.exec(text)?.[1];

/**
 * The client's own shell tool prints `megabytes` MB with the field on its last (or middle) line, our
 * server configured as Connect Other Agents writes it; the scripted model calls the tool once and
 * answers with the field if what it got holds it. Measures what the model got: its size, whether the
 * field is in it, the file it names (and that file's size), and how often the command ran.
 */
export async function ownShellRun({ cli, scratch, bins, connectJs, megabytes = 3, fieldAt = 'end' }) {
  const agent = agentFor(cli, bins);
  const shell = SHELLS[cli];
  const f = scratchFolders(scratch, `${cli}-shell-${fieldAt}`);
  mkdirSync(f.workspace, { recursive: true });
  const countFile = path.join(f.dir, 'runs.txt');
  const { command, checksum, outputBytes } = bigShellCommand(megabytes, { fieldAt, countFile });
  const model = await startModel(shellScript({ tool: shell.tool, input: shell.input(command), field: 'checksum' }));
  let run;
  try {
    agent.configure({ how: 'connect', ...f, connectJs, modelPort: model.port });
    run = await agent.run({ prompt: 'Run the command and tell me the checksum it prints.', ...f, modelPort: model.port, limitMs: 300_000 });
  } finally {
    await model.close();
  }
  writeFileSync(path.join(f.dir, 'requests.json'), JSON.stringify(model.requests));
  const loop = model.requests.filter((r) => r.view);
  const calls = loop.at(-1)?.view.calls ?? [];
  const call = calls.find((c) => c.name === shell.tool);
  const text = call?.result?.text ?? '';
  const saved = savedPathIn(text);
  return {
    cli: agent.name,
    tool: shell.tool,
    fieldAt,
    exit: run.code,
    timedOut: run.timedOut,
    ms: run.ms,
    checksum,
    outputBytes,
    commandRuns: existsSync(countFile) ? readFileSync(countFile, 'utf8').length : 0,
    shellCalls: calls.filter((c) => c.name === shell.tool).length,
    receivedBytes: Buffer.byteLength(text),
    receivedLines: text.split('\n').length,
    receivedEncodedChars: call?.result?.encodedChars,
    fieldReceived: text.includes(`checksum=${checksum}`),
    head: text.slice(0, 300),
    savedPath: saved,
    savedBytes: saved && existsSync(saved) ? statSync(saved).size : undefined,
    modelAnswer: loop.at(-1)?.turn?.kind === 'final' ? loop.at(-1).turn.text : '',
    answer: agent.answer(run.stdout),
    stderr: run.stderr.slice(0, 1000),
    dir: f.dir,
  };
}
