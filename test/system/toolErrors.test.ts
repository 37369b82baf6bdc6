// Issue 21, item 7: every failure a tool returns is `<tool> failed (<CODE>): <message>`, and the
// inputs a message repeats are clipped. The shared rendering (parts.ts) with real errors from the
// file system, spawn and the call stack; the input check; run_command's own refusals.
import { serializeError, toError } from '../../src/core/worker/errors';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { runCommand } from '../../src/core/tools/runCommand';
import { RecallError, clipEcho } from '../../src/core/errors';
import { MAX_INPUT_DEPTH, checkToolInput } from '../../src/core/tools/inputCheck';
import { TOOL_DECLARATIONS } from '../../src/core/manifest';
import { boundMessage, toolErrorText, unknownToolText } from '../../src/core/tools/parts';
import { invokeTool } from '../../src/core/tools/registry';
import { resolveSettings } from '../../src/core/settings';
import { rejectsWith, throwsWith } from '../unit/helpers/assertions';
import { useTempDirs } from '../unit/helpers/tempDirs';

/** What `work` throws (it must throw). */
function thrown(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  assert.fail('expected a throw');
}

/** Nested `depth` levels: [[[…"x"…]]]. */
function nested(depth: number): unknown {
  let value: unknown = 'x';
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

const LONG_PATH = 'x'.repeat(100_000);

describe('tool errors: a code on every failure, inputs clipped', function () {
  this.timeout(30_000);
  const dirs = useTempDirs('errors');

  it('errors from outside the engine get the code that fits them and say what to do', () => {
    const dir = dirs.make();
    mkdirSync(path.join(dir, 'a-folder'));
    const cases: [unknown, RegExp][] = [
      [
        thrown(() => readFileSync(path.join(dir, 'a-folder'))),
        /^search_tool_output failed \(INVALID_ARGUMENT\): The path is a folder, not a file\. .*\(EISDIR: /,
      ],
      [
        thrown(() => statSync(path.join(dir, LONG_PATH))),
        /^search_tool_output failed \(INVALID_ARGUMENT\): The path, or a name in it, is longer than the file system allows\./,
      ],
      [
        thrown(() => statSync(path.join(dir, 'a\0b'))),
        /^search_tool_output failed \(INVALID_ARGUMENT\): An input holds a value no path or command line can carry \(a NUL character\?\)/,
      ],
      [thrown(() => statSync(path.join(dir, 'missing'))), /^search_tool_output failed \(NOT_FOUND\): There is no such file or folder\./],
      // What the search worker sends back: the errno as a field (SerializedError.errno), never read from the message.
      [
        toError(structuredClone(serializeError(thrown(() => readFileSync(path.join(dir, 'a-folder')))))),
        /^search_tool_output failed \(INVALID_ARGUMENT\): The path is a folder, not a file\./,
      ],
      [new Error('EISDIR: a message is not a code'), /^search_tool_output failed \(INTERNAL\): EISDIR: a message is not a code\. /],
      [
        thrown(() => JSON.stringify(nested(1_000_000))),
        /^search_tool_output failed \(INVALID_ARGUMENT\): The input is nested too deeply to process/,
      ],
      [
        new TypeError('something nobody expected'),
        /^search_tool_output failed \(INTERNAL\): TypeError|^search_tool_output failed \(INTERNAL\): something nobody expected\. This failure was not expected/,
      ],
      ['a thrown string', /^search_tool_output failed \(INTERNAL\): a thrown string\. /],
    ];
    for (const [error, expected] of cases) {
      const text = toolErrorText('search_tool_output', error);
      assert.match(text, expected);
      assert.ok(text.length < 1000, `${text.length} characters: ${text.slice(0, 200)}`);
    }
  });

  it('a message that repeats a huge input repeats its first 200 characters and says how many more there were', () => {
    const id = 'o'.repeat(1_000_000);
    const text = toolErrorText('read_tool_output', new RecallError('NOT_FOUND', `No retained output "${id}" in this session.`));
    assert.equal(
      text,
      `read_tool_output failed (NOT_FOUND): No retained output "${'o'.repeat(199)}… (999802 more characters) in this session.`,
    );
    assert.equal(clipEcho('short'), 'short');
    assert.equal(clipEcho(`${'a'.repeat(199)}😀tail`), `${'a'.repeat(199)}… (6 more characters)`, 'never half a surrogate pair');
    // Long with spaces too: the middle goes, the end (what to do next) stays.
    const spaced = `${'word '.repeat(5000)}Do this next.`;
    const bounded = boundMessage(spaced);
    assert.ok(bounded.length < 4100, `${bounded.length}`);
    assert.match(bounded, /… \(\d+ more characters\) /);
    assert.ok(bounded.endsWith('Do this next.'));
    const unknown = unknownToolText('n'.repeat(1_000_000), ['read_tool_output']);
    assert.ok(unknown.length < 400, `${unknown.length}`);
    assert.match(unknown, /^There is no tool named "n{200}… \(999800 more characters\)"\. Available tools: read_tool_output\.$/);
  });

  it(`input nested deeper than ${MAX_INPUT_DEPTH} levels is INVALID_ARGUMENT before any schema check (no stack overflow)`, () => {
    const schema = TOOL_DECLARATIONS.find((tool) => tool.name === 'read_tool_output')!.inputSchema;
    for (const depth of [MAX_INPUT_DEPTH + 1, 5_000, 1_000_000]) {
      const error = throwsWith(() => checkToolInput(schema, { outputId: nested(depth) }), 'INVALID_ARGUMENT');
      assert.match(error.message, /nests objects or arrays more than 64 levels deep/);
    }
    // At the bound, the schema check answers as before.
    const ok = throwsWith(() => checkToolInput(schema, { outputId: nested(MAX_INPUT_DEPTH - 1) }), 'INVALID_ARGUMENT');
    assert.match(ok.message, /property "outputId" must be a string/);
  });

  it('run_command: a NUL in the command or a blank one (at the tool edge), a command too long for the system, a huge missing cwd: INVALID_ARGUMENT, bounded', async () => {
    const work = dirs.make();
    // What the schema cannot say is checked once, at the tool edge (the spec's validate), before anything starts.
    const context = {
      store: () => Promise.reject(new Error('no store needed')),
      settings: resolveSettings(() => undefined),
      folders: [work],
      signal: new AbortController().signal,
      log: { info() {}, warn() {}, error() {} },
    };
    const nul = await invokeTool('run_command', { command: 'echo a\0b' }, context);
    assert.deepEqual(nul, {
      isError: true,
      text: "run_command failed (INVALID_ARGUMENT): command holds a NUL character (at index 6), which no command line can carry. Remove it; to write one, use printf '\\0' in the command.",
    });
    const blank = await invokeTool('run_command', { command: '  \n' }, context);
    assert.equal(blank.text, 'run_command failed (INVALID_ARGUMENT): command must be a non-empty shell command line.');
    const big = await rejectsWith(runCommand({ command: `echo ${'a'.repeat(1_000_000)}`, cwd: work }, undefined), 'INVALID_ARGUMENT');
    assert.match(
      big.message,
      /^The command is 1000005 bytes: with the environment, more than the system passes to a new process \(E2BIG\)\. Write the long part to a file/,
    );
    const env = await rejectsWith(runCommand({ command: 'true', cwd: work, env: { BAD: 'a\0b' } }, undefined), 'INVALID_ARGUMENT');
    assert.match(env.message, /Remove the NUL character\.$/);
    const cwd = await rejectsWith(runCommand({ command: 'true', cwd: path.join(work, LONG_PATH) }, undefined), 'INVALID_ARGUMENT');
    assert.ok(cwd.message.length < 500, `${cwd.message.length}`);
    assert.match(cwd.message, /\(\d+ more characters\)" does not exist or is not a folder/);
  });
});
