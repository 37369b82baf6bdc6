// The MCP server (dist/mcp.js) through the SDK's own client, a client we did not write: over stdio
// (how Claude Code, Codex and Cursor start it) and over Streamable HTTP, in both protocol eras.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { TOOL_DECLARATIONS } from '../../src/core/manifest';
import { TOOL_NAMES, TOOL_SPECS, nestedToolNames } from '../../src/core/tools/registry';
import { useTempDirs } from '../unit/helpers/tempDirs';
import { connectHttp, connectStdio, ensureBuilt, okText, startHttp, textOf, type Era } from '../unit/helpers/mcpServer';

const LINES = 20_000;
const FIELD = 'deploy_token_checksum=7f3a9c41e2';

/** A workspace with a script that prints 20,000 lines, the field on the last, and counts its runs. */
function workspaceWithScript(dirs: { make(): string }): { workspace: string; runs: () => number } {
  const workspace = dirs.make();
  const counter = path.join(workspace, 'runs.log');
  writeFileSync(counter, '');
  writeFileSync(
    path.join(workspace, 'report.sh'),
    `echo run >> runs.log\ni=1\nwhile [ $i -lt ${LINES} ]; do echo "progress line $i of ${LINES}: nothing to see"; i=$((i+1)); done\necho "${FIELD}"\n`,
  );
  return { workspace, runs: () => readFileSync(counter, 'utf8').split('\n').filter(Boolean).length };
}

/** The done-when scenario: run_command of the script, search_tool_output for the field, read_tool_output at the match. */
async function findTheField(client: Client, era: Era): Promise<string> {
  assert.equal(client.getProtocolEra(), era);
  assert.equal(client.getNegotiatedProtocolVersion(), era === 'modern' ? '2026-07-28' : '2025-11-25');
  const ran = await client.callTool({ name: 'run_command', arguments: { command: 'sh report.sh' } });
  const run = okText(ran);
  // The 24 KiB preview comes as several text blocks of at most 8,000 bytes (okText checks each).
  assert.ok((ran.content as unknown[]).length >= 3, `${(ran.content as unknown[]).length} blocks`);
  assert.match(run, /^exit code 0;/m);
  assert.ok(!run.includes(FIELD) || run.indexOf(FIELD) > run.indexOf('[...'), 'the preview cut the middle');
  const outputId = /retained as outputId "(out_[0-9a-f]+)"/.exec(run)?.[1];
  assert.ok(outputId, `no outputId in ${run.slice(0, 400)}`);

  const search = okText(await client.callTool({ name: 'search_tool_output', arguments: { outputId, pattern: 'deploy_token_checksum=' } }));
  const [summary, match] = search.split('\n').map((line) => (line.startsWith('{') ? JSON.parse(line) : line));
  assert.equal(summary.matches, 1);
  assert.equal(match.line, LINES);

  const read = okText(await client.callTool({ name: 'read_tool_output', arguments: { outputId, offset: match.lineOffset } }));
  const page = JSON.parse(read.split('\n')[0]) as { text: string; complete: boolean };
  assert.equal(page.text.trim(), FIELD);
  assert.equal(page.complete, true);
  return FIELD;
}

