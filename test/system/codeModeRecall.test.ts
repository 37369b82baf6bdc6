import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { runCommand, type RunCommandResult } from '../../src/core/tools/runCommand';
import type { SessionStore } from '../../src/core/store/sessionStore';
import { openStore } from '../../src/core/workers/stores';
import { runProgram, type CodeRunResult, type NestedResult, type RunCodeDeps } from '../../src/core/codeMode/runProgram';
import { renderCodeRun } from '../../src/core/codeMode/render';
import { runCodeTool, withRetentionLines } from '../../src/core/tools/runCode';
import { invokeTool, nestedCall } from '../../src/core/tools/registry';
import type { ToolContext } from '../../src/core/tools/toolSpec';
import { resolveSettings } from '../../src/core/settings';
import { DEFAULT_LIMITS, KiB } from '../../src/core/limits';
import type { RecallStore } from '../../src/core/types';
import { namedReadCall, readThrough } from '../unit/helpers/assertions';
import { useTempDirs } from '../unit/helpers/tempDirs';
import { useCommandFixture } from '../unit/helpers/commandFixture';
import { scaled, skipBecause, waitUntil } from '../unit/helpers/mochaRun';

const PREVIEW = DEFAULT_LIMITS.previewBytes;

/** What the run_command tool hands back (status, sizes, outputId, preview), like the real tool. */
function renderCommand(result: RunCommandResult): string {
  const lines = [`$ ${result.command}`, `exit code ${result.exitCode}; stdout: ${result.stdout.totalBytes} bytes`];
  if (result.outputId)
    lines.push(
      `The preview below is NOT the whole output. The merged output is retained as outputId "${result.outputId}" (${result.merged.totalBytes} bytes, complete: ${result.merged.complete}).`,
    );
  lines.push('--- output ---', result.preview);
  return lines.join('\n');
}

/** What a nested run_command gives the program's bridge, like the registry's: its text, and its copy as data. */
function nestedResult(result: RunCommandResult): NestedResult {
  return { text: renderCommand(result), ...(result.outputId && { outputIds: [result.outputId] }) };
}

/** A tool backend: `run_command` is the real capture into the real store; anything else is unknown. */
function commandTools(store: RecallStore, seen: { name: string; text: string }[] = []): RunCodeDeps['callTool'] {
  return async (name, input, signal) => {
    if (name !== 'run_command') throw new Error(`There is no tool named ${JSON.stringify(name)}.`);
    const result = await runCommand({ command: String(input.command), timeoutMs: 30_000, signal }, store, { previewBytes: PREVIEW });
    const nested = nestedResult(result);
    seen.push({ name, text: nested.text });
    return nested;
  };
}

