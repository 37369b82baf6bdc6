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
const FOLDERS = ['/home/dev/project'];
const COMMAND = { command: 'npm test', cwd: 'packages/core' };
const PROGRAM = { code: 'const r = await tools.call("run_command", { command: "ls" });\nreturn r;', timeoutSeconds: 30 };

describe('tool descriptions: what VS Code shows a person, from each spec', () => {
  afterEach(() => l10n.config({ contents: {} }));

  it('every tool describes any call in one line; every running tool has a confirmation and a progress line', () => {
    // VS Code hands over the input before any schema check: each spec describes it without throwing.
    const inputs = [{}, { code: 7 }, { command: ['ls'], cwd: 5 }, { path: 5, line: 'x' }, { outputId: null, pattern: {} }] as never[];
    for (const name of TOOL_NAMES) {
      const spec = toolSpec(name);
      for (const input of inputs) {
        const line = spec.invocation(input, FOLDERS);
        assert.ok(line.length > 0 && !line.includes('\n'), `${name} ${JSON.stringify(input)}: ${line}`);
        if (spec.effect !== 'runs') continue;
        const confirmation = spec.confirmation(input, FOLDERS);
        for (const key of ['title', 'question', 'language', 'note'] as const) assert.ok(confirmation[key].length > 0, `${name}.${key}`);
        assert.equal(typeof confirmation.code, 'string');
        assert.ok(spec.progress(input, FOLDERS).length > 0);
      }
    }
  });

  it('says what the call reads or runs, in English by default', () => {
    assert.equal(
      TOOL_SPECS.read_tool_output.invocation({ outputId: 'o-1', offset: 4096 }, FOLDERS),
      'Reading retained output o-1 from byte 4096',
    );
    assert.equal(TOOL_SPECS.search_tool_output.invocation({ path: 'a.log', pattern: 'x' }, FOLDERS), 'Searching a.log for "x"');
    assert.equal(TOOL_SPECS.read_file_page.invocation({ path: 'a.log' }, FOLDERS), 'Reading a.log from line 1');
    const run = TOOL_SPECS.run_command.confirmation(COMMAND, FOLDERS);
    assert.deepEqual(run, {
      title: 'Run command',
      question: 'Run this command in a shell?',
      code: 'npm test',
      language: 'sh',
      note: 'in `/home/dev/project/packages/core`',
    });
    assert.equal(TOOL_SPECS.run_code.confirmation(PROGRAM, FOLDERS).note, 'Time limit: 30 s.');
  });

  it('is translated with the bundle the extension loads (Simplified Chinese)', () => {
    const bundle = JSON.parse(readFileSync(path.join(REPO, 'l10n/bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
    l10n.config({ contents: bundle });
    assert.equal(TOOL_SPECS.run_command.confirmation(COMMAND, FOLDERS).title, '运行命令');
    assert.equal(
      TOOL_SPECS.run_code.invocation(PROGRAM, FOLDERS),
      '正在运行程序 `const r = await tools.call("run_command", { command: "ls"…`',
    );
    assert.equal(TOOL_SPECS.run_code.confirmation(PROGRAM, FOLDERS).note, '时间限制：30 秒。');
  });

  it('clips a long command and a huge program, and counts what the confirmation leaves out', () => {
    const long = `echo ${'x'.repeat(200)}`;
    assert.equal(TOOL_SPECS.run_command.invocation({ command: long }, FOLDERS), `Running \`${long.slice(0, 77)}…\``);
    const code = `return 1;\n${'//'.repeat(15_000)}`;
    const shown = TOOL_SPECS.run_code.confirmation({ code }, FOLDERS).code;
    assert.ok(shown.endsWith(`\n// … ${code.length - 20_000} more characters`), shown.slice(-80));
  });
});