describe('mcp server: the SDK client over stdio and HTTP', function () {
  this.timeout(120_000);
  const dirs = useTempDirs('mcp');
  before(ensureBuilt);

  for (const era of ['legacy', 'modern'] as Era[]) {
    it(`stdio (${era} era): run_command of a 20,000-line script, then search and read, returns the last line's field; the script ran once`, async () => {
      const { workspace, runs } = workspaceWithScript(dirs);
      const server = await connectStdio(['--workspace', workspace, '--store', dirs.make()], era);
      try {
        assert.equal(await findTheField(server.client, era), FIELD);
        assert.equal(runs(), 1);
      } finally {
        await server.close();
      }
    });

    it(`HTTP (${era} era): the same scenario over Streamable HTTP at 127.0.0.1/mcp`, async () => {
      const { workspace, runs } = workspaceWithScript(dirs);
      const server = await startHttp(['--workspace', workspace, '--store', dirs.make()]);
      const client = await connectHttp(server.url, era, server.auth);
      try {
        assert.equal(await findTheField(client, era), FIELD);
        assert.equal(runs(), 1);
      } finally {
        await client.close();
        assert.equal(await server.stop(), 0, server.stderr());
      }
    });
  }

  describe('one server', () => {
    let server: Awaited<ReturnType<typeof connectStdio>>;
    let workspace: string;
    before(async () => {
      workspace = dirs.make();
      writeFileSync(path.join(workspace, 'notes.txt'), 'alpha\nbeta\ngamma\n');
      writeFileSync(path.join(workspace, '.env'), 'SECRET=1\n');
      server = await connectStdio(['--workspace', workspace, '--store', dirs.make(), '--preview-bytes', '2048']);
    });
    after(() => server.close());

    it('lists every tool with the manifest names, descriptions and input schemas, and the hints', async () => {
      const { tools } = await server.client.listTools();
      assert.deepEqual(
        tools.map((tool) => ({ name: tool.name, title: tool.title, description: tool.description, inputSchema: tool.inputSchema })),
        TOOL_DECLARATIONS.map((tool) => ({
          name: tool.name,
          title: tool.displayName,
          description: tool.modelDescription,
          inputSchema: tool.inputSchema,
        })),
      );
      const hints = Object.fromEntries(
        tools.map((tool) => [tool.name, [tool.annotations?.readOnlyHint, tool.annotations?.destructiveHint]]),
      );
      // From each spec's effect: reading tools are read-only, running tools may destroy.
      const byEffect = { reads: [true, false], runs: [false, true] };
      assert.deepEqual(hints, Object.fromEntries(TOOL_NAMES.map((name) => [name, byEffect[TOOL_SPECS[name].effect]])));
    });

    it('names itself and tells the model to read retained outputs instead of re-running', () => {
      assert.equal(server.client.getServerVersion()?.name, 'tool-output-recall');
      assert.match(server.client.getInstructions() ?? '', /read_tool_output/);
    });

    it('read_file_page pages a workspace file by line and refuses a sensitive one with the engine message', async () => {
      const page = textOf(await server.client.callTool({ name: 'read_file_page', arguments: { path: 'notes.txt', line: 2 } }));
      assert.match(page, /^lines 2-3, bytes \[6, 17\) of 17\./m);
      assert.ok(page.endsWith('beta\ngamma\n'));
      const refused = await server.client.callTool({ name: 'read_file_page', arguments: { path: '.env' } });
      assert.equal(refused.isError, true);
      assert.match(textOf(refused), /^read_file_page failed \(REFUSED\): \.env is a sensitive file/);
    });

    it("run_code's tools.call reaches this server's tools, and a nested failure is an Error the program catches", async () => {
      const code = [
        "const out = await tools.call('run_command', { command: 'echo nested-$((20+22))' });",
        "let failure = '';",
        "try { await tools.call('read_tool_output', { outputId: 'out_000000000000000000000000' }); } catch (e) { failure = e.message; }",
        "let unknown = '';",
        "try { await tools.call('no_such_tool', {}); } catch (e) { unknown = e.message; }",
        "return { echoed: out.includes('nested-42'), failure, unknown };",
      ].join('\n');
      const text = textOf(await server.client.callTool({ name: 'run_code', arguments: { code } }));
      const value = JSON.parse(text.slice(text.indexOf('--- return value ---') + 21).split('\n---')[0]);
      assert.equal(value.echoed, true);
      assert.match(value.failure, /^read_tool_output failed \(NOT_FOUND\): /);
      // Every tool but run_code itself (a program cannot start another program).
      assert.equal(value.unknown, `There is no tool named "no_such_tool". Available tools: ${nestedToolNames(TOOL_NAMES).join(', ')}.`);
    });

    it('answers a bad input with an isError result naming the property, before any engine call', async () => {
      const cases: [string, Record<string, unknown>, RegExp][] = [
        ['read_tool_output', {}, /^read_tool_output failed \(INVALID_ARGUMENT\): the input needs "outputId"/],
        ['read_tool_output', { outputId: 'out_1', offset: -1 }, /property "offset" must be an integer ≥ 0; got -1/],
        ['read_tool_output', { outputId: 'out_1', maxBytes: 5000 }, /property "maxBytes" must be an integer ≥ 1 and ≤ 4096; got 5000/],
        ['search_tool_output', { outputId: 'out_1', pattern: 'x', regex: 'yes' }, /property "regex" must be true or false; got "yes"/],
        [
          'run_command',
          { command: 'true', shell: 'bash' },
          /has an unknown property "shell"; the properties are command, cwd, timeoutSeconds/,
        ],
        ['run_command', { command: 'true', timeoutSeconds: 0 }, /property "timeoutSeconds" must be a number > 0 and ≤ 86400; got 0/],
        ['run_code', { code: 42 }, /property "code" must be a string; got 42/],
        ['read_file_page', { path: 'notes.txt', line: 1.5 }, /property "line" must be an integer ≥ 1; got 1\.5/],
      ];
      for (const [name, input, expected] of cases) {
        const result = await server.client.callTool({ name, arguments: input });
        assert.equal(result.isError, true, `${name} ${JSON.stringify(input)}`);
        assert.match(textOf(result), expected);
      }
    });

    it('gives engine errors as isError results with the engine message', async () => {
      const result = await server.client.callTool({ name: 'read_tool_output', arguments: { outputId: 'out_000000000000000000000000' } });
      assert.equal(result.isError, true);
      assert.match(textOf(result), /^read_tool_output failed \(NOT_FOUND\): /);
      const code = await server.client.callTool({ name: 'run_code', arguments: { code: '   ' } });
      assert.match(textOf(code), /^run_code failed \(INVALID_ARGUMENT\): code must be a non-empty JavaScript program/);
    });

    it('answers an unknown tool with a protocol error that lists the tools', async () => {
      await assert.rejects(
        server.client.callTool({ name: 'no_such_tool', arguments: {} }),
        /There is no tool named "no_such_tool"\. Available tools: read_tool_output/,
      );
    });

    it('takes its limits from flags: --preview-bytes 2048 gives a 2 KiB preview', async () => {
      const text = textOf(await server.client.callTool({ name: 'run_command', arguments: { command: 'seq 1 5000' } }));
      const preview = text.slice(text.indexOf('---\n') + 4);
      assert.ok(Buffer.byteLength(preview) <= 2048 + 200, `preview of ${Buffer.byteLength(preview)} bytes`);
      assert.match(text, /retained as outputId "out_/);
    });
  });
});