describe('code mode: nested results stay recoverable', () => {
  const dirs = useTempDirs('codemode');
  let store: SessionStore;
  before(async () => {
    store = await openStore({ dir: dirs.make() });
  });
  after(() => store.delete());

  it('a script that calls run_command on a large output and returns result.slice(0, 100) leaves the full output readable', async function () {
    if (process.platform === 'win32') skipBecause(this, 'seq is a POSIX tool; Windows has none');
    const seen: { name: string; text: string }[] = [];
    const result = await runProgram(
      {
        code: "const result = await tools.call('run_command', { command: 'seq 1 200000' });\nreturn result.slice(0, 100);",
        timeoutMs: 60_000,
      },
      { callTool: commandTools(store, seen), store, previewBytes: PREVIEW },
    );
    assert.equal(result.error, undefined);
    assert.equal(seen.length, 1);
    const sawText = seen[0].text;
    assert.equal(result.valuePreview, sawText.slice(0, 100));
    assert.equal(result.valueOutputId, undefined, 'a 100-character value is not retained');

    // The result text the script received (run_command's status + 24 KiB preview) was retained first.
    assert.equal(result.nested.length, 1);
    const [record] = result.nested;
    assert.equal(record.status, 'retained');
    assert.equal(record.tool, 'run_command');
    assert.equal(record.bytes, Buffer.byteLength(sawText));
    assert.ok(record.bytes > PREVIEW);
    assert.ok(record.outputId);
    assert.equal((await readThrough(store, record.outputId)).text, sawText, 'paging the nested copy gives exactly what the script saw');

    // The command's own outputId (the merged output) is reported too, and holds ALL of seq's output.
    const expected = Array.from({ length: 200_000 }, (_, i) => `${i + 1}\n`).join('');
    assert.equal(record.nestedOutputIds.length, 1);
    const [ref] = record.nestedOutputIds;
    assert.notEqual(ref.outputId, record.outputId);
    assert.deepEqual(
      { found: ref.found, tool: ref.tool, totalBytes: ref.totalBytes, complete: ref.complete },
      { found: true, tool: 'run_command', totalBytes: expected.length, complete: true },
    );
    const full = await readThrough(store, ref.outputId);
    assert.equal(full.text, expected);
    assert.ok(full.text.includes('\n123456\n'), 'a line from the middle, absent from both previews, is readable');
    assert.ok(!sawText.includes('\n123456\n'));

    // The model is told which is which.
    const text = renderCodeRun(result, PREVIEW).text;
    assert.ok(text.includes(`outputId "${record.outputId}" holds that result text exactly as the program received it`), text);
    assert.ok(
      text.includes(
        `outputId "${ref.outputId}", named inside that result text, is run_command's own copy of its FULL output for seq 1 200000 (${expected.length} bytes, complete: true). For anything in the command's output, search or read "${ref.outputId}"; "${record.outputId}" holds only what run_command returned (its status and a preview).`,
      ),
      text,
    );
    console.log(
      `      [measure] seq 1 200000 via run_code: ${result.durationMs} ms in the sandbox; script saw ${record.bytes} bytes; command output ${expected.length} bytes`,
    );
  });

  it('retains before the program sees the result, so a program that never returns still leaves the way back', async () => {
    const big = 'row\n'.repeat(20_000);
    const result = await runProgram(
      { code: "const r = await tools.call('export', {});\nconsole.log('got ' + r.length);\nwhile (true) {}", timeoutMs: 2500 },
      { callTool: async () => ({ text: big }), store, previewBytes: PREVIEW },
    );
    assert.equal(result.error?.kind, 'timeout');
    // (Console output written in the same turn as the endless loop is not flushed: the sandbox's
    // outer code cannot run while the loop holds the thread.)
    assert.equal(result.nested.length, 1);
    assert.equal(result.nested[0].status, 'retained');
    assert.equal((await readThrough(store, result.nested[0].outputId!)).text, big);
    const rendered = renderCodeRun(result, PREVIEW);
    const text = rendered.text;
    assert.match(text, /^run_code: the program did not finish \(timeout\)/);
    assert.ok(text.includes(result.nested[0].outputId!));
    // The status line and the rest come as fields (withRetentionLines puts lines between them).
    assert.equal(text, rendered.status + rendered.rest);
    assert.match(rendered.status, /^run_code: the program did not finish \(timeout\); [^\n]*\.$/);
    assert.ok(rendered.rest.startsWith(`\n${result.error.message}`), rendered.rest.slice(0, 200));
  });

  it('hands the text over only after retain() has finished', async () => {
    const events: string[] = [];
    const slowStore: RecallStore = Object.create(store, {
      retain: {
        value: async (content: string, meta: object) => {
          await new Promise((resolve) => setTimeout(resolve, 300));
          const kept = await store.retain(content, meta);
          events.push('retained');
          return kept;
        },
      },
    });
    const result = await runProgram(
      { code: "const r = await tools.call('big', {});\nawait tools.call('mark', {});\nreturn r.length;", timeoutMs: 15_000 },
      {
        callTool: async (name) => {
          events.push(`call ${name}`);
          return { text: name === 'big' ? 'x'.repeat(30 * KiB) : 'ok' };
        },
        store: slowStore,
        previewBytes: PREVIEW,
      },
    );
    assert.equal(result.valuePreview, String(30 * KiB));
    assert.deepEqual(events, ['call big', 'retained', 'call mark']);
  });

  it('does not retain a result at or below the threshold', async () => {
    const before = (await store.list()).length;
    const exact = 'y'.repeat(PREVIEW);
    const result = await runProgram(
      {
        code: "const a = await tools.call('small', {});\nconst b = await tools.call('exact', {});\nreturn a + ':' + b.length;",
        timeoutMs: 15_000,
      },
      { callTool: async (name) => ({ text: name === 'small' ? 'hello' : exact }), store, previewBytes: PREVIEW },
    );
    assert.equal(result.valuePreview, `hello:${PREVIEW}`);
    assert.deepEqual(result.nested, []);
    assert.equal((await store.list()).length, before);
  });

  it('reports outputIds named inside a small result without retaining it', async function () {
    if (process.platform === 'win32') skipBecause(this, 'seq is a POSIX tool; Windows has none');
    // A small run_command result can still name the command's copy when the command's own preview
    // was smaller (e.g. a token budget); the script may drop that line, so it is reported.
    const result = await runProgram(
      { code: "const r = await tools.call('run_command', { command: 'seq 1 5000' });\nreturn r.split('\\n')[1];", timeoutMs: 30_000 },
      {
        callTool: async (name, input, signal) =>
          nestedResult(await runCommand({ command: String(input.command), signal }, store, { previewBytes: 2 * KiB })),
        store,
        previewBytes: PREVIEW,
      },
    );
    assert.equal(result.nested.length, 1);
    assert.equal(result.nested[0].status, 'small');
    assert.equal(result.nested[0].outputId, undefined);
    assert.equal(result.nested[0].nestedOutputIds[0].found, true);
    assert.equal(result.nested[0].nestedOutputIds[0].totalBytes, Array.from({ length: 5000 }, (_, i) => `${i + 1}\n`).join('').length);
    assert.match(
      renderCodeRun(result, PREVIEW).text,
      /the program saw it whole \(at or below the 24576-byte threshold, so not saved separately\)\.\n {2}- outputId "out_[0-9a-f]{24}", named inside that result text, is run_command's own copy of its FULL output/,
    );
  });

  it('takes the copies a nested call retained from its data, never from its text', async () => {
    const copy = await store.retain('the full output\n'.repeat(100), { tool: 'run_command', title: 'the command' });
    const other = await store.retain('another output\n', { tool: 'run_command' });
    const result = await runProgram(
      {
        code: "const a = await tools.call('quiet', {});\nconst b = await tools.call('chatty', {});\nreturn a.length + b.length;",
        timeoutMs: 15_000,
      },
      {
        // 'quiet' retained a copy its text does not name; 'chatty' names a copy it did not retain.
        callTool: async (name) =>
          name === 'quiet' ? { text: 'done. ', outputIds: [copy.outputId] } : { text: `see outputId "${other.outputId}"` },
        store,
        previewBytes: PREVIEW,
      },
    );
    assert.equal(result.error, undefined);
    assert.deepEqual(
      result.nested.map((record) => [record.tool, record.status, record.nestedOutputIds.map((ref) => ref.outputId)]),
      [['quiet', 'small', [copy.outputId]]],
    );
    const [ref] = result.nested[0].nestedOutputIds;
    assert.deepEqual(
      { found: ref.found, tool: ref.tool, title: ref.title, totalBytes: ref.totalBytes },
      { found: true, tool: 'run_command', title: 'the command', totalBytes: copy.totalBytes },
    );
    assert.ok(!renderCodeRun(result, PREVIEW).text.includes(other.outputId), 'a copy the call did not retain is not reported');
  });

  it('retains a return value larger than 24 KiB and previews it with its outputId', async () => {
    const result = await runProgram(
      { code: "let s = '';\nfor (let i = 1; i <= 10000; i++) s += 'value line ' + i + '\\n';\nreturn s;", timeoutMs: 15_000 },
      { callTool: async () => ({ text: '' }), store, previewBytes: PREVIEW },
    );
    const expected = Array.from({ length: 10_000 }, (_, i) => `value line ${i + 1}\n`).join('');
    assert.equal(result.valueBytes, expected.length);
    assert.ok(result.valueOutputId);
    assert.equal(result.valueTruncated, true);
    assert.ok(Buffer.byteLength(result.valuePreview) <= PREVIEW);
    assert.deepEqual(namedReadCall(result.valuePreview).outputId, result.valueOutputId);
    assert.equal((await readThrough(store, result.valueOutputId)).text, expected);
    const info = await store.info(result.valueOutputId);
    assert.equal(info.tool, 'run_code');
    assert.match(
      renderCodeRun(result, PREVIEW).text,
      new RegExp(
        `returned a string \\(${expected.length} bytes\\).*\\nThe return value below is NOT shown whole: it is retained as outputId "${result.valueOutputId}"`,
      ),
    );
  });

  it('says recovery is unavailable when retention fails, and still gives the program the text', async () => {
    const failing: RecallStore = Object.create(store, {
      retain: {
        value: async () => {
          throw new Error('disk full');
        },
      },
    });
    const result = await runProgram(
      { code: "const r = await tools.call('big', {});\nreturn r.length;", timeoutMs: 15_000 },
      { callTool: async () => ({ text: 'z'.repeat(40 * KiB) }), store: failing, previewBytes: PREVIEW },
    );
    assert.equal(result.valuePreview, String(40 * KiB));
    assert.equal(result.nested[0].status, 'unavailable');
    assert.equal(result.nested[0].unavailableReason, 'disk full');
    assert.match(
      renderCodeRun(result, PREVIEW).text,
      /it could NOT be saved \(disk full\), so whatever the program dropped from it cannot be recovered/,
    );
  });

  it('lets the script catch an unknown tool and refuses run_code from inside run_code', async () => {
    const result = await runProgram(
      {
        code: `const out = [];
        for (const name of ['no_such_tool', 'run_code']) {
          try { await tools.call(name, { code: 'return 1' }); } catch (e) { out.push(e.message); }
        }
        return out;`,
        timeoutMs: 15_000,
      },
      { callTool: commandTools(store), store, previewBytes: PREVIEW },
    );
    const messages = JSON.parse(result.valuePreview) as string[];
    assert.deepEqual(messages, [
      'There is no tool named "no_such_tool".',
      'run_code cannot call run_code: a program may not start another program. Do the work in this program, or return and call run_code again.',
    ]);
    assert.equal(result.failedCalls, 2);
  });

  it('rejects inputs that are not objects and caps the number of calls', async () => {
    const result = await runProgram(
      {
        code: `const out = [];
        try { await tools.call('echo', [1]); } catch (e) { out.push(e.message); }
        for (let i = 0; i < 3; i++) { try { out.push(await tools.call('echo', { i })); } catch (e) { out.push(e.message); } }
        return out;`,
        timeoutMs: 15_000,
      },
      { callTool: async (_name, input) => ({ text: `echo ${JSON.stringify(input)}` }), store, previewBytes: PREVIEW, maxCalls: 3 },
    );
    assert.deepEqual(JSON.parse(result.valuePreview), [
      'tools.call("echo", input): input must be an object such as {"command": "ls"}; got [1].',
      'echo {"i":0}',
      'echo {"i":1}',
      'run_code allows at most 3 tools.call per program; this was call 4. Do the rest in another run_code call.',
    ]);
  });

  it('stops nested tools when the program is cancelled', async function () {
    if (process.platform === 'win32') skipBecause(this, 'the nested command is a POSIX shell line (sleep, a redirection)');
    const abort = new AbortController();
    let nestedAborted = false;
    // Cancelled once the nested command runs (it has made its marker), not after a fixed 1.5 s.
    const marker = path.join(dirs.make(), 'running');
    void waitUntil('the nested command to start', () => existsSync(marker))
      .catch(() => undefined) // then the assertions below say what went wrong
      .finally(() => abort.abort());
    const result = await runProgram(
      {
        code: `await tools.call('run_command', { command: ${JSON.stringify(`: > '${marker}'; sleep 30`)} });\nreturn 'done';`,
        timeoutMs: 60_000,
        signal: abort.signal,
      },
      {
        callTool: async (name, input, signal) => {
          signal.addEventListener('abort', () => {
            nestedAborted = true;
          });
          return nestedResult(await runCommand({ command: String(input.command), signal }, store));
        },
        store,
        previewBytes: PREVIEW,
      },
    );
    assert.equal(result.error?.kind, 'cancelled');
    assert.match(result.error.message, /still waiting for tools\.call\("run_command"\)/);
    // Without waiting for the 30 s sleep: seconds on an idle machine, ×TEST_TIME_SCALE, and always well below 30 s.
    assert.ok(result.durationMs < Math.min(scaled(5000), 25_000), `took ${result.durationMs} ms`);
    assert.equal(nestedAborted, true);
  });

  it('renders failures, recovery and capped console output for the model', async () => {
    const result = await runProgram(
      { code: "for (let i = 0; i < 2000; i++) console.log('log line ' + i);\nthrow new RangeError('nope');", timeoutMs: 15_000 },
      { callTool: async () => ({ text: '' }), store, previewBytes: PREVIEW },
    );
    const text = renderCodeRun(result, PREVIEW).text;
    assert.match(
      text,
      /^run_code: the program did not finish \(thrown\); [\d.]+ s; 0 tool calls\.\nThe program threw RangeError: nope \(line 2\)\./,
    );
    assert.match(text, /--- console output \(\d+ characters\) ---\nlog line 0\n/);
    assert.match(
      text,
      /\[console output cut: \d+ more characters and \d+ more lines were not kept\. Return what matters instead of logging it\.\]$/,
    );
  });
});

