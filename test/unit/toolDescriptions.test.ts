// What VS Code shows a person about a tool call comes from the tool's spec (invocation line, and for a
// running tool the confirmation and progress), translated through @vscode/l10n with the bundle the
// extension loads at activation. These run the specs' own functions in plain Node, in English and with
// the Simplified Chinese bundle, on valid input and on the unchecked input VS Code may hand over.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as l10n from '@vscode/l10n';
import { TOOL_NAMES, TOOL_SPECS, toolSpec } from '../../src/core/tools/registry';

const REPO = path.resolve(__dirname, '../..');
const FOLDERS = ['/work/project'];

/** A valid input for each tool, for its description. */
const INPUTS = {
  read_tool_output: { outputId: 'o-1', offset: 4096 },
  search_tool_output: { outputId: 'o-1', pattern: 'error' },
  run_command: { command: 'npm test', cwd: 'packages/core' },
  read_file_page: { path: 'build.log', byteOffset: 100 },
  run_code: { code: 'const r = await tools.call("run_command", { command: "ls" });\nreturn r;', timeoutSeconds: 30 },
} satisfies { [N in (typeof TOOL_NAMES)[number]]: unknown };

describe('tool descriptions: what VS Code shows a person, from each spec', () => {
  afterEach(() => l10n.config({ contents: {} }));

  it('every tool describes a call in one line; every running tool has a confirmation and a progress line', () => {
    for (const name of TOOL_NAMES) {
      const spec = toolSpec(name);
      const line = spec.invocation(INPUTS[name], FOLDERS);
      assert.ok(line.length > 0 && !line.includes('\n'), `${name}: ${line}`);
      if (spec.effect === 'runs') {
        const confirmation = spec.confirmation(INPUTS[name], FOLDERS);
        for (const key of ['title', 'question', 'code', 'language', 'note'] as const)
          assert.ok(confirmation[key].length > 0, `${name}.${key}`);
        assert.ok(spec.progress(INPUTS[name], FOLDERS).length > 0);
      }
    }
  });

  it('says what the call reads or runs, in English by default', () => {
    assert.equal(TOOL_SPECS.read_tool_output.invocation(INPUTS.read_tool_output, FOLDERS), 'Reading retained output o-1 from byte 4096');
    assert.equal(TOOL_SPECS.search_tool_output.invocation({ path: 'a.log', pattern: 'x' }, FOLDERS), 'Searching a.log for "x"');
    assert.equal(TOOL_SPECS.read_file_page.invocation({ path: 'a.log' }, FOLDERS), 'Reading a.log from line 1');
    const run = TOOL_SPECS.run_command.confirmation(INPUTS.run_command, FOLDERS);
    assert.deepEqual(run, {
      title: 'Run command',
      question: 'Run this command in a shell?',
      code: 'npm test',
      language: 'sh',
      note: 'in `/work/project/packages/core`',
    });
    assert.equal(TOOL_SPECS.run_code.confirmation(INPUTS.run_code, FOLDERS).note, 'Time limit: 30 s.');
  });

  it('is translated with the bundle the extension loads (Simplified Chinese)', () => {
    const bundle = JSON.parse(readFileSync(path.join(REPO, 'l10n/bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
    l10n.config({ contents: bundle });
    assert.equal(TOOL_SPECS.run_command.confirmation(INPUTS.run_command, FOLDERS).title, '运行命令');
    assert.equal(
      TOOL_SPECS.run_code.invocation(INPUTS.run_code, FOLDERS),
      '正在运行程序 `const r = await tools.call("run_command", { command: "ls"…`',
    );
    assert.equal(TOOL_SPECS.run_code.confirmation(INPUTS.run_code, FOLDERS).note, '时间限制：30 秒。');
  });

  it('clips a long command and a huge program, and counts what the confirmation leaves out', () => {
    const long = `echo ${'x'.repeat(200)}`;
    assert.equal(TOOL_SPECS.run_command.invocation({ command: long }, FOLDERS), `Running \`${long.slice(0, 77)}…\``);
    const code = `return 1;\n${'//'.repeat(15_000)}`;
    const shown = TOOL_SPECS.run_code.confirmation({ code }, FOLDERS).code;
    assert.ok(shown.endsWith(`\n// … ${code.length - 20_000} more characters`), shown.slice(-80));
  });

  it('describes the unchecked input VS Code may hand over without throwing (the schema check comes at the run)', () => {
    const odd = [{}, { code: 7 }, { command: ['ls'], cwd: 5 }, { path: 5, line: 'x' }, { outputId: null, pattern: {} }] as unknown[];
    for (const name of TOOL_NAMES) {
      const spec = toolSpec(name);
      for (const input of odd) {
        const given = input as never;
        assert.equal(typeof spec.invocation(given, FOLDERS), 'string', `${name} ${JSON.stringify(input)}`);
        if (spec.effect === 'runs') assert.equal(typeof spec.confirmation(given, FOLDERS).code, 'string');
      }
    }
  });
});
