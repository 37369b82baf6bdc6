// The plugin Connect writes for OpenCode and Kilo Code (src/core/agents/openCodePlugin.ts), run as
// OpenCode runs it: its module imported, its `tool.execute.after` called with the result object
// OpenCode 1.18.33 passes for a bash output it cut and saved (the shape seen in a real run). The
// plugin starts the real hook (src/mcp/hookAgents.ts), which retains the saved file in the server
// this test process started (this process is the agent), and appends the hook's note to the result.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { KILO_HOOK_ARGS, OPENCODE_HOOK_ARGS, mergePlugin, openCodePluginSource } from '../../src/core/agents/openCodePlugin';
import { isOpenCodeToolOutput } from '../../src/core/files';
import { announced, hookEnv } from '../unit/helpers/hooks';
import { MCP_BUNDLE, connectStdio, ensureBuilt, okText, type StdioServer } from '../unit/helpers/mcpServer';
import { useTempDirs } from '../unit/helpers/tempDirs';

type AfterHook = (input: unknown, output: { title: string; output: string; metadata: Record<string, unknown> }) => Promise<void>;

/** ~300 KB: a log whose one error line lies where OpenCode's cut (its last 2,000 lines) does not reach. */
const LOG = `${Array.from({ length: 6000 }, (_, i) => `step ${i} ok`).join('\n')}\nERROR: disk quota exceeded field=7f3a\n${Array.from(
  { length: 2500 },
  (_, i) => `tail ${i}`,
).join('\n')}\n`;

