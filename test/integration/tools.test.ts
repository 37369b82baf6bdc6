// The tools through vscode.lm.invokeTool in a real extension host: real commands, real retained
// copies, and the errors a model gets for bad inputs.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { RecallTool } from '../../src/extension/tools/recallTool';
import { readSettings } from '../../src/extension/config';
import { TOOL_NAMES, toolSpec } from '../../src/core/tools/registry';
import {
  OUTPUT_ID,
  commandOutputId,
  firstLineJson,
  invoke,
  invokeError,
  isAlive,
  readPage,
  recallApi,
  scaled,
  scratchDir,
  sh,
  testChannel,
  waitFor,
  workspaceDir,
} from './helpers/host';

const MiB = 1024 * 1024;

/**
 * Markdown as VS Code's renderAsPlaintext (src/vs/base/browser/markdownRenderer.ts) reads it for a
 * dialog, for the markdown a confirmation uses: each paragraph's text followed by a line break, each
 * fenced code block's text followed by nothing, inline code without its backticks; trimmed.
 */
function plainText(markdown: string): string {
  return markdown
    .split(/(\n*```[^\n]*\n[\s\S]*?\n```\n*)/)
    .map((part) => {
      const code = /^\n*```[^\n]*\n([\s\S]*?)\n```\n*$/.exec(part);
      if (code) return code[1];
      return part
        .split(/\n{2,}/)
        .filter((paragraph) => paragraph.trim() !== '')
        .map((paragraph) => `${paragraph.replace(/`([^`]*)`/g, '$1').trim()}\n`)
        .join('');
    })
    .join('')
    .trim();
}

describe('tools', function () {
  this.timeout(120_000);
  let dir: string;

  before(async () => {
    await recallApi();
    dir = scratchDir('tools');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  describe('run_command with a summary at the end of a large output', () => {
    let text: string;
    let result: vscode.LanguageModelToolResult;
    let outputId: string;
    let counter: string;

    before(async () => {
      counter = path.join(dir, 'runs.txt');
      // 6,000 lines (~100 KiB), the summary last, and one line per run appended to a counter file.
      const command = `echo run >> ${sh(counter)}; i=1; while [ $i -le 6000 ]; do echo "row $i: some build output padding the log"; i=$((i+1)); done; echo TOTAL_SUMMARY=12345`;
      ({ text, result } = await invoke('run_command', { command }));
      outputId = commandOutputId(text);
    });

    it('returns the status, a head+tail preview with an omission marker, and the outputId', () => {
      assert.match(text, /exit code 0/);
      assert.match(text, /row 1: some build output/, 'the head is in the preview');
      assert.match(text, /TOTAL_SUMMARY=12345/, 'the tail is in the preview');
      assert.match(text, /\[\.\.\. [\d,]+ bytes omitted/, 'an omission marker');
      assert.ok(text.includes(outputId));
      assert.ok(!text.includes('row 3000:'), 'the middle is not in the preview');
    });

    it('returns only text parts, none over 8000 bytes', () => {
      assert.ok(result.content.length > 1, 'a ~25 KiB result comes in several parts');
      for (const part of result.content) {
        assert.ok(part instanceof vscode.LanguageModelTextPart, `part is ${part?.constructor?.name}`);
        assert.ok(Buffer.byteLength(part.value, 'utf8') <= 8000, `part of ${Buffer.byteLength(part.value, 'utf8')} bytes`);
      }
    });

    it('search_tool_output finds the summary with an offset that read_tool_output reads', async () => {
      const found = (await invoke('search_tool_output', { outputId, pattern: 'TOTAL_SUMMARY' })).text;
      const summary = firstLineJson<{ matches: number; complete: boolean }>(found);
      assert.equal(summary.matches, 1);
      assert.equal(summary.complete, true);
      const match = JSON.parse(found.split('\n')[1]) as { offset: number; lineOffset: number; line: number };
      assert.equal(match.line, 6001);
      const page = await readPage(outputId, match.offset);
      assert.ok(page.text.startsWith('TOTAL_SUMMARY=12345'), page.text.slice(0, 80));
      assert.equal(page.hasMore, false);
      assert.equal(page.complete, true);
      const middle = await readPage(outputId, (await readPage(outputId, 0)).nextOffset);
      assert.match(middle.text, /row \d+: some build output/);
    });

    it('ran the command once (reading and searching never re-runs it)', () => {
      assert.equal(fs.readFileSync(counter, 'utf8'), 'run\n');
    });

    // Issue 38: the outputId lost (a summary, a new chat), the output is found by listing or searching.
    it('list_tool_outputs lists it with its command and exit, and a search of every output finds its summary', async () => {
      const listed = (await invoke('list_tool_outputs', { command: 'TOTAL_SUMMARY', session: 'all' })).text;
      const [summary, row] = listed.split('\n').map((line) => (line.startsWith('{') ? (JSON.parse(line) as Record<string, unknown>) : {}));
      assert.equal(summary.matching, 1, listed);
      assert.equal(row.outputId, outputId);
      assert.equal(row.exit, 0);
      assert.equal(row.session, undefined, "this window's session is the current one: no session to name");
      const found = (await invoke('search_tool_output', { pattern: 'TOTAL_SUMMARY=\\d+', regex: true, session: 'all' })).text;
      const lines = found.split('\n');
      const group = lines.find((line) => line.startsWith('{"outputId"'));
      assert.ok(group?.includes(outputId), found.slice(0, 400));
      const hit = JSON.parse(lines[lines.indexOf(group as string) + 1].trim()) as { offset: number; line: number };
      assert.equal(hit.line, 6001);
      assert.ok((await readPage(outputId, hit.offset)).text.startsWith('TOTAL_SUMMARY=12345'));
      assert.equal(fs.readFileSync(counter, 'utf8'), 'run\n', 'found without running it again');
    });
  });

  describe('read_tool_output errors', () => {
    let outputId: string;
    before(async () => {
      outputId = (await (await recallApi()).retain('漢字かな'.repeat(2000), { tool: 'test', title: 'CJK' })).outputId;
    });

    it('an unknown outputId: NOT_FOUND', async () => {
      const message = await invokeError('read_tool_output', { outputId: 'out_0123456789abcdef01234567' });
      assert.match(message, /NOT_FOUND/);
      assert.match(message, /out_0123456789abcdef01234567/);
    });

    it('an offset inside a character: MID_CHARACTER_OFFSET with the boundaries either side', async () => {
      const message = await invokeError('read_tool_output', { outputId, offset: 4 });
      assert.match(message, /MID_CHARACTER_OFFSET/);
      assert.match(message, /"offset":3\}/);
      assert.match(message, /"offset":6\}/);
      assert.equal((await readPage(outputId, 3, 6)).text, '字か');
    });

    it('an offset past the end: OFFSET_OUT_OF_RANGE', async () => {
      const total = 12 * 2000;
      assert.equal((await readPage(outputId, total)).hasMore, false, 'the end itself is a valid offset');
      const message = await invokeError('read_tool_output', { outputId, offset: total + 1 });
      assert.match(message, /OFFSET_OUT_OF_RANGE/);
      assert.match(message, new RegExp(`holds ${total} bytes`));
    });

    it('maxBytes 0: INVALID_ARGUMENT', async () => {
      assert.match(await invokeError('read_tool_output', { outputId, maxBytes: 0 }), /INVALID_ARGUMENT/);
    });
  });

  it('20 MiB stdout + 1 MiB stderr: kept head and tail, complete:false to the last page', async () => {
    const command = `yes 'stdout line 0123456789 abcdefghij' | head -c ${20 * MiB}; yes 'stderr line' | head -c ${MiB} >&2; echo LAST_LINE`;
    const { text } = await invoke('run_command', { command });
    assert.match(text, new RegExp(`stdout: ${20 * MiB + 10} bytes, \\d+ kept, \\d+ dropped \\(complete: false\\)`));
    assert.match(text, new RegExp(`stderr: ${MiB} bytes; cwd `), 'stderr alone fits its cap');
    assert.match(text, /complete: false/);
    const outputId = commandOutputId(text);
    const first = await readPage(outputId, 0);
    assert.equal(first.complete, false);
    assert.ok(first.totalBytes <= 8 * MiB + 1024, `copy of ${first.totalBytes} bytes`);
    const last = await readPage(outputId, first.totalBytes - 64);
    assert.equal(last.hasMore, false);
    assert.equal(last.complete, false);
    assert.match(last.text, /LAST_LINE\n$/, 'the tail is kept');
  });

  it('cancellation stops the command and its whole process tree promptly', async () => {
    const shellPid = path.join(dir, 'shell.pid');
    const childPid = path.join(dir, 'child.pid');
    const command = `echo $$ > ${sh(shellPid)}; sh -c 'echo $$ > ${childPid}; exec sleep 1000' & wait`;
    const source = new vscode.CancellationTokenSource();
    const running = invoke('run_command', { command }, source.token).then(
      ({ text }) => ({ text }),
      (error: Error) => ({ error }),
    );
    await waitFor('the child to write its pid', () => fs.existsSync(childPid) && fs.readFileSync(childPid, 'utf8').trim() !== '');
    const pids = [shellPid, childPid].map((f) => Number(fs.readFileSync(f, 'utf8').trim()));
    assert.ok(pids.every(isAlive), 'both processes run before the cancel');
    // (Cancelled as soon as both run: the fixed wait up to a second after the start proved nothing more.)
    const cancelledAt = Date.now();
    source.cancel();
    const outcome = await running;
    const took = Date.now() - cancelledAt;
    // Promptly: far from the 1000 s the command would take, and within SIGTERM plus the 2 s until
    // SIGKILL on an idle machine; ×TEST_TIME_SCALE on a slow or busy one.
    assert.ok(took < scaled(3000), `the invocation took ${took} ms to end after the cancel`);
    if ('text' in outcome) assert.match(outcome.text, /cancelled \(the process tree was stopped\)/);
    else assert.match(String(outcome.error), /cancel/i);
    await waitFor('the process tree to be gone', () => !pids.some(isAlive), 3000);
  });

  describe('in an untrusted workspace', () => {
    // The test host runs with trust disabled (always trusted), so the tools are built with a fake answer.
    const deps = () => ({
      store: async () => {
        throw new Error('no store needed');
      },
      settings: readSettings,
      isTrusted: () => false,
      onRetained: () => undefined,
      log: testChannel(),
    });
    const options = <T>(input: T) => ({ input, toolInvocationToken: undefined }) as vscode.LanguageModelToolInvocationOptions<T>;

    it('run_command refuses and runs nothing', async () => {
      const marker = path.join(dir, 'untrusted-ran');
      await assert.rejects(
        new RecallTool('run_command', deps()).invoke(
          options({ command: `touch ${sh(marker)}` }),
          new vscode.CancellationTokenSource().token,
        ),
        /run_command failed \(REFUSED\): run_command does not run in an untrusted workspace\. Ask the user to trust this workspace/,
      );
      assert.equal(fs.existsSync(marker), false);
    });

    it('run_code refuses', async () => {
      await assert.rejects(
        new RecallTool('run_code', deps()).invoke(options({ code: 'return 1' }), new vscode.CancellationTokenSource().token),
        /run_code failed \(REFUSED\): run_code does not run in an untrusted workspace\. Ask the user to trust this workspace/,
      );
    });
  });

  it('registers every tool package.json declares; each describes its call from its spec, and a running tool asks first', () => {
    const ext = vscode.extensions.getExtension('tool-output-recall.tool-output-recall')!;
    const declared = (ext.packageJSON as { contributes: { languageModelTools: { name: string }[] } }).contributes.languageModelTools;
    const registered = new Set(vscode.lm.tools.map((tool) => tool.name));
    assert.deepEqual(
      declared.map((tool) => tool.name),
      [...TOOL_NAMES],
    );
    for (const name of TOOL_NAMES) {
      assert.ok(registered.has(name), `${name} is declared but not registered`);
      const tool = new RecallTool(name, {
        store: () => Promise.reject(new Error('no store needed')),
        settings: readSettings,
        isTrusted: () => true,
        onRetained: () => undefined,
        log: testChannel(),
      });
      const prepared = tool.prepareInvocation({ input: {} });
      assert.equal(typeof prepared.invocationMessage, 'string', name);
      assert.equal(prepared.confirmationMessages !== undefined, toolSpec(name).effect === 'runs', name);
    }
  });

  it('run_command asks with the folder before the command, its code block last: in plain text (a dialog) they do not run together', () => {
    const tool = new RecallTool('run_command', {
      store: () => Promise.reject(new Error('no store needed')),
      settings: readSettings,
      isTrusted: () => true,
      onRetained: () => undefined,
      log: testChannel(),
    });
    const prepared = tool.prepareInvocation({ input: { command: 'sh build-log.sh', cwd: 'sub' } });
    const message = prepared.confirmationMessages?.message;
    assert.ok(message, 'run_command asks first');
    const markdown = typeof message === 'string' ? message : message.value;
    const folder = path.join(workspaceDir(), 'sub');
    assert.match(markdown, /```sh\nsh build-log\.sh\n```\s*$/, `the code block ends the message:\n${markdown}`);
    // Invoked outside a chat, VS Code asks in a dialog showing the message as plain text (its
    // renderAsPlaintext: a paragraph's text and a line break, a code block's text and none), so
    // whatever followed the code block ran into the command: "sh build-log.shin /…/sub".
    assert.equal(plainText(markdown), `Run this command in a shell?\nin ${folder}\nsh build-log.sh`);
  });

  it("run_code's nested calls are checked against the tool's input schema, as a model's calls are", async () => {
    // Through vscode.lm.invokeTool, which does not check inputs itself: the adapter's invokeTool does.
    const code =
      "try { await tools.call('read_tool_output', { outputId: 5 }); return 'no error'; } catch (error) { return String(error.message); }";
    const { text } = await invoke('run_code', { code });
    assert.match(text, /read_tool_output failed \(INVALID_ARGUMENT\): the input property \\?"outputId\\?" must be a string; got 5/);
  });

  it('a token budget shrinks the run_command preview', async () => {
    const command = 'i=1; while [ $i -le 3000 ]; do echo "budget line $i"; i=$((i+1)); done';
    const plain = (await invoke('run_command', { command })).text;
    const budgeted = (
      await invoke('run_command', { command }, undefined, {
        tokenBudget: 2000,
        countTokens: async (t: string) => Math.ceil(t.length / 4),
      })
    ).text;
    const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
    assert.ok(bytes(plain) > 20_000, `unbudgeted result ${bytes(plain)} bytes`);
    assert.ok(bytes(budgeted) < 2000 * 2 + 1200, `budgeted result ${bytes(budgeted)} bytes`);
    assert.match(budgeted, OUTPUT_ID, 'still names the retained copy');
    assert.match(budgeted, /budget line 3000/, 'the tail survives');
  });
});