describe('runCodeTool: the text the model got is recorded with the copies the run retained', () => {
  const fx = useCommandFixture('codemode-preview');

  // A nested result over the threshold (retained) and a return value over it (retained too).
  const code =
    "const r = await tools.call('run_command', { command: 'seq 1 200000' });\n" +
    "const small = await tools.call('run_command', { command: 'echo hi' });\n" +
    'return r + r;';

  it('annotates the return value and every retained nested result with the exact result text', async function () {
    if (process.platform === 'win32') skipBecause(this, 'seq is a POSIX tool; Windows has none');
    const errors: string[] = [];
    const { text, result } = await runCodeTool(
      { code },
      { callTool: commandTools(fx.store), store: fx.store, previewBytes: PREVIEW, onPreviewNotRecorded: (m) => errors.push(m) },
    );
    assert.equal(result.error, undefined);
    assert.deepEqual(errors, []);
    assert.ok(result.valueOutputId, 'the return value was retained');
    const retained = result.nested.filter((record) => record.status === 'retained');
    assert.equal(retained.length, 1, 'one nested result was retained (the small one was not)');
    for (const outputId of [result.valueOutputId, retained[0].outputId!]) {
      const info = await fx.store.info(outputId);
      assert.equal(typeof info.extra?.preview, 'string', `${outputId} has a recorded preview`);
      assert.ok(Buffer.from(info.extra!.preview as string).equals(Buffer.from(text)), `${outputId}: byte for byte the result text`);
      assert.equal(info.extra?.via, 'run_code', 'the fields recorded at retain time stay');
    }
    // The command's own merged copy is not the run_code's to annotate: it keeps the text its run_command recorded with it.
    const merged = retained[0].nestedOutputIds[0].outputId;
    const own = (await fx.store.info(merged)).extra?.preview;
    assert.ok(typeof own === 'string' && own.startsWith('$ seq 1 200000\n') && own !== text);
  });

  it("the lines withRetentionLines puts before the value (its retention line, a queued line) move the value's marker with it", () => {
    const status = 'run_code: the program returned a string (100 bytes)';
    const rest = '\n--- return value ---\nhead\n[the marker]\ntail';
    const text = status + rest;
    const start = text.indexOf('[the marker]');
    const rendered = { text, status, rest, previewMarker: { start, end: start + '[the marker]'.length, from: 5, to: 90 } };
    const omitted = { from: 5, to: 90, bytes: 85, firstLine: 2, lines: 3 };
    const kept = { valueOutputId: 'out_0123456789abcdef01234567', valueFacts: { totalBytes: 100, omitted } } as CodeRunResult;
    const lost = { valueFacts: { totalBytes: 100, omitted } } as CodeRunResult;
    for (const result of [kept, lost])
      for (const queued of [undefined, 'queued 2.0 s before it started: 1 program running']) {
        const moved = withRetentionLines(rendered, result, queued);
        assert.ok(moved.previewMarker);
        assert.equal(
          moved.text.slice(moved.previewMarker.start, moved.previewMarker.end),
          '[the marker]',
          JSON.stringify({ result, queued }),
        );
      }
  });

  it('a failed annotation leaves the result intact and is reported for each copy', async function () {
    if (process.platform === 'win32') skipBecause(this, 'seq is a POSIX tool; Windows has none');
    const failing = Object.create(fx.store) as RecallStore;
    failing.annotate = () => Promise.reject(new Error('the session was closed'));
    const errors: string[] = [];
    const { text, result } = await runCodeTool(
      { code },
      { callTool: commandTools(fx.store), store: failing, previewBytes: PREVIEW, onPreviewNotRecorded: (m) => errors.push(m) },
    );
    assert.equal(result.error, undefined);
    assert.ok(text.includes(`retained as outputId "${result.valueOutputId}"`), text.slice(0, 500));
    const ids = [result.valueOutputId, result.nested.find((record) => record.status === 'retained')?.outputId];
    assert.deepEqual(
      errors,
      ids.map((id) => `the preview the model received could not be recorded for ${id}: the session was closed`),
    );
    for (const id of ids) assert.equal((await fx.store.info(id!)).extra?.preview, undefined);
  });
});

