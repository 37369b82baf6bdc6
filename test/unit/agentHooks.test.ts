// The hooks for agents' own shell tools (src/mcp/hook.ts, hookAgents.ts): the hook finds the server
// its agent started, that server retains the whole output in its session, and the model's context
// names the outputId the agent's tools then read. Real processes throughout: `node dist/mcp.js` as
// the server (started by this process, the "agent") and as the hook, each in a run folder of its own
// (TMPDIR) so no other test's server is found.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { ensureRunDir } from '../../src/mcp/hookRunDir';
import { waitUntil } from './helpers/mochaRun';
import { useTempDirs } from './helpers/tempDirs';
import { MCP_BUNDLE, connectStdio, ensureBuilt, okText, type StdioServer } from './helpers/mcpServer';

const FIELD = 'release_checksum=5be0c2d9';
/** About 3 MB of shell output with one error in the middle and the field on its last line. */
const OUTPUT = `${Array.from({ length: 300_000 }, (_, i) => `line ${i} ok`).join('\n')}\nERROR: disk full on /var\n${Array.from(
  { length: 10_000 },
  (_, i) => `tail ${i}`,
).join('\n')}\n${FIELD}\n`;

const geminiEvent = (output: string) => ({
  session_id: 's1',
  cwd: '/',
  hook_event_name: 'AfterTool',
  tool_name: 'run_shell_command',
  tool_input: { command: 'make release' },
  // As Gemini CLI 0.61.0 sends it (seen live): the output without its last line break, then its own status lines.
  tool_response: {
    llmContent: `<untrusted_context>\nOutput: ${output.replace(/\n$/, '')}\n[Exit Code: 0]\nProcess Group PGID: 4242\n</untrusted_context>`,
    returnDisplay: output,
  },
});
const qwenEvent = (output: string) => ({
  session_id: 's1',
  cwd: '/',
  hook_event_name: 'PostToolUse',
  tool_name: 'run_shell_command',
  tool_input: { command: 'make release' },
  tool_response: {
    llmContent: 'Tool output was too large and has been truncated.',
    returnDisplay: { type: 'shell_result', version: 1, output, exitCode: 0 },
  },
});

function runHook(name: string, event: unknown, tmp: string): { stdout: string; stderr: string; status: number | null } {
  const run = spawnSync(process.execPath, [MCP_BUNDLE, 'hook', name], {
    input: JSON.stringify(event),
    encoding: 'utf8',
    env: { ...process.env, TMPDIR: tmp },
    maxBuffer: 64 * 1024 * 1024,
  });
  return { stdout: run.stdout, stderr: run.stderr, status: run.status };
}

/** Waits until `count` servers have announced themselves to hooks in the run folder under `tmp` (they do once their session is open). */
async function announced(tmp: string, count = 1): Promise<void> {
  const runDir = path.join(tmp, `tool-output-recall-${process.getuid?.() ?? 0}`);
  const servers = () => {
    try {
      return readdirSync(runDir).filter((name) => name.endsWith('.json')).length;
    } catch {
      return 0;
    }
  };
  await waitUntil(`${count} server(s) announced in ${runDir}`, () => servers() >= count);
}

/** One read_tool_output page (its first line is the page's JSON). */
async function readPage(
  server: StdioServer,
  outputId: string,
  offset: number,
): Promise<{ text: string; totalBytes: number; hasMore: boolean }> {
  const read = okText(await server.client.callTool({ name: 'read_tool_output', arguments: { outputId, offset, maxBytes: 4096 } }));
  return JSON.parse(read.split('\n')[0]) as { text: string; totalBytes: number; hasMore: boolean };
}

