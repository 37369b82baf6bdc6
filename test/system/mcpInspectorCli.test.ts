// A command-line MCP client we did not write: the MCP Inspector's CLI (@modelcontextprotocol/inspector-cli,
// what `npx @modelcontextprotocol/inspector --cli` runs; built on the 1.x SDK), listing and calling
// the server's tools over stdio and over Streamable HTTP.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { TOOL_DECLARATIONS } from '../../src/core/manifest';
import { useTempDirs } from '../unit/helpers/tempDirs';
import { HTTP_TEST_TOKEN, MCP_BUNDLE, REPO, ensureBuilt, startHttp } from '../unit/helpers/mcpServer';

const exec = promisify(execFile);
const CLI_DIR = path.join(REPO, 'node_modules/@modelcontextprotocol/inspector-cli/build');

interface CliResult {
  content?: { type: string; text: string }[];
  isError?: boolean;
  tools?: { name: string; annotations?: { readOnlyHint?: boolean } }[];
}

/**
 * Runs the CLI and parses the JSON it prints. Its cwd is its own build folder: 1.0.3 checks for
 * "../package.json" relative to the cwd but imports it relative to the module, so it only finds its
 * package.json (for its client name) from there.
 */
async function inspector(args: string[]): Promise<CliResult> {
  const { stdout } = await exec(process.execPath, [path.join(CLI_DIR, 'index.js'), ...args], { cwd: CLI_DIR, timeout: 60_000 });
  return JSON.parse(stdout) as CliResult;
}

const text = (result: CliResult): string => (result.content ?? []).map((block) => block.text).join('');

describe('mcp: the MCP Inspector CLI as a client', function () {
  this.timeout(120_000);
  const dirs = useTempDirs('mcp-inspector');
  let workspace: string;
  before(async () => {
    await ensureBuilt();
    workspace = dirs.make();
    writeFileSync(
      path.join(workspace, 'build.sh'),
      'i=1; while [ $i -le 20000 ]; do echo "compiling unit $i"; i=$((i+1)); done; echo "error: linker failed: missing symbol recall_probe"\n',
    );
  });

  it('over stdio: lists every tool and calls run_command and read_file_page', async () => {
    const server = [process.execPath, MCP_BUNDLE, '--workspace', workspace, '--store', dirs.make()];
    const listed = await inspector([...server, '--method', 'tools/list']);
    assert.deepEqual(
      listed.tools?.map((tool) => tool.name),
      TOOL_DECLARATIONS.map((tool) => tool.name),
    );
    assert.equal(listed.tools?.find((tool) => tool.name === 'read_tool_output')?.annotations?.readOnlyHint, true);

    const ran = await inspector([
      ...server,
      '--method',
      'tools/call',
      '--tool-name',
      'run_command',
      '--tool-arg',
      'command=echo inspector says hi',
    ]);
    assert.equal(ran.isError, undefined);
    assert.match(text(ran), /^exit code 0;.*\n.*\n--- output ---\ninspector says hi\n$/m);

    const page = await inspector([...server, '--method', 'tools/call', '--tool-name', 'read_file_page', '--tool-arg', 'path=build.sh']);
    assert.match(text(page), /^lines 1-1, bytes \[0, \d+\) of \d+\./m);
  });

  it('over HTTP: run_command, then search_tool_output and read_tool_output in the same session find the last line', async () => {
    const server = await startHttp(['--workspace', workspace, '--store', dirs.make()]);
    try {
      const call = (tool: string, ...args: string[]) =>
        inspector([
          server.url,
          '--header',
          `Authorization: Bearer ${HTTP_TEST_TOKEN}`,
          '--method',
          'tools/call',
          '--tool-name',
          tool,
          ...args.flatMap((arg) => ['--tool-arg', arg]),
        ]);
      const ran = text(await call('run_command', 'command=sh build.sh'));
      const outputId = /retained as outputId "(out_[0-9a-f]+)"/.exec(ran)?.[1];
      assert.ok(outputId, ran.slice(0, 300));
      const found = text(await call('search_tool_output', `outputId=${outputId}`, 'pattern=linker failed'));
      const match = JSON.parse(found.split('\n')[1]) as { lineOffset: number; line: number };
      assert.equal(match.line, 20001);
      const read = text(await call('read_tool_output', `outputId=${outputId}`, `offset=${match.lineOffset}`));
      assert.equal((JSON.parse(read.split('\n')[0]) as { text: string }).text, 'error: linker failed: missing symbol recall_probe\n');

      const failed = await call('read_tool_output', `outputId=${outputId}`, 'offset=-5');
      assert.equal(failed.isError, true);
      assert.match(
        text(failed),
        /^read_tool_output failed \(INVALID_ARGUMENT\): the input property "offset" must be an integer ≥ 0; got -5/,
      );
    } finally {
      await server.stop();
    }
  });
});
