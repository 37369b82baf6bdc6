// The hooks for agents' own shell tools (src/mcp/hook.ts, hookAgents.ts): the hook finds the server
// its agent started, that server retains the whole output in its session, and the model's context
// names the outputId the agent's tools then read. Real processes throughout: `node dist/mcp.js` as
// the server (started by this process, the "agent") and as the hook, each in a run folder of its own
// (helpers/hooks.ts) so no other test's server is found.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { announced, geminiEvent, hookEnv, qwenEvent, readPage, runHook } from '../unit/helpers/hooks';
import { waitUntil } from '../unit/helpers/mochaRun';
import { useTempDirs } from '../unit/helpers/tempDirs';
import { MCP_BUNDLE, connectStdio, ensureBuilt, okText } from '../unit/helpers/mcpServer';

const FIELD = 'release_checksum=5be0c2d9';
/** About 3 MB of shell output with one error in the middle and the field on its last line. */
const OUTPUT = `${Array.from({ length: 300_000 }, (_, i) => `line ${i} ok`).join('\n')}\nERROR: disk full on /var\n${Array.from(
  { length: 10_000 },
  (_, i) => `tail ${i}`,
).join('\n')}\n${FIELD}\n`;

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
      const server = await connectStdio(['--workspace', tmp, '--store', dirs.make()], 'legacy', hookEnv(tmp));
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
    const server = await connectStdio(['--workspace', tmp, '--store', dirs.make()], 'legacy', hookEnv(tmp));
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
    const server = await connectStdio(['--workspace', tmp, '--store', dirs.make()], 'legacy', hookEnv(tmp));
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
      assert.match(refused.stderr, /REFUSED.*outside the workspace folders/);
    } finally {
      await server.close();
    }
  });

  it('a small output needs nothing: no context, nothing retained', async () => {
    const tmp = dirs.make();
    const server = await connectStdio(['--workspace', tmp, '--store', dirs.make()], 'legacy', hookEnv(tmp));
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
    assert.match(hook.stderr, /no tool-output-recall-mcp server of this agent is running in this workspace; the output is not retained/);
  });

  it("picks its own agent's server: of two its agent started for this workspace, the one it started most directly", async () => {
    const tmp = dirs.make();
    const own = await connectStdio(['--workspace', tmp, '--store', dirs.make()], 'legacy', hookEnv(tmp));
    // Another agent's server: one process further from this one (through a shell), as a second agent under the same parent.
    const other = spawn('sh', ['-c', `"${process.execPath}" "${MCP_BUNDLE}" --workspace "${tmp}" --store "${dirs.make()}"; true`], {
      env: { ...process.env, ...hookEnv(tmp) },
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
});