describe('hooks for agents’ own shell tools', function () {
  this.timeout(240_000);
  const dirs = useTempDirs('agent-hooks');
  before(ensureBuilt);

  for (const [name, event, eventName] of [
    ['gemini-cli-after-tool', geminiEvent, 'AfterTool'],
    ['qwen-code-post-tool-use', qwenEvent, 'PostToolUse'],
  ] as const) {
    it(`${name}: the agent's server retains the whole output; the context names its outputId, the calls, the error and the last line`, async () => {
      const tmp = dirs.make();
      const server = await connectStdio(['--workspace', dirs.make(), '--store', dirs.make()], 'legacy', { TMPDIR: tmp });
      try {
        await announced(tmp);
        const hook = runHook(name, event(OUTPUT), tmp);
        assert.equal(hook.status, 0, hook.stderr);
        const output = JSON.parse(hook.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
        assert.equal(output.hookSpecificOutput.hookEventName, eventName);
        const context = output.hookSpecificOutput.additionalContext;
        assert.ok(Buffer.byteLength(context) <= 4096, `${Buffer.byteLength(context)} bytes of context`);
        const outputId = /outputId "(out_[0-9a-f]{24})"/.exec(context)?.[1];
        assert.ok(outputId, context);
        assert.match(context, /search_tool_output \{"outputId": "out_/);
        assert.match(context, /read_tool_output \{"outputId": "out_/);
        assert.match(context, /ERROR: disk full on \/var/);
        assert.match(context, new RegExp(FIELD));
        // The copy is the command's output (Gemini's wrapper and status lines taken off): its size, its first and last bytes.
        // (Gemini's own status lines are taken off; the line break it took off the end cannot be restored.)
        const expected = Buffer.from(name.startsWith('gemini') ? OUTPUT.replace(/\n$/, '') : OUTPUT);
        const first = await readPage(server, outputId, 0);
        assert.equal(first.totalBytes, expected.length);
        assert.equal(first.text, expected.subarray(0, 4096).toString());
        const last = await readPage(server, outputId, expected.length - 100);
        assert.equal(last.text, expected.subarray(expected.length - 100).toString());
        assert.equal(last.hasMore, false);
        const found = okText(
          await server.client.callTool({ name: 'search_tool_output', arguments: { outputId, pattern: 'release_checksum' } }),
        );
        assert.match(found, new RegExp(FIELD));
      } finally {
        await server.close();
      }
    });
  }

  it('qwen-code-post-tool-use: the returnDisplay string `qwen -p` sends (the output, then its saved-to line) is retained without that line', async () => {
    const tmp = dirs.make();
    const server = await connectStdio(['--workspace', dirs.make(), '--store', dirs.make()], 'legacy', { TMPDIR: tmp });
    try {
      await announced(tmp);
      const event = qwenEvent(OUTPUT);
      event.tool_response.returnDisplay =
        `${OUTPUT}\nOutput too long and was saved to: /root/.qwen/tmp/ab/run_shell_command_9b6406f17ea8.output` as never;
      const hook = runHook('qwen-code-post-tool-use', event, tmp);
      const context = (JSON.parse(hook.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput
        .additionalContext;
      const outputId = /outputId "(out_[0-9a-f]{24})"/.exec(context)?.[1] ?? '';
      assert.equal((await readPage(server, outputId, 0)).totalBytes, Buffer.byteLength(OUTPUT));
    } finally {
      await server.close();
    }
  });

  it('copilot-cli-post-tool-use: the file Copilot saved (named in its note) is retained while it exists; the context is the top-level additionalContext Copilot reads', async () => {
    const tmp = dirs.make();
    const server = await connectStdio(['--workspace', dirs.make(), '--store', dirs.make()], 'legacy', { TMPDIR: tmp });
    try {
      await announced(tmp);
      const saved = path.join(tmp, `${Date.now()}-copilot-tool-output-14010-0b8f3c1e-1a2b-4c3d-8e9f-0123456789ab.txt`);
      writeFileSync(saved, OUTPUT);
      const note = `Output too large to read at once (3.4 MB). Saved to: ${saved}\nConsider using tools like grep …\n\nPreview (first 500 chars):\n${OUTPUT.slice(0, 500)}`;
      const event = {
        sessionId: 'c0ffee',
        cwd: '/',
        toolName: 'bash',
        toolArgs: { command: 'make release', mode: 'sync' },
        toolResult: { resultType: 'success', textResultForLlm: note },
      };
      const hook = runHook('copilot-cli-post-tool-use', event, tmp);
      assert.equal(hook.status, 0, hook.stderr);
      const output = JSON.parse(hook.stdout) as { additionalContext: string };
      assert.deepEqual(Object.keys(output), ['additionalContext']);
      const outputId = /outputId "(out_[0-9a-f]{24})"/.exec(output.additionalContext)?.[1] ?? '';
      assert.match(output.additionalContext, /ERROR: disk full on \/var/);
      assert.equal((await readPage(server, outputId, 0)).totalBytes, Buffer.byteLength(OUTPUT));
      // A note naming a file outside the temp folder is not followed.
      const elsewhere = path.join(dirs.make(), path.basename(saved));
      writeFileSync(elsewhere, OUTPUT);
      const refused = runHook(
        'copilot-cli-post-tool-use',
        { ...event, toolResult: { resultType: 'success', textResultForLlm: note.replace(saved, elsewhere) } },
        tmp,
      );
      assert.equal(refused.stdout, '');
      assert.match(refused.stderr, /is not in the temp folder/);
    } finally {
      await server.close();
    }
  });

  it('a small output needs nothing: no context, nothing retained', async () => {
    const tmp = dirs.make();
    const server = await connectStdio(['--workspace', dirs.make(), '--store', dirs.make()], 'legacy', { TMPDIR: tmp });
    try {
      await announced(tmp);
      const hook = runHook('gemini-cli-after-tool', geminiEvent('done\n'), tmp);
      assert.equal(hook.status, 0, hook.stderr);
      assert.equal(hook.stdout, '');
      assert.doesNotMatch(server.stderr(), /hook: retained/);
    } finally {
      await server.close();
    }
  });

  it('with no server of its agent running, it says so on stderr and changes nothing (exit 0)', () => {
    const hook = runHook('qwen-code-post-tool-use', qwenEvent(OUTPUT), dirs.make());
    assert.equal(hook.status, 0);
    assert.equal(hook.stdout, '');
    assert.match(hook.stderr, /no tool-output-recall-mcp server of this agent is running; the output is not retained/);
  });

  it("picks its own agent's server: of two, the one whose ancestors meet the hook's nearest", async () => {
    const tmp = dirs.make();
    const own = await connectStdio(['--workspace', dirs.make(), '--store', dirs.make()], 'legacy', { TMPDIR: tmp });
    // Another agent's server: one process further from this one (through a shell), as a second agent under the same parent.
    const other = spawn('sh', ['-c', `"${process.execPath}" "${MCP_BUNDLE}" --workspace "${dirs.make()}" --store "${dirs.make()}"; true`], {
      env: { ...process.env, TMPDIR: tmp },
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let otherErr = '';
    other.stderr.on('data', (chunk: Buffer) => (otherErr += chunk.toString()));
    try {
      await announced(tmp, 2);
      const hook = runHook('gemini-cli-after-tool', geminiEvent(OUTPUT), tmp);
      assert.equal(hook.status, 0, hook.stderr);
      const outputId = /outputId \\"(out_[0-9a-f]{24})/.exec(hook.stdout)?.[1];
      // The servers' logs arrive when this process reads its pipes again (spawnSync held it).
      await waitUntil(
        'the retaining server’s log line',
        () => own.stderr().includes(`as ${outputId}`) || otherErr.includes(`as ${outputId}`),
      );
      assert.match(own.stderr(), new RegExp(`hook: retained gemini-cli run_shell_command output as ${outputId}`));
      assert.doesNotMatch(otherErr, /hook: retained/);
    } finally {
      other.stdin.end();
      await own.close();
    }
  });

  it('a run folder other users can enter is refused by the server and by the hook', async () => {
    const tmp = dirs.make();
    const runDir = path.join(tmp, `tool-output-recall-${process.getuid?.() ?? 0}`);
    await ensureRunDir(runDir);
    chmodSync(runDir, 0o755);
    const server = await connectStdio(['--workspace', dirs.make(), '--store', dirs.make()], 'legacy', { TMPDIR: tmp });
    try {
      await waitUntil('the warning about the run folder', () => /hooks cannot reach this server/.test(server.stderr()));
      assert.match(server.stderr(), /hooks cannot reach this server: .* is open to other users \(mode 755\)/);
      const hook = runHook('gemini-cli-after-tool', geminiEvent(OUTPUT), tmp);
      assert.equal(hook.stdout, '');
      assert.match(hook.stderr, /no tool-output-recall-mcp server of this agent is running/);
    } finally {
      await server.close();
    }
  });
});