describe('the OpenCode / Kilo Code plugin', function () {
  this.timeout(240_000);
  const dirs = useTempDirs('opencode-plugin');
  let tmp: string;
  let data: string;
  let server: StdioServer;
  const saved: Record<string, string | undefined> = {};

  before(async () => {
    await ensureBuilt();
    tmp = dirs.make();
    data = dirs.make();
    server = await connectStdio(['--workspace', tmp, '--store', dirs.make()], 'legacy', hookEnv(tmp));
    await announced(tmp);
    // The plugin's hook inherits the agent's environment: this process's.
    for (const [key, value] of Object.entries({ ...hookEnv(tmp), XDG_DATA_HOME: data })) {
      saved[key] = process.env[key];
      process.env[key] = value;
    }
  });
  after(async () => {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    await server?.close();
  });

  /** The plugin as Connect writes it for `args`, imported as OpenCode imports a plugin file; its after-hook. */
  async function plugin(args: readonly string[]): Promise<AfterHook> {
    const file = path.join(dirs.make(), 'tool-output-recall.mjs');
    writeFileSync(file, openCodePluginSource(process.execPath, MCP_BUNDLE, args));
    const module = (await import(pathToFileURL(file).href)) as {
      ToolOutputRecall: (ctx: { directory: string }) => Promise<Record<string, AfterHook>>;
    };
    return (await module.ToolOutputRecall({ directory: tmp }))['tool.execute.after'];
  }

  /** A saved output where `app` saves them, named as it names them. */
  function savedOutput(app: 'opencode' | 'kilo', text: string): string {
    const folder = path.join(data, app, 'tool-output');
    mkdirSync(folder, { recursive: true });
    const file = path.join(folder, `tool_24d4b023c001${Math.random().toString(36).slice(2, 9).padEnd(7, 'x')}Ab3dE9q`);
    writeFileSync(file, text);
    return file;
  }

  const result = (outputPath: string, truncated = true) => ({
    title: 'make test',
    output: `...output truncated...\n\nFull output saved to: ${outputPath}\n\n${LOG.slice(-2000)}`,
    metadata: { output: LOG.slice(-2000), exit: 1, truncated, outputPath },
  });

  for (const [app, args] of [
    ['opencode', OPENCODE_HOOK_ARGS],
    ['kilo', KILO_HOOK_ARGS],
  ] as const) {
    it(`${app}: the saved output is retained whole, and the model's result gains the outputId, the error it was not shown and the tail`, async () => {
      const file = savedOutput(app, LOG);
      assert.equal(await isOpenCodeToolOutput(file), true);
      const output = result(file);
      const shownBefore = output.output;
      await (
        await plugin(args)
      )({ tool: 'bash', sessionID: 'ses_1', callID: 'call_1', args: { command: 'make test' } }, output);
      assert.ok(output.output.startsWith(shownBefore), 'what OpenCode shows stays, first');
      const note = output.output.slice(shownBefore.length);
      const outputId = /outputId "(out_[0-9a-f]{24})"/.exec(note)?.[1] ?? assert.fail(note);
      assert.match(note, /ERROR: disk quota exceeded field=7f3a/);
      assert.match(note, /tail 2499\n?$/);
      const info = JSON.parse(
        okText(await server.client.callTool({ name: 'read_tool_output', arguments: { outputId, offset: 0, maxBytes: 16 } })).split('\n')[0],
      ) as { totalBytes: number; complete: boolean };
      assert.deepEqual([info.totalBytes, info.complete], [Buffer.byteLength(LOG), true]);
      assert.deepEqual(readFileSync(file), Buffer.from(LOG));
    });
  }

  it('leaves the result as it is for another tool, an output it did not cut, or a file that is not a saved output', async () => {
    const after = await plugin(OPENCODE_HOOK_ARGS);
    const file = savedOutput('opencode', LOG);
    const other = dirs.make();
    const elsewhere = path.join(other, 'tool_24d4b023c001AAAAAAAAAAAAAA');
    writeFileSync(elsewhere, LOG);
    assert.equal(await isOpenCodeToolOutput(elsewhere), false);
    for (const [input, output] of [
      [{ tool: 'read', args: {} }, result(file)],
      [{ tool: 'bash', args: { command: 'x' } }, result(file, false)],
      [{ tool: 'bash', args: { command: 'x' } }, result(elsewhere)],
      [{ tool: 'bash', args: { command: 'x' } }, result(path.join(other, 'missing'))],
    ] as const) {
      const before = output.output;
      await after(input, output);
      assert.equal(output.output, before, JSON.stringify(input));
    }
  });

  it('`tool-output-recall-mcp plugin opencode|kilo` prints the plugin Connect writes; any other agent is a usage error', () => {
    for (const [agent, args] of [
      ['opencode', OPENCODE_HOOK_ARGS],
      ['kilo', KILO_HOOK_ARGS],
    ] as const) {
      const run = spawnSync(process.execPath, [MCP_BUNDLE, 'plugin', agent], { encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
      assert.equal(run.stdout, openCodePluginSource(process.execPath, MCP_BUNDLE, args));
    }
    const bad = spawnSync(process.execPath, [MCP_BUNDLE, 'plugin', 'cline'], { encoding: 'utf8' });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /plugin takes the agent: opencode or kilo; got "cline"/);
  });

  it('Connect replaces only its own plugin file: a file of that name it did not write is left alone', () => {
    const text = openCodePluginSource('/usr/bin/node', '/opt/recall/tool-output-recall-mcp.js', OPENCODE_HOOK_ARGS);
    assert.deepEqual(mergePlugin(undefined, text, 'no'), { ok: true, change: 'create', text, others: [] });
    assert.deepEqual(mergePlugin(text, text, 'no'), { ok: true, change: 'unchanged', text, others: [] });
    const older = openCodePluginSource('/usr/bin/node', '/opt/old/tool-output-recall-mcp.js', OPENCODE_HOOK_ARGS);
    assert.deepEqual(mergePlugin(older, text, 'no'), { ok: true, change: 'replace', text, others: [] });
    assert.deepEqual(mergePlugin('export const Mine = async () => ({});\n', text, 'not ours'), { ok: false, problem: 'not ours' });
  });
});