describe('invokeTool: a nested call hands the program the copies its tool retained, as data', () => {
  const fx = useCommandFixture('codemode-registry');

  it("run_command's copy reaches the nested caller and the context's onRetained; a reading tool reports none", async function () {
    if (process.platform === 'win32') skipBecause(this, 'seq is a POSIX tool; Windows has none');
    const told: string[][] = [];
    const context: ToolContext = {
      store: async () => fx.store,
      settings: resolveSettings(() => undefined),
      folders: [fx.work],
      signal: new AbortController().signal,
      log: { info() {}, warn() {}, error() {} },
      onRetained: (outputIds) => told.push([...outputIds]),
    };
    const nested = await nestedCall(context)('run_command', { command: 'seq 1 50000' }, new AbortController().signal);
    assert.equal(nested.outputIds?.length, 1);
    const [outputId] = nested.outputIds;
    const info = await fx.store.info(outputId);
    assert.deepEqual([info.tool, info.title, info.totalBytes], ['run_command', 'seq 1 50000', (await fx.store.readAll(outputId)).length]);
    assert.deepEqual(told, [[outputId]]);

    const read = await invokeTool('read_tool_output', { outputId, maxBytes: 16 }, context);
    assert.deepEqual([read.isError, read.outputIds], [false, undefined]);
  });
});
